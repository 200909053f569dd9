import type { ExecutionContext } from '@weft/core';
import { compileTemplate, type Scope } from '@weft/expr';

/**
 * The scope connector templates are evaluated against. In a connector definition,
 * `{{ inputs.x }}` reads field `x` of the **action input** (not the workflow inputs: the action
 * input is what the step passed), and `{{ env.X }}` reads the run's environment. Evaluation
 * results are data: they are never evaluated again.
 */
export function connectorScope(input: unknown, context: ExecutionContext): Scope {
  return { inputs: input, env: context.environment };
}

/** Evaluates one template to any value (a literal string stays itself). */
export function renderValue(source: string, scope: Scope): unknown {
  return source.includes('{{') ? compileTemplate(source).evaluate(scope) : source;
}

/** Evaluates one template to a string: objects and arrays become JSON, `null` the empty string. */
export function renderText(source: string, scope: Scope): string {
  return asText(renderValue(source, scope));
}

/** Evaluates every string leaf of a JSON value (a request body) as a template. */
export function renderDeep(value: unknown, scope: Scope): unknown {
  if (typeof value === 'string') return renderValue(value, scope);
  if (Array.isArray(value)) return value.map((item) => renderDeep(item, scope));
  if (typeof value !== 'object' || value === null) return value;
  const out: Record<string, unknown> = {};
  for (const [key, item] of Object.entries(value)) {
    Object.defineProperty(out, key, {
      value: renderDeep(item, scope),
      enumerable: true,
      writable: true,
      configurable: true,
    });
  }
  return out;
}

/** Evaluates each entry of a map of templates to a string. */
export function renderMap(
  map: Readonly<Record<string, string>> | undefined,
  scope: Scope,
): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [key, source] of Object.entries(map ?? {})) out[key] = renderText(source, scope);
  return out;
}

/**
 * Evaluates a URL template. A URL that is exactly one `{{ expr }}` is taken as it is; otherwise
 * each `{{ }}` part is percent-encoded (`encodeURIComponent`), so an input value can never add
 * a path segment, a query parameter or a host.
 */
export function renderUrl(source: string, scope: Scope): string {
  if (!source.includes('{{')) return source;
  if (compileTemplate(source).kind === 'expression') return renderText(source, scope);
  return source.replace(/\{\{[\s\S]*?\}\}/g, (part) => encodeURIComponent(renderText(part, scope)));
}

/** Text of a value as a command argument or header: strings as they are, others as JSON. */
export function asText(value: unknown): string {
  if (typeof value === 'string') return value;
  if (value === null || value === undefined) return '';
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  return JSON.stringify(value);
}
