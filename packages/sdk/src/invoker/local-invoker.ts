import {
  ValidationError,
  type ActionCall,
  type ActionInvoker,
  type ConnectorDefinition,
  type ConnectorRuntime,
  type InvocationResult,
} from '@weft/core';
import { Reporter } from '@weft/engine';
import { inSpanOf } from '@weft/telemetry';
import type { Ajv } from 'ajv';
import pLimit from 'p-limit';
import {
  compileConnector,
  type CompiledConnector,
  type ConnectorDefaults,
} from '../connector/compile-connector.js';
import { parseConnectorDefinition } from '../connector/parse-definition.js';
import { checkInput, checkOutput, createAjv } from '../connector/schemas.js';
import { decoratedHandlers, parseHandlerKey, type ActionHandler } from '../handlers/handler.js';
import type { ActionRun } from '../kinds/action-run.js';
import { abortError, toActionError } from '../kinds/errors.js';
import { runHttp } from '../kinds/http.js';
import { runShell } from '../kinds/shell.js';
import { checkKindLimits } from '../sandbox/kind-limits.js';
import { Sandbox } from '../sandbox/index.js';
import { ConnectorTable, type Resolved } from './connector-table.js';
import { readConnectorDir, readConnectorFile, type ConnectorSource } from './read-files.js';
import { compileInvokerOptions, type LocalInvokerOptions } from './options.js';

/**
 * The `local` execution mode's {@link ActionInvoker} (docs/protocol.md#execution-modes): runs actions in this
 * process — `function` connectors through registered handlers, `shell` connectors as child
 * processes, `http` connectors over HTTP. Validates inputs and outputs against the action
 * schemas, caps in-flight calls per connector, and maps failures to the taxonomy (docs/protocol.md#error-codes).
 * Per-attempt timeouts and retries are the engine's: it aborts `context.signal`, and asks
 * {@link LocalInvoker.timeoutFor} for the timeout of a step that sets none.
 */
export class LocalInvoker implements ActionInvoker {
  private readonly options;
  private readonly defaults: ConnectorDefaults;
  /** Made at the first connector compiled: a run of only built-in steps needs no ajv. */
  private ajv: Ajv | undefined;
  private readonly table = new ConnectorTable();
  private readonly implicit = new Map<string, CompiledConnector>();
  private sandbox: Promise<Sandbox> | undefined;
  /** Connectors warned of in best-effort mode (function and http kinds). */
  private readonly warned = new Set<string>();

  constructor(options: LocalInvokerOptions = {}) {
    this.options = compileInvokerOptions(options);
    this.defaults = {
      timeoutSeconds: this.options.defaultTimeoutSeconds,
      concurrency: this.options.defaultConcurrency,
    };
  }

  /**
   * Registers a connector from an in-memory definition (`{connector: {...}, actions: [...]}`),
   * checked like a file. Returns the compiled connector. Throws `VALIDATION`.
   */
  registerConnector(definition: ConnectorDefinition | object): CompiledConnector {
    return this.register({ input: definition });
  }

  /** Registers a connector from the text of a YAML or JSON document; `file` names it in errors. */
  registerConnectorSource(text: string | Uint8Array, file?: string): CompiledConnector {
    return this.register({ input: text, ...(file !== undefined ? { file } : {}) });
  }

  /** Loads and registers a connector file (YAML or JSON). `shell` commands run in its folder. */
  async loadConnectorFile(path: string): Promise<CompiledConnector> {
    return this.register(await readConnectorFile(path, this.options.maxFileSize));
  }

  /**
   * Loads every `*.yaml`, `*.yml` and `*.json` file of a folder (such as `./plugins`), in name
   * order. Every file is checked before any is registered; the error lists every bad file. A
   * missing folder is an error unless `missingOk`.
   */
  async loadConnectorDir(dir: string, options: { missingOk?: boolean } = {}) {
    const sources = await readConnectorDir(dir, this.options.maxFileSize, options.missingOk);
    return this.registerAll(sources);
  }

  /** Registers the handler of `<plugin>.<action>` (replacing an earlier one). */
  registerHandler<Input = Record<string, unknown>>(key: string, fn: ActionHandler<Input>): this {
    parseHandlerKey(key);
    this.table.addHandler(key, fn as ActionHandler);
    return this;
  }

  /** Registers every method of `target` marked with the `@handler(key)` decorator. */
  registerHandlers(target: object): this {
    for (const { key, fn } of decoratedHandlers(target)) this.registerHandler(key, fn);
    return this;
  }

  /** Every registered connector. */
  connectors(): CompiledConnector[] {
    return this.table.connectors();
  }

  /** Throws `VALIDATION` naming the target or action that cannot be served (with did-you-mean). */
  check(target: ActionCall['target'], action: string): void {
    this.resolve(target, action);
  }

  /** Effective timeout of an action in milliseconds (`action.timeout`, connector, default). */
  timeoutFor(target: ActionCall['target'], action: string): number {
    const { action: compiled } = this.resolve(target, action, false);
    return compiled?.timeoutMs ?? this.defaults.timeoutSeconds * 1000;
  }

