import {
  CONNECTOR_DEFAULTS,
  type ConnectorAction,
  type ConnectorDefinition,
  type ConnectorKind,
} from '@weft/core';
import type { Reporter } from '@weft/engine';
import type { Ajv, ValidateFunction } from 'ajv';
import pLimit, { type LimitFunction } from 'p-limit';
import { throwIfErrors } from './parse-definition.js';
import { compileActionSchema } from './schemas.js';

/** One action of a {@link CompiledConnector}: its definition and compiled schemas. */
export interface CompiledAction {
  readonly name: string;
  readonly definition: ConnectorAction;
  readonly validateInput: ValidateFunction | undefined;
  readonly validateOutput: ValidateFunction | undefined;
  /** Effective per-attempt timeout in milliseconds. */
  readonly timeoutMs: number;
}

/** A connector ready to serve calls: checked, schemas compiled, limiter made. */
export interface CompiledConnector {
  readonly kind: ConnectorKind;
  readonly name: string;
  readonly namespace: string;
  readonly version: string;
  /** `connector:<namespace>/<name>@<version>`. */
  readonly ref: string;
  /** The plugin slug of a plugin file, when it differs from `name` (also resolves `plugin:`). */
  readonly slug: string | undefined;
  readonly definition: ConnectorDefinition;
  readonly actions: ReadonlyMap<string, CompiledAction>;
  /** Cap of in-flight calls. */
  readonly concurrency: number;
  /** Runs a call under the connector's concurrency cap. */
  readonly limit: LimitFunction;
  /** The file it was loaded from, when it was. */
  readonly file: string | undefined;
  /** Working directory of `shell` commands: the file's folder, else the process's. */
  readonly cwd: string | undefined;
  /**
   * The environment variables its plugin metadata declares (`environment`) as secrets: each
   * one but those with `secret: false`. A call tells the run their values, to be masked.
   */
  readonly secretEnvironment: readonly string[];
}

/** Defaults the invoker applies to every connector. */
export interface ConnectorDefaults {
  /** Timeout in seconds when neither the action nor the connector gives one. */
  timeoutSeconds: number;
  /** Concurrency cap when the connector gives none. */
  concurrency: number;
}

/**
 * Compiles a checked definition: every action's schemas with ajv (once), its effective timeout
 * (`action.timeout`, else `connector.timeout`, else `connector.runtime.resources.timeout`, else
 * the default; at most 600 s) and the connector's concurrency limiter (`connector.concurrency`,
 * else the default; at most 100).
 */
export function compileConnector(
  definition: ConnectorDefinition,
  context: {
    ajv: Ajv;
    reporter: Reporter;
    defaults: ConnectorDefaults;
    file?: string;
    cwd?: string;
  },
): CompiledConnector {
  const { connector } = definition;
  const { ajv, reporter, defaults } = context;
  const connectorTimeout =
    connector.timeout ?? connector.runtime?.resources?.timeout ?? defaults.timeoutSeconds;
  const actions = new Map<string, CompiledAction>();
  definition.actions.forEach((action, index) => {
    const at = ['actions', index];
    const seconds = Math.min(
      action.timeout ?? connectorTimeout,
      CONNECTOR_DEFAULTS.maxTimeoutSeconds,
    );
    actions.set(action.name, {
      name: action.name,
      definition: action,
      validateInput: compileActionSchema(
        ajv,
        action.input_schema,
        [...at, 'input_schema'],
        reporter,
      ),
      validateOutput: compileActionSchema(
        ajv,
        action.output_schema,
        [...at, 'output_schema'],
        reporter,
      ),
      timeoutMs: seconds * 1000,
    });
  });
  throwIfErrors(reporter);
  const concurrency = Math.min(
    connector.concurrency ?? defaults.concurrency,
    CONNECTOR_DEFAULTS.maxConcurrency,
  );
  const slug = typeof definition.slug === 'string' ? definition.slug : undefined;
  return {
    kind: connector.kind,
    name: connector.name,
    namespace: connector.namespace,
    version: connector.version,
    ref: connectorRef(connector.namespace, connector.name, connector.version),
    slug: slug !== connector.name ? slug : undefined,
    definition,
    actions,
    concurrency,
    limit: pLimit(concurrency),
    file: context.file,
    cwd: context.cwd,
    secretEnvironment: secretEnvironment(definition.environment),
  };
}

/**
 * The names of the declared environment variables that are secrets: every one unless it says
 * `secret: false` (a credential declared without the flag is masked: the safe default). The
 * registry checks the shape of `environment`; entries this cannot read are skipped.
 */
function secretEnvironment(declared: unknown): string[] {
  if (!Array.isArray(declared)) return [];
  const names: string[] = [];
  for (const entry of declared as unknown[]) {
    if (typeof entry !== 'object' || entry === null) continue;
    const { name, secret } = entry as { name?: unknown; secret?: unknown };
    if (typeof name === 'string' && secret !== false) names.push(name);
  }
  return names;
}

/** `connector:<namespace>/<name>@<version>`. */
export function connectorRef(namespace: string, name: string, version: string): string {
  return `connector:${namespace}/${name}@${version}`;
}
