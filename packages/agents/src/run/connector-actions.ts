import type { ActionCall } from '@weft/core';
import type { ActionDescription, ActionLookup } from './prepare-tools.js';

/** What {@link actionsOfConnectors} reads of a loaded connector (the SDK's `CompiledConnector`). */
interface ConnectorLike {
  readonly ref: string;
  readonly name: string;
  readonly slug: string | undefined;
  readonly actions: ReadonlyMap<
    string,
    { definition: { input_schema?: unknown; description?: string } }
  >;
}

/**
 * An {@link ActionLookup} over loaded connectors (`weft.invoker.connectors()`): a plugin target
 * by slug or name, a connector target by reference. Read at each lookup, so connectors loaded
 * later count.
 */
export function actionsOfConnectors(connectors: () => readonly ConnectorLike[]): ActionLookup {
  return (target: ActionCall['target'], action: string): ActionDescription | undefined => {
    const connector = connectors().find((c) =>
      target.kind === 'connector'
        ? c.ref === target.ref
        : (c.slug ?? c.name) === target.slug || c.name === target.slug,
    );
    const definition = connector?.actions.get(action)?.definition;
    const schema = definition?.input_schema;
    if (typeof schema !== 'object' || schema === null) return undefined;
    return {
      inputSchema: schema as Record<string, unknown>,
      ...(definition!.description !== undefined ? { description: definition!.description } : {}),
    };
  };
}
