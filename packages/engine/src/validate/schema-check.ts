import { suggestion } from '@weft/core';
import { describeValue, type Path } from '../diagnostics.js';
import { Reporter, type ReportExtras } from '../load/reporter.js';
import { describeSchemaType, fitsType, isPlainObject, prune } from './schema-util.js';

export { isPlainObject };

/**
 * Errors that make a value unusable for the checks after the schema: it is pruned. A value of the
 * right type that breaks a constraint (pattern, range, length) stays, so that later checks do not
 * report it missing.
 */
const PRUNED = new Set(['type', 'unknown_key', 'key', 'enum', 'value', 'min_items', 'max_items']);

/** The JSON Schema keywords the TypeBox types of `@weft/core` use. */
export interface Schema {
  $id?: string;
  $ref?: string;
  type?: string;
  const?: unknown;
  anyOf?: Schema[];
  properties?: Record<string, Schema>;
  required?: string[];
  additionalProperties?: boolean | Schema;
  patternProperties?: Record<string, Schema>;
  items?: Schema;
  minItems?: number;
  maxItems?: number;
  uniqueItems?: boolean;
  minLength?: number;
  maxLength?: number;
  pattern?: string;
  minimum?: number;
  maximum?: number;
  exclusiveMinimum?: number;
  'x-expected'?: string;
  'x-expected-key'?: string;
}

/**
 * Checks a value against a JSON Schema made of the keywords above and reports every mismatch
 * with its path, what was expected and what was found. Unlike a generic validator it reads
 * discriminated unions by their `type` property (one precise error instead of one per branch)
 * and offers a did-you-mean for unknown keys and enum values.
 */
export class SchemaChecker {
  private readonly refs = new Map<string, Schema>();
  private readonly patterns = new Map<string, RegExp>();

  constructor(root: unknown) {
    this.collectIds(root);
  }

  /** Paths of the values found wrong by the running check (missing keys excluded). */
  private bad: { path: Path; code: string }[] = [];

  /** Checks `value`; returns the number of errors reported. */
  check(schema: unknown, value: unknown, path: Path, reporter: Reporter): number {
    const before = reporter.errorCount;
    this.bad = [];
    this.visit(schema as Schema, value, path, reporter);
    return reporter.errorCount - before;
  }

  /**
   * Checks `value` and also gives it back without the parts found wrong (unknown keys, values of
   * the wrong type or out of range), so that later checks can still run on the rest: a file
   * gets all its errors at once. `pruned` is undefined when what is left still does not fit
   * (a required key is missing or wrong).
   */
  checkAndPrune(
    schema: unknown,
    value: unknown,
    path: Path,
    reporter: Reporter,
  ): { errors: number; pruned: unknown } {
    const errors = this.check(schema, value, path, reporter);
    let pruned = value;
    let bad = this.bad.filter((b) => PRUNED.has(b.code));
    for (let round = 0; round < 100 && bad.length > 0 && pruned !== undefined; round++) {
      pruned = prune(
        pruned,
        bad.map((b) => b.path.slice(path.length)),
      );
      this.bad = [];
      this.visit(schema as Schema, pruned, path, new Reporter(undefined, undefined));
      bad = this.bad.filter((b) => PRUNED.has(b.code) || b.code === 'required');
    }
    return { errors, pruned: bad.length === 0 ? pruned : undefined };
  }

  private fail(
    reporter: Reporter,
    path: Path,
    code: string,
    message: string,
    extras?: ReportExtras,
  ): void {
    this.bad.push({ path, code });
    reporter.error(path, code, message, extras);
  }

  private visit(schema: Schema, value: unknown, path: Path, reporter: Reporter): void {
    if (schema.$ref !== undefined) {
      const target = this.refs.get(schema.$ref);
      if (!target) throw new Error(`unresolved schema reference ${schema.$ref}`);
      return this.visit(target, value, path, reporter);
    }
    if (schema.anyOf) return this.visitUnion(schema, value, path, reporter);
    if (schema.const !== undefined) {
      if (value !== schema.const) {
        this.fail(
          reporter,
          path,
          'value',
          `expected ${JSON.stringify(schema.const)}, found ${describeValue(value)}`,
          {
            expected: JSON.stringify(schema.const),
            found: describeValue(value),
          },
        );
      }
      return;
    }
    switch (schema.type) {
      case 'object':
        return this.visitObject(schema, value, path, reporter);
      case 'array':
        return this.visitArray(schema, value, path, reporter);
      case 'string':
        return this.visitString(schema, value, path, reporter);
      case 'integer':
      case 'number':
        return this.visitNumber(schema, value, path, reporter);
      case 'boolean':
        if (typeof value !== 'boolean') this.typeError('true or false', value, path, reporter);
        return;
      default:
        return; // no type: any value
    }
  }

