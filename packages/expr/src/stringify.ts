import { errorAt, type Site } from './errors.js';
import { LIMITS, MAX_DATA_DEPTH } from './limits.js';
import { ACCESSOR, isPlainObject, readOwnData, typeName } from './values.js';

/**
 * Serialises a value as stable JSON: no whitespace, object keys sorted (by UTF-16 code units) so
 * the same data always gives the same text. Only JSON data is accepted — plain objects, arrays,
 * strings, finite numbers, booleans, null (and `Date`, as its ISO string); no function found in
 * the data (`toJSON` included) is ever called and no getter invoked. Object properties that are
 * missing are left out and array holes become `null`, as `JSON.stringify` does. Cycles, values
 * nested deeper than {@link MAX_DATA_DEPTH}, results longer than `LIMITS.maxStringLength` and
 * non-JSON values raise a {@link TemplateError} naming `what` (e.g. `json`).
 */
export function stableJson(value: unknown, site: Site, what: string): string {
  const writer = new JsonWriter(site, what);
  writer.write(value, 0);
  return writer.out;
}

/**
 * The text of a value interpolated into a text template or joined with `+`: strings as they
 * are, `null` as the empty string, numbers and booleans via `String`, arrays and objects as
 * {@link stableJson}.
 */
export function toText(value: unknown, site: Site): string {
  switch (typeof value) {
    case 'string':
      return value;
    case 'number':
    case 'boolean':
      return String(value);
    default:
      return value === null ? '' : stableJson(value, site, 'text interpolation');
  }
}

class JsonWriter {
  out = '';
  private readonly ancestors: object[] = [];

  constructor(
    private readonly site: Site,
    private readonly what: string,
  ) {}

  write(value: unknown, depth: number): void {
    switch (typeof value) {
      case 'string':
        return this.append(JSON.stringify(value));
      case 'number':
        return this.append(Number.isFinite(value) ? String(value) : 'null');
      case 'boolean':
        return this.append(value ? 'true' : 'false');
      case 'object':
        if (value === null) return this.append('null');
        if (value instanceof Date) return this.append(dateJson(value));
        return this.container(value, depth);
      default:
        throw errorAt(this.site, 'type', `${this.what} cannot serialise a ${typeName(value)}`);
    }
  }

  private container(value: object, depth: number): void {
    const isArray = Array.isArray(value);
    if (!isArray && !isPlainObject(value)) {
      throw errorAt(this.site, 'type', `${this.what} cannot serialise a non-plain object`);
    }
    if (this.ancestors.includes(value)) {
      throw errorAt(
        this.site,
        'type',
        `${this.what} cannot serialise a value that contains itself`,
      );
    }
    if (depth >= MAX_DATA_DEPTH) {
      throw errorAt(
        this.site,
        'limit',
        `${this.what} cannot serialise data nested deeper than ${MAX_DATA_DEPTH} levels`,
      );
    }
    this.ancestors.push(value);
    if (isArray) {
      this.append('[');
      for (let i = 0; i < value.length; i++) {
        if (i > 0) this.append(',');
        const item = this.read(value, i);
        this.write(item === undefined || typeof item === 'function' ? null : item, depth + 1);
      }
      this.append(']');
    } else {
      this.append('{');
      let first = true;
      for (const key of Object.keys(value).sort()) {
        const item = this.read(value, key);
        if (item === undefined || typeof item === 'function') continue;
        this.append(first ? JSON.stringify(key) + ':' : ',' + JSON.stringify(key) + ':');
        first = false;
        this.write(item, depth + 1);
      }
      this.append('}');
    }
    this.ancestors.pop();
  }

  private read(target: object, key: string | number): unknown {
    const item = readOwnData(target, key);
    if (item === ACCESSOR) {
      throw errorAt(
        this.site,
        'forbidden_property',
        `${this.what} cannot serialise accessor property "${key}"`,
      );
    }
    return item;
  }

  private append(text: string): void {
    this.out += text;
    if (this.out.length > LIMITS.maxStringLength) {
      throw errorAt(
        this.site,
        'limit',
        `${this.what} result is longer than ${LIMITS.maxStringLength} characters (maxStringLength)`,
      );
    }
  }
}

function dateJson(date: Date): string {
  const time = Date.prototype.getTime.call(date);
  return Number.isNaN(time) ? 'null' : JSON.stringify(new Date(time).toISOString());
}
