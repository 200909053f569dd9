import { compileTemplate, hasTemplate, type Scope } from '@weft/expr';
import { MASK } from './secrets.js';

/** Builds a value from a scope: the templates inside it evaluated, the rest kept as written. */
export interface ValueBuilder {
  /** True when the value holds no template: `build` always returns the same frozen value. */
  readonly constant: boolean;
  /** True when some template in the value reads `secrets.*`: the built value is tainted. */
  readonly readsSecrets: boolean;
  build(scope: Scope): unknown;
}

/**
 * Compiles a value of a workflow file (a step's `input`, say) once: each string with `{{ }}` is a
 * compiled template, each part without one is a frozen constant shared by every build. With
 * `maskSecrets`, a string whose template reads `secrets.*` builds to `***` instead (the value as
 * records and events may show it: nothing derived from a secret, however transformed).
 */
export function compileValue(value: unknown, maskSecrets = false): ValueBuilder {
  const build = compileNode(value, maskSecrets);
  if (build === undefined) {
    const frozen = deepFreeze(value);
    return { constant: true, readsSecrets: false, build: () => frozen };
  }
  return { constant: false, readsSecrets: build.secrets, build: build.fn };
}

interface Compiled {
  fn: (scope: Scope) => unknown;
  secrets: boolean;
}

/** `undefined` when the node holds no template. */
function compileNode(value: unknown, maskSecrets: boolean): Compiled | undefined {
  if (typeof value === 'string') {
    if (!hasTemplate(value)) return undefined;
    const template = compileTemplate(value);
    if (maskSecrets && template.readsSecrets) return { fn: () => MASK, secrets: true };
    return { fn: (scope) => template.evaluate(scope), secrets: template.readsSecrets };
  }
  if (Array.isArray(value)) {
    const parts = value.map((item) => compileNode(item, maskSecrets));
    if (parts.every((p) => p === undefined)) return undefined;
    const items = value.map((item, i) => parts[i]?.fn ?? constantOf(item));
    return {
      fn: (scope) => items.map((f) => f(scope)),
      secrets: parts.some((p) => p?.secrets === true),
    };
  }
  if (typeof value === 'object' && value !== null) {
    const entries = Object.entries(value);
    const parts = entries.map(([, v]) => compileNode(v, maskSecrets));
    if (parts.every((p) => p === undefined)) return undefined;
    const keys = entries.map(([k]) => k);
    const fns = entries.map(([, v], i) => parts[i]?.fn ?? constantOf(v));
    return {
      fn: (scope) => {
        const out: Record<string, unknown> = {};
        for (let i = 0; i < keys.length; i++) {
          const key = keys[i]!;
          if (key === '__proto__') {
            Object.defineProperty(out, key, {
              value: fns[i]!(scope),
              enumerable: true,
              writable: true,
              configurable: true,
            });
          } else {
            out[key] = fns[i]!(scope);
          }
        }
        return out;
      },
      secrets: parts.some((p) => p?.secrets === true),
    };
  }
  return undefined;
}

function constantOf(value: unknown): () => unknown {
  const frozen = deepFreeze(value);
  return () => frozen;
}

/** Freezes a value and everything inside it; returns it. */
export function deepFreeze<T>(value: T): T {
  if (typeof value === 'object' && value !== null && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const item of Object.values(value)) deepFreeze(item);
  }
  return value;
}