  private visitUnion(schema: Schema, value: unknown, path: Path, reporter: Reporter): void {
    const options = schema.anyOf!.map((o) => this.deref(o));
    if (options.every((o) => o.const !== undefined)) {
      const allowed = options.map((o) => o.const);
      if (allowed.includes(value)) return;
      const names = allowed.map((a) => JSON.stringify(a));
      const hint = typeof value === 'string' ? suggestion(value, allowed.map(String)) : '';
      this.fail(
        reporter,
        path,
        'enum',
        `expected one of ${names.join(', ')}, found ${describeValue(value)}${hint}`,
        {
          expected: `one of ${names.join(', ')}`,
          found: describeValue(value),
        },
      );
      return;
    }
    const discriminated = options.every((o) => o.properties?.['type']?.const !== undefined);
    if (discriminated) return this.visitDiscriminated(options, value, path, reporter);
    const fitting = options.filter((o) => fitsType(o, value));
    if (fitting.length === 0) {
      const expected = [...new Set(options.map(describeSchemaType))].join(' or ');
      return this.typeError(expected, value, path, reporter);
    }
    this.visit(fitting[0]!, value, path, reporter);
  }

  private visitDiscriminated(
    options: Schema[],
    value: unknown,
    path: Path,
    reporter: Reporter,
  ): void {
    if (!isPlainObject(value)) return this.typeError('an object', value, path, reporter);
    const kinds = options.map((o) => String(o.properties!['type']!.const));
    const kind = value['type'];
    const chosen = options.find((o) => o.properties!['type']!.const === kind);
    if (chosen) return this.visit(chosen, value, path, reporter);
    const list = kinds.map((k) => JSON.stringify(k)).join(', ');
    if (kind === undefined) {
      this.fail(reporter, path, 'required', `missing required key "type" (one of ${list})`, {
        expected: `type: one of ${list}`,
        found: 'no type',
      });
      return;
    }
    const hint = typeof kind === 'string' ? suggestion(kind, kinds) : '';
    this.fail(
      reporter,
      [...path, 'type'],
      'enum',
      `expected one of ${list}, found ${describeValue(kind)}${hint}`,
      {
        expected: `one of ${list}`,
        found: describeValue(kind),
      },
    );
  }

  private visitObject(schema: Schema, value: unknown, path: Path, reporter: Reporter): void {
    if (!isPlainObject(value))
      return this.typeError('an object (a map of keys)', value, path, reporter);
    const properties = schema.properties ?? {};
    for (const key of Object.keys(value)) {
      const child = [...path, key];
      const known = Object.hasOwn(properties, key) ? properties[key] : undefined;
      if (known) {
        this.visit(known, value[key], child, reporter);
        continue;
      }
      const pattern = schema.patternProperties && Object.entries(schema.patternProperties)[0];
      if (pattern) {
        if (this.regex(pattern[0]).test(key)) this.visit(pattern[1], value[key], child, reporter);
        else {
          const expected = schema['x-expected-key'] ?? `a key matching ${pattern[0]}`;
          this.fail(reporter, child, 'key', `invalid key "${key}": expected ${expected}`, {
            key: true,
            expected,
            found: key,
          });
        }
        continue;
      }
      if (typeof schema.additionalProperties === 'object') {
        this.visit(schema.additionalProperties, value[key], child, reporter);
      } else if (schema.additionalProperties === false) {
        const hint = suggestion(key, Object.keys(properties));
        this.fail(reporter, child, 'unknown_key', `unknown key "${key}"${hint}`, {
          key: true,
          expected: `one of ${Object.keys(properties).join(', ')}`,
          found: key,
        });
      }
    }
    for (const key of schema.required ?? []) {
      if (!Object.hasOwn(value, key)) {
        this.fail(reporter, path, 'required', `missing required key "${key}"`, {
          expected: `a key "${key}"`,
          found: 'none',
        });
      }
    }
  }

