import { parseConnectorRef, suggestion, ValidationError, type ActionCall } from '@weft/core';
import type { CompiledAction, CompiledConnector } from '../connector/compile-connector.js';
import type { ActionHandler } from '../handlers/handler.js';

/** What a call resolves to. */
export interface Resolved {
  connector: CompiledConnector;
  /** The action definition (absent for a handler-only plugin). */
  action: CompiledAction | undefined;
  /** The handler of a `function` connector or of a handler-only plugin. */
  handler: ActionHandler | undefined;
  /** `<plugin>.<action>`. */
  call: string;
}

/**
 * Connectors and handlers by name, and the resolution rules: `plugin: <name>` names a
 * connector's `name` (or a plugin file's `slug`), or a plugin made only of handlers registered
 * as `<name>.<action>`; `connector: connector:<namespace>/<name>@<version>` must match all
 * three. Unknown targets and actions are `VALIDATION` errors with a did-you-mean.
 */
export class ConnectorTable {
  private readonly byRef = new Map<string, CompiledConnector>();
  private readonly byName = new Map<string, CompiledConnector>();
  private readonly handlers = new Map<string, ActionHandler>();
  /** The plugins with a registered handler (resolving a call must not list the handlers). */
  private readonly handlerPlugins = new Set<string>();

  /** Adds a connector; a second one with the same name (or slug) is refused. */
  add(connector: CompiledConnector): void {
    for (const name of [connector.name, connector.slug]) {
      if (name === undefined) continue;
      const existing = this.byName.get(name);
      if (existing) {
        const from = existing.file !== undefined ? ` (from ${existing.file})` : '';
        throw new ValidationError(`a connector named "${name}" is already registered${from}`, {
          field: 'connector.name',
          constraint: 'duplicate',
        });
      }
    }
    this.byRef.set(connector.ref, connector);
    this.byName.set(connector.name, connector);
    if (connector.slug !== undefined) this.byName.set(connector.slug, connector);
  }

  /** Registers (or replaces) the handler of `<plugin>.<action>`. */
  addHandler(key: string, fn: ActionHandler): void {
    this.handlers.set(key, fn);
    this.handlerPlugins.add(pluginOf(key));
  }

  /** Every connector, in registration order. */
  connectors(): CompiledConnector[] {
    return [...this.byRef.values()];
  }

  /** The handler registered for `<plugin>.<action>`, if any. */
  handler(key: string): ActionHandler | undefined {
    return this.handlers.get(key);
  }

  /**
   * Resolves a target and action; throws `VALIDATION` naming what is unknown (and, unless
   * `requireHandler` is false, an action of a `function` connector that has no handler).
   */
  resolve(
    target: ActionCall['target'],
    action: string,
    implicit: (plugin: string) => CompiledConnector,
    requireHandler = true,
  ): Resolved {
    const connector =
      target.kind === 'plugin'
        ? (this.byName.get(target.slug) ?? this.handlerPlugin(target.slug, implicit))
        : this.byConnectorRef(target.ref);
    const call = `${connector.name}.${action}`;
    if (connector.actions.size === 0) {
      const handler = this.handlers.get(call);
      if (!handler)
        throw this.unknownAction(connector, action, this.handlerActions(connector.name));
      return { connector, action: undefined, handler, call };
    }
    const definition = connector.actions.get(action);
    if (!definition) throw this.unknownAction(connector, action, [...connector.actions.keys()]);
    if (connector.kind !== 'function')
      return { connector, action: definition, handler: undefined, call };
    const handler =
      this.handlers.get(call) ??
      (connector.slug !== undefined ? this.handlers.get(`${connector.slug}.${action}`) : undefined);
    if (!handler && requireHandler) {
      throw new ValidationError(
        `no handler is registered for ${call}: register one with registerHandler('${call}', fn) or @handler('${call}')`,
        { field: 'action', constraint: 'no_handler' },
      );
    }
    return { connector, action: definition, handler, call };
  }

  private handlerPlugin(
    slug: string,
    implicit: (plugin: string) => CompiledConnector,
  ): CompiledConnector {
    if (this.handlerPlugins.has(slug)) return implicit(slug);
    const known = new Set([...this.byName.keys(), ...[...this.handlers.keys()].map(pluginOf)]);
    throw new ValidationError(
      `unknown plugin "${slug}"${suggestion(slug, known)}: load its connector definition (e.g. ./plugins/${slug}.yaml) or register a handler for "${slug}.<action>"`,
      { field: 'plugin', constraint: 'unknown_plugin' },
    );
  }

  private byConnectorRef(ref: string): CompiledConnector {
    const found = this.byRef.get(ref);
    if (found) return found;
    const name = parseConnectorRef(ref)?.name;
    const sameName = name ? this.connectors().filter((c) => c.name === name) : [];
    const loaded = sameName.length > 0 ? ` (loaded: ${sameName.map((c) => c.ref).join(', ')})` : '';
    throw new ValidationError(
      `unknown connector "${ref}"${loaded || suggestion(ref, this.byRef.keys())}: load a connector definition with that namespace, name and version`,
      { field: 'connector', constraint: 'unknown_connector' },
    );
  }

  private handlerActions(plugin: string): string[] {
    return [...this.handlers.keys()].filter((k) => pluginOf(k) === plugin).map(actionOf);
  }

  private unknownAction(connector: CompiledConnector, action: string, known: string[]) {
    const list = known.length > 0 ? ` (it has ${known.join(', ')})` : '';
    return new ValidationError(
      `${connector.name} has no action "${action}"${suggestion(action, known)}${list}`,
      { field: 'action', constraint: 'unknown_action' },
    );
  }
}

function pluginOf(key: string): string {
  return key.slice(0, key.indexOf('.'));
}

function actionOf(key: string): string {
  return key.slice(key.indexOf('.') + 1);
}