  /** Runs one action call; see the class comment. */
  invoke(call: ActionCall): Promise<InvocationResult> {
    let resolved: Resolved;
    try {
      resolved = this.resolve(call.target, call.action);
      checkInput(resolved.action?.validateInput, call.input, resolved.call);
    } catch (error) {
      return Promise.reject(error);
    }
    const { connector, action } = resolved;
    const { context } = call;
    // The connector's credentials are secrets of the run: an answer or error echoing one is
    // masked in everything the run records.
    for (const name of connector.secretEnvironment) {
      const value = context.environment[name];
      if (value !== undefined && value !== '') context.addSecret?.(name, value);
    }
    const run: ActionRun = {
      ...resolved,
      input: call.input,
      context: call.context,
      stepRuntime: (call as { runtime?: ConnectorRuntime }).runtime,
      trace: call.trace,
    };
    return connector.limit(async () => {
      if (context.aborted) throw abortError(context.signal);
      let output: unknown;
      try {
        output = await this.runKind(run, resolved.handler);
      } catch (error) {
        throw toActionError(error, connector.name, context.signal);
      }
      checkOutput(action?.validateOutput, output, resolved.call, connector.name);
      return { output };
    });
  }

  private runKind(run: ActionRun, handler: ActionHandler | undefined): Promise<unknown> {
    const { kind, definition, namespace, name } = run.connector;
    const connectorRuntime = definition.connector.runtime;
    // Only a declared limit is checked (most calls declare none: nothing to build for them).
    if (kind !== 'shell' && (connectorRuntime || run.stepRuntime)) {
      // A Sandbox and its options both carry the mode and the warning sink.
      const { mode = 'strict', warn } = this.options.sandbox;
      checkKindLimits(
        kind,
        { connector: connectorRuntime, step: run.stepRuntime },
        { call: run.call, connector: `${namespace}/${name}`, mode, warned: this.warned },
        warn,
      );
    }
    switch (kind) {
      case 'function':
        // A traced call's span is the active one in its handler: the handler's own spans and
        // HTTP calls nest under it (the run does not keep an active context; see @weft/telemetry).
        return run.trace === undefined
          ? Promise.resolve(handler!(run.input, run.context))
          : inSpanOf(run.trace, () => Promise.resolve(handler!(run.input, run.context)));
      case 'shell':
        return this.shellSandbox().then((sandbox) =>
          runShell(run, this.options.maxOutputBytes, sandbox),
        );
      case 'http':
        return runHttp(run, {
          maxBytes: this.options.maxOutputBytes,
          egress: this.options.httpEgress,
          clock: this.options.clock,
        });
    }
  }

  /** The sandbox of shell actions, opened (host probed, leftovers removed) at the first one. */
  shellSandbox(): Promise<Sandbox> {
    const option = this.options.sandbox;
    this.sandbox ??= option instanceof Sandbox ? Promise.resolve(option) : Sandbox.open(option);
    return this.sandbox;
  }

  private resolve(target: ActionCall['target'], action: string, requireHandler = true): Resolved {
    const implicit = (plugin: string) => this.implicitConnector(plugin);
    return this.table.resolve(target, action, implicit, requireHandler);
  }

  /** The connector of a plugin made only of registered handlers (no definition, no schemas). */
  private implicitConnector(plugin: string): CompiledConnector {
    let connector = this.implicit.get(plugin);
    if (!connector) {
      connector = {
        kind: 'function',
        name: plugin,
        namespace: 'local',
        version: '0.0.0',
        ref: `connector:local/${plugin}@0.0.0`,
        slug: undefined,
        definition: {
          connector: { kind: 'function', name: plugin, namespace: 'local', version: '0.0.0' },
          actions: [],
        },
        actions: new Map(),
        concurrency: this.defaults.concurrency,
        limit: pLimit(this.defaults.concurrency),
        file: undefined,
        cwd: undefined,
        secretEnvironment: [],
      };
      this.implicit.set(plugin, connector);
    }
    return connector;
  }

  private register(source: ConnectorSource): CompiledConnector {
    const connector = this.compile(source);
    this.table.add(connector);
    return connector;
  }

  private registerAll(sources: ConnectorSource[]): CompiledConnector[] {
    const compiled: CompiledConnector[] = [];
    const failures: ValidationError[] = [];
    for (const source of sources) {
      try {
        compiled.push(this.compile(source));
      } catch (error) {
        if (!(error instanceof ValidationError)) throw error;
        failures.push(error);
      }
    }
    const first = failures[0];
    if (first) {
      const text = failures.map((f) => f.message).join('\n');
      throw new ValidationError(`${failures.length} connector file(s) are invalid:\n${text}`, {
        ...first.details,
      });
    }
    const probe = new ConnectorTable();
    for (const connector of [...this.table.connectors(), ...compiled]) probe.add(connector);
    for (const connector of compiled) this.table.add(connector);
    return compiled;
  }

  private compile(source: ConnectorSource): CompiledConnector {
    const { definition, reporter } = parseConnectorDefinition(source.input, {
      environment: this.options.environment,
      ...(source.file !== undefined ? { file: source.file } : {}),
      ...(this.options.maxFileSize !== undefined ? { maxFileSize: this.options.maxFileSize } : {}),
    });
    return compileConnector(definition, {
      ajv: (this.ajv ??= createAjv()),
      reporter: reporter ?? new Reporter(source.file, undefined),
      defaults: this.defaults,
      ...(source.file !== undefined ? { file: source.file } : {}),
      ...(source.cwd !== undefined ? { cwd: source.cwd } : {}),
    });
  }
}
