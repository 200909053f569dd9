import { isPlainObject, type Reporter } from '@weft/engine';

/** An environment map, as given to the SDK (`environment` option). */
export type Environment = Readonly<Record<string, string | undefined>>;

/** `$${` (escape), `${NAME}` or `${NAME:-default}`. */
const REFERENCE = /\$(\$)?\{([^}]*)\}/g;
const NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

/**
 * Replaces environment references in every string value of a connector definition (keys are
 * never touched), at load time:
 *
 * - `${NAME}` is the value of `NAME` in `environment`; an unset variable is an error.
 * - `${NAME:-default}` is the value, or `default` when `NAME` is unset or empty.
 * - `$${` stands for a literal `${`.
 *
 * The substitution runs on the parsed data, so a value can never change the structure of the
 * file. `{{ }}` templates are left alone: they are evaluated on each call, on the action input.
 * Returns a copy; problems are reported at their path (and character) in the file.
 */
export function interpolateEnvironment(
  value: unknown,
  environment: Environment,
  reporter: Reporter,
  path: (string | number)[] = [],
): unknown {
  if (typeof value === 'string') return interpolateString(value, environment, reporter, path);
  if (Array.isArray(value)) {
    return value.map((item, index) =>
      interpolateEnvironment(item, environment, reporter, [...path, index]),
    );
  }
  if (!isPlainObject(value)) return value;
  const out: Record<string, unknown> = {};
  for (const [key, item] of Object.entries(value)) {
    Object.defineProperty(out, key, {
      value: interpolateEnvironment(item, environment, reporter, [...path, key]),
      enumerable: true,
      writable: true,
      configurable: true,
    });
  }
  return out;
}

function interpolateString(
  text: string,
  environment: Environment,
  reporter: Reporter,
  path: (string | number)[],
): string {
  if (!text.includes('${')) return text;
  return text.replace(REFERENCE, (match, escaped: string | undefined, body: string, offset) => {
    if (escaped !== undefined) return match.slice(1);
    const split = body.indexOf(':-');
    const name = split < 0 ? body : body.slice(0, split);
    if (!NAME.test(name)) {
      reporter.error(path, 'env', `invalid environment reference "${match}"`, {
        offsetInValue: offset as number,
        expected: '${NAME} or ${NAME:-default}',
        found: match,
      });
      return match;
    }
    const found = Object.hasOwn(environment, name) ? environment[name] : undefined;
    if (split >= 0) return found === undefined || found === '' ? body.slice(split + 2) : found;
    if (found === undefined) {
      reporter.error(
        path,
        'env',
        `environment variable ${name} is not set (set it, or write \${${name}:-default})`,
        { offsetInValue: offset as number, expected: `a variable ${name}`, found: 'none' },
      );
      return match;
    }
    return found;
  });
}
