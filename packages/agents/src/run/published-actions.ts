import rcompare from 'semver/functions/rcompare.js';
import validVersion from 'semver/functions/valid.js';
import { targetPlugin, ValidationError } from '@weft/core';
import type { ActionDescription, ActionLookup } from './prepare-tools.js';

/** An action of a published plugin definition, as the registry holds it. */
export interface PublishedAction {
  name: string;
  description?: unknown;
  input_schema?: unknown;
}

/**
 * A registry the input schemas of agent tools are read from: the server's own, or that of a
 * weft server over HTTP (the CLI's `--router`, `--server`).
 */
export interface PublishedDefinitions {
  /** How messages name it: `this server's registry`, `the registry of the router at …`. */
  readonly where: string;
  /** The version a router's instances of `slug` serve for `action`, when known. */
  served?(slug: string, action: string): Promise<string | undefined>;
  /** The latest published version of `slug`; undefined when it is not published. */
  latest(slug: string): Promise<string | undefined>;
  /** The actions of `slug@version`'s definition; undefined when that version is not published. */
  actions(slug: string, version: string): Promise<readonly PublishedAction[] | undefined>;
}

/** A router instance as its registration gives it (`GET /routes`, the routing table). */
export interface ServedInstance {
  plugin_slug: string;
  version: string;
  actions: readonly string[];
}

/**
 * The input schemas of actions that run elsewhere (on a router, on a server), from the published
 * definitions of `source`: of the version the tool's connector reference pins, else the version
 * the router's instances serve (`served`), else the latest. Fails closed with `VALIDATION`
 * ({@link toolSchemaError}) saying why: a plugin or version that is not published, an action the
 * definition lacks or that declares no `input_schema`.
 */
export function publishedActions(source: PublishedDefinitions): ActionLookup {
  return async (target, action): Promise<ActionDescription> => {
    const { slug, version: pinned } = targetPlugin(target, (ref) =>
      toolSchemaError(`"${ref}" is not a connector reference`, 'pattern'),
    );
    let version = pinned;
    let from = 'the version the tool names';
    if (version === undefined && (version = await source.served?.(slug, action)) !== undefined)
      from = "the version the router's instances serve";
    if (version === undefined) {
      version = await source.latest(slug);
      from = 'the latest published version';
    }
    if (version === undefined) {
      throw toolSchemaError(
        `plugin "${slug}" is not published to ${source.where}, so the input_schema of "${action}" is unknown: publish its definition (weft plugin publish FILE), or pin a published version in the tool`,
        'published',
      );
    }
    const actions = await source.actions(slug, version);
    if (!actions) {
      throw toolSchemaError(
        `${slug}@${version} (${from}) is not published to ${source.where}, so the input_schema of "${action}" is unknown: publish that version's definition (weft plugin publish FILE)`,
        'published',
      );
    }
    const found = actions.find((a) => a.name === action);
    if (!found) {
      throw toolSchemaError(
        `${slug}@${version} (${from}, from ${source.where}) has no action "${action}"`,
        'action',
      );
    }
    if (typeof found.input_schema !== 'object' || found.input_schema === null) {
      throw toolSchemaError(
        `${slug}@${version} declares no input_schema for "${action}": its arguments cannot be checked`,
        'input_schema',
      );
    }
    return {
      inputSchema: found.input_schema as Record<string, unknown>,
      ...(typeof found.description === 'string' ? { description: found.description } : {}),
    };
  };
}

/** The highest version the instances serving `slug`'s `action` registered. */
export function highestServedVersion(
  instances: readonly ServedInstance[],
  slug: string,
  action: string,
): string | undefined {
  return instances
    .filter((i) => i.plugin_slug === slug && i.actions.includes(action))
    .map((i) => i.version)
    .filter((v) => validVersion(v) !== null)
    .sort(rcompare)[0];
}

/** The `VALIDATION` of a tool whose input schema cannot be known (`reason`: why). */
export function toolSchemaError(message: string, reason: string): ValidationError {
  return new ValidationError(message, { field: 'agent.tools', constraint: 'input_schema', reason });
}
