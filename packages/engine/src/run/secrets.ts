import { ValidationError, type SecretsProvider } from '@weft/core';

/** What is shown instead of a secret value in events, logs and records. */
export const MASK = '***';

/** Secrets shorter than this are matched only as whole values, never inside text. */
const MIN_SCAN_LENGTH = 4;

/**
 * The secrets one run resolved: their values (for templates), and the forms a value could take
 * in an output (exact, base64, hex) for scanning and masking.
 */
export class ResolvedSecrets {
  readonly values: Readonly<Record<string, string>>;
  private readonly forms: { name: string; form: string }[] = [];

  constructor(values: Record<string, string>) {
    this.values = Object.freeze({ ...values });
    for (const [name, value] of Object.entries(values)) {
      if (value === '') continue;
      const buffer = Buffer.from(value, 'utf8');
      for (const form of new Set([
        value,
        buffer.toString('base64'),
        buffer.toString('base64url'),
        buffer.toString('hex'),
      ])) {
        this.forms.push({ name, form });
      }
    }
    this.forms.sort((a, b) => b.form.length - a.form.length);
  }

  /** True when the run resolved no secret (masking and scanning are then no-ops). */
  get empty(): boolean {
    return this.forms.length === 0;
  }

  /** Name of the secret whose value (or its base64 or hex form) appears in `value`, if any. */
  find(value: unknown): string | undefined {
    if (this.empty) return undefined;
    let found: string | undefined;
    walkStrings(value, (text) => {
      for (const { name, form } of this.forms) {
        if (text === form || (form.length >= MIN_SCAN_LENGTH && text.includes(form))) {
          found = name;
          return true;
        }
      }
      return false;
    });
    return found;
  }

  /** A copy of `value` with every secret value (and its encoded forms) replaced by `***`. */
  mask<T>(value: T): T {
    if (this.empty) return value;
    return maskValue(value, (text) => {
      let out = text;
      for (const { form } of this.forms) {
        if (out === form) return MASK;
        if (form.length >= MIN_SCAN_LENGTH && out.includes(form)) out = out.split(form).join(MASK);
      }
      return out;
    }) as T;
  }
}

/**
 * Resolves the named secrets through the provider before anything runs; a secret the provider
 * does not have is a `VALIDATION` error naming it.
 */
export async function resolveSecrets(
  names: Iterable<string>,
  provider: SecretsProvider,
): Promise<ResolvedSecrets> {
  const values: Record<string, string> = {};
  for (const name of new Set(names)) {
    const value = await provider.get(name);
    if (value === undefined) {
      throw new ValidationError(
        `secret "${name}" is not set (the default provider reads the environment variable ${name})`,
        {
          field: `secrets.${name}`,
          constraint: 'required',
        },
      );
    }
    values[name] = value;
  }
  return new ResolvedSecrets(values);
}

function walkStrings(value: unknown, visit: (text: string) => boolean): boolean {
  const stack = [value];
  while (stack.length > 0) {
    const item = stack.pop();
    if (typeof item === 'string') {
      if (visit(item)) return true;
    } else if (typeof item === 'object' && item !== null) {
      for (const [key, child] of Object.entries(item)) {
        if (visit(key)) return true;
        stack.push(child);
      }
    }
  }
  return false;
}

function maskValue(value: unknown, mask: (text: string) => string): unknown {
  if (typeof value === 'string') return mask(value);
  if (Array.isArray(value)) return value.map((item) => maskValue(item, mask));
  if (typeof value === 'object' && value !== null) {
    const out: Record<string, unknown> = {};
    for (const [key, child] of Object.entries(value)) {
      Object.defineProperty(out, mask(key), {
        value: maskValue(child, mask),
        enumerable: true,
        writable: true,
        configurable: true,
      });
    }
    return out;
  }
  return value;
}