  private visitArray(schema: Schema, value: unknown, path: Path, reporter: Reporter): void {
    if (!Array.isArray(value)) return this.typeError('a list', value, path, reporter);
    if (schema.minItems !== undefined && value.length < schema.minItems) {
      const expected = `at least ${schema.minItems} item${schema.minItems === 1 ? '' : 's'}`;
      this.fail(reporter, path, 'min_items', `expected ${expected}, found ${value.length}`, {
        expected,
        found: String(value.length),
      });
    }
    if (schema.maxItems !== undefined && value.length > schema.maxItems) {
      const expected = `at most ${schema.maxItems} items`;
      this.fail(reporter, path, 'max_items', `expected ${expected}, found ${value.length}`, {
        expected,
        found: String(value.length),
      });
      return;
    }
    if (schema.uniqueItems) {
      const seen = new Set<string>();
      value.forEach((item, index) => {
        const key = JSON.stringify(item);
        if (seen.has(key))
          this.fail(reporter, [...path, index], 'duplicate', `duplicate item ${key}`);
        seen.add(key);
      });
    }
    if (schema.items)
      value.forEach((item, index) => this.visit(schema.items!, item, [...path, index], reporter));
  }

  private visitString(schema: Schema, value: unknown, path: Path, reporter: Reporter): void {
    if (typeof value !== 'string') {
      const quote = typeof value === 'number' || typeof value === 'boolean';
      const hint = quote ? ' (quote it to make it a string)' : '';
      return this.typeError(schema['x-expected'] ?? 'a string', value, path, reporter, hint);
    }
    if (schema.minLength !== undefined && value.length < schema.minLength) {
      const expected =
        schema.minLength === 1 ? 'a non-empty string' : `at least ${schema.minLength} characters`;
      this.fail(
        reporter,
        path,
        'min_length',
        `expected ${expected}, found ${describeValue(value)}`,
        {
          expected,
          found: describeValue(value),
        },
      );
      return;
    }
    if (schema.maxLength !== undefined && value.length > schema.maxLength) {
      const expected = `at most ${schema.maxLength} characters`;
      this.fail(reporter, path, 'max_length', `expected ${expected}, found ${value.length}`, {
        expected,
        found: `${value.length} characters`,
      });
      return;
    }
    if (schema.pattern !== undefined && !this.regex(schema.pattern).test(value)) {
      const expected = schema['x-expected'] ?? `a string matching ${schema.pattern}`;
      this.fail(reporter, path, 'pattern', `expected ${expected}, found ${describeValue(value)}`, {
        expected,
        found: describeValue(value),
      });
    }
  }

  private visitNumber(schema: Schema, value: unknown, path: Path, reporter: Reporter): void {
    const integer = schema.type === 'integer';
    if (
      typeof value !== 'number' ||
      !Number.isFinite(value) ||
      (integer && !Number.isInteger(value))
    ) {
      return this.typeError(integer ? 'an integer' : 'a number', value, path, reporter);
    }
    const low = schema.minimum !== undefined && value < schema.minimum;
    const lowExclusive = schema.exclusiveMinimum !== undefined && value <= schema.exclusiveMinimum;
    const high = schema.maximum !== undefined && value > schema.maximum;
    if (!low && !lowExclusive && !high) return;
    const bounds = [
      schema.minimum !== undefined ? `≥ ${schema.minimum}` : undefined,
      schema.exclusiveMinimum !== undefined ? `> ${schema.exclusiveMinimum}` : undefined,
      schema.maximum !== undefined ? `≤ ${schema.maximum}` : undefined,
    ].filter(Boolean);
    const expected = `${integer ? 'an integer' : 'a number'} ${bounds.join(' and ')}`;
    this.fail(reporter, path, 'range', `expected ${expected}, found ${value}`, {
      expected,
      found: String(value),
    });
  }

  private typeError(
    expected: string,
    value: unknown,
    path: Path,
    reporter: Reporter,
    hint = '',
  ): void {
    this.fail(
      reporter,
      path,
      'type',
      `expected ${expected}, found ${describeValue(value)}${hint}`,
      {
        expected,
        found: describeValue(value),
      },
    );
  }

  private deref(schema: Schema): Schema {
    return schema.$ref !== undefined ? (this.refs.get(schema.$ref) ?? schema) : schema;
  }

  private regex(pattern: string): RegExp {
    let compiled = this.patterns.get(pattern);
    if (!compiled) {
      compiled = new RegExp(pattern, 'u');
      this.patterns.set(pattern, compiled);
    }
    return compiled;
  }

  private collectIds(schema: unknown): void {
    const stack = [schema];
    while (stack.length > 0) {
      const node = stack.pop();
      if (typeof node !== 'object' || node === null) continue;
      const id = (node as Schema).$id;
      if (id !== undefined) this.refs.set(id, node);
      for (const child of Object.values(node)) stack.push(child);
    }
  }
}
