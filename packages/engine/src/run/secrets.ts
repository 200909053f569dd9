import { ValidationError, type SecretsProvider } from '@weft/core';
import { secretForms, type SecretForm } from './secret-forms.js';

/** What is shown instead of a secret value in events, logs and records. */
export const MASK = '***';

/** Secrets shorter than this are matched only as whole values, never inside text. */
const MIN_SCAN_LENGTH = 4;

/**
 * Values read as secrets by other paths than `secrets.*` templates (an agent's `api_key_secret`,
 * a connector's credentials), shared by a run and the subworkflows it calls: a key one of them
 * reads is masked in everything any of them records from then on.
 */
export class FoundSecrets {
  readonly forms: SecretForm[] = [];
  private readonly known = new Set<string>();
  /** Bumped on each addition (masks built from the forms are rebuilt). */
  version = 0;

  /** Adds a value (and its JSON leaves); false when it was known already or is empty. */
  add(name: string, value: string): boolean {
    if (value === '' || this.known.has(value)) return false;
    this.known.add(value);
    this.forms.push(...secretForms(name, value));
    this.forms.sort(longestFirst);
    this.version++;
    return true;
  }
}

/**
 * The secrets one run knows: the values its `secrets.*` templates read (for templates), the
 * values read as secrets by other paths ({@link FoundSecrets}), and the forms each value could
 * take in data (exact, base64, hex, string leaves of a JSON secret) for scanning and masking.
 */
export class ResolvedSecrets {
  readonly values: Readonly<Record<string, string>>;
  /** The forms of the `secrets.*` values: an output carrying one blocks the run. */
  private readonly forms: SecretForm[] = [];
  private all: SecretForm[];
  private allVersion: number;

  constructor(
    values: Record<string, string>,
    /** Secrets read by other paths; a subworkflow shares its caller's. */
    readonly found: FoundSecrets = new FoundSecrets(),
  ) {
    this.values = Object.freeze({ ...values });
    for (const [name, value] of Object.entries(values))
      this.forms.push(...secretForms(name, value));
    this.forms.sort(longestFirst);
    this.all = this.forms;
    this.allVersion = -1;
  }

  /** True when the run knows no secret (masking and scanning are then no-ops). */
  get empty(): boolean {
    return this.forms.length === 0 && this.found.forms.length === 0;
  }

  /**
   * Registers a value read as a secret by another path than `secrets.*`: from now on it is
   * masked wherever the run records or sends something, outputs included (masked there, not
   * blocked: it was never in a template, so no output was written to carry it).
   */
  add(name: string, value: string): void {
    // A value the templates read already keeps their rule: an output carrying it blocks the run.
    if (this.forms.some((f) => f.form === value)) return;
    this.found.add(name, value);
  }

  /**
   * Name of the `secrets.*` secret whose value (or an encoded form, or a JSON leaf) appears in
   * `value`, if any. Secrets found by other paths are not reported: they are masked instead.
   */
  find(value: unknown): string | undefined {
    if (this.forms.length === 0) return undefined;
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

  /** A copy of `value` with every known secret value (and its forms) replaced by `***`. */
  mask<T>(value: T): T {
    if (this.empty) return value;
    return maskWith(value, this.allForms());
  }

  /** A copy of `value` with the secrets found by other paths masked (`secrets.*` kept). */
  maskFound<T>(value: T): T {
    if (this.found.forms.length === 0) return value;
    return maskWith(value, this.found.forms);
  }

  private allForms(): SecretForm[] {
    if (this.found.forms.length === 0) return this.forms;
    if (this.allVersion !== this.found.version) {
      this.all = [...this.forms, ...this.found.forms].sort(longestFirst);
      this.allVersion = this.found.version;
    }
    return this.all;
  }
}

function longestFirst(a: SecretForm, b: SecretForm): number {
  return b.form.length - a.form.length;
}

function maskWith<T>(value: T, forms: readonly SecretForm[]): T {
  return maskValue(value, (text) => {
    let out = text;
    for (const { form } of forms) {
      if (out === form) return MASK;
      if (form.length >= MIN_SCAN_LENGTH && out.includes(form)) out = out.split(form).join(MASK);
    }
    return out;
  }) as T;
}

/**
 * Resolves the named secrets through the provider before anything runs; a secret the provider
 * does not have is a `VALIDATION` error naming it.
 */
export async function resolveSecrets(
  names: Iterable<string>,
  provider: SecretsProvider,
  found?: FoundSecrets,
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
  return new ResolvedSecrets(values, found);
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
