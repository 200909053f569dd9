import { ValidationError } from '../errors/weft-error.js';
import type { ActionCall } from '../ports/action-invoker.js';
import { CONNECTOR_REF_PATTERN } from '../workflow/steps.js';

/** The parts of a connector reference `connector:<namespace>/<name>@<version>`. */
export interface ConnectorReference {
  readonly namespace: string;
  /** The connector's name: the plugin slug its actions are called by. */
  readonly name: string;
  /** What follows `@`, as written: a version, or a range where a range is allowed. */
  readonly version: string;
}

/** The plugin an action target calls, and the version it pins (connector references only). */
export interface TargetPlugin {
  readonly slug: string;
  readonly version?: string;
}

const REF = new RegExp(CONNECTOR_REF_PATTERN);

/**
 * Reads a connector reference (`connector:acme/http@1.2.0`, `connector:acme/http@^1`); undefined
 * when `ref` does not have the shape of {@link CONNECTOR_REF_PATTERN}.
 */
export function parseConnectorRef(ref: string): ConnectorReference | undefined {
  const match = REF.exec(ref);
  return match ? { namespace: match[1]!, name: match[2]!, version: match[3]! } : undefined;
}

/** The `VALIDATION` error of a string that is not a connector reference, naming the shape. */
export function connectorRefError(ref: string): ValidationError {
  return new ValidationError(
    `"${ref}" is not a connector reference connector:<namespace>/<name>@<version>`,
    { field: 'connector', constraint: 'pattern' },
  );
}

/**
 * The plugin of an action target: a `plugin:` slug as it is, or the name and pinned version of a
 * connector reference. A malformed reference throws `invalid(ref)`, by default
 * {@link connectorRefError}.
 */
export function targetPlugin(
  target: ActionCall['target'],
  invalid: (ref: string) => Error = connectorRefError,
): TargetPlugin {
  if (target.kind === 'plugin') return { slug: target.slug };
  const ref = parseConnectorRef(target.ref);
  if (!ref) throw invalid(target.ref);
  return { slug: ref.name, version: ref.version };
}
