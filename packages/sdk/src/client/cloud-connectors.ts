import type { ActionCall } from '@weft/core';
import type { CompiledConnector } from '../connector/compile-connector.js';
import type { SyncSource } from './sync-plugins.js';

/** Options of `Weft.registerConnector` and `Weft.loadConnector`. */
export interface RegisterConnectorOptions {
  /**
   * Places the connector in the cloud (the contract's cloud flag, SPEC B.4): in `hybrid` mode
   * its steps run on the server unless the step's `execution` field or the run's `execution`
   * override says otherwise, and `syncPlugins()` publishes only the connectors so marked (every
   * loaded one when none is). Not used in the other modes.
   */
  cloud?: boolean | undefined;
}

/**
 * What `Weft` remembers of registered connectors for the cloud: the definitions given to
 * `registerConnector` as given (published as written), and those registered with
 * `{ cloud: true }`, which changes the placement of their steps in hybrid runs
 * ({@link placesInCloud}) and what `syncPlugins()` sends ({@link toSync}).
 */
export class CloudConnectors {
  private readonly marked = new Set<CompiledConnector>();
  private readonly originals = new Map<CompiledConnector, object>();

  /** Remembers `connector`, the object it was registered from, and its cloud mark. */
  add(
    connector: CompiledConnector,
    original: object | undefined,
    options: RegisterConnectorOptions | undefined,
  ): void {
    if (original !== undefined) this.originals.set(connector, original);
    if (options?.cloud === true) this.marked.add(connector);
  }

  /**
   * Whether a call's target names a marked connector: `plugin: <name>` its name or plugin slug,
   * `connector: connector:<ns>/<name>@<version>` its reference.
   */
  placesInCloud(target: ActionCall['target']): boolean {
    for (const connector of this.marked) {
      if (target.kind === 'plugin') {
        if (target.slug === connector.name || target.slug === connector.slug) return true;
      } else if (target.ref === connector.ref) {
        return true;
      }
    }
    return false;
  }

  /**
   * What `syncPlugins()` publishes of the loaded `connectors` (with the objects they were
   * registered from): the marked ones, or all of them when none is marked.
   */
  toSync(connectors: readonly CompiledConnector[]): SyncSource[] {
    return connectors
      .filter((connector) => this.marked.size === 0 || this.marked.has(connector))
      .map((connector) => {
        const original = this.originals.get(connector);
        return original ? { connector, original } : { connector };
      });
  }
}
