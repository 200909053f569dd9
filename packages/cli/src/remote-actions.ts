import semver from 'semver';
import type { ActionDescription, ActionLookup } from '@weft/agents';
import {
  CONNECTOR_REF_PATTERN,
  ValidationError,
  WeftError,
  type ActionCall,
  type RoutesResponse,
} from '@weft/core';
import { parseDefinitionBytes } from '@weft/server';

/** An answer of {@link RemoteServer.get}. */
export interface RemoteAnswer {
  status: number;
  contentType: string;
  body: Uint8Array;
}

/** A weft server the tools of agent steps run on (the router of `--router`, the `--server`). */
export interface RemoteServer {
  /** How messages name it: `the router at http://10.0.0.5:8080`. */
  readonly where: string;
  /** `GET {base}{path}` with its credential; throws `UNAVAILABLE` when it cannot be reached. */
  get(path: string): Promise<RemoteAnswer>;
  /** Whether its routing table (`GET /routes`) tells the version its instances serve. */
  readonly routes: boolean;
}

const REF = new RegExp(CONNECTOR_REF_PATTERN);

/**
 * The input schemas of actions that run on a weft server rather than here: the registry of that
 * server holds each published plugin definition (`GET /plugins/{slug}/{version}/schema`), with
 * its actions' `input_schema`. The version is the one the tool's connector reference pins, else
 * the one the router's instances of the plugin registered (`GET /routes`, the highest when they
 * differ; readable with the router token, a client certificate, or on an open router), else the
 * registry's latest. Each answer is read once per run (a failed read is tried again). Fails
 * closed: a plugin that is not published, a version the registry does not have, an action
 * without `input_schema` throw `VALIDATION` saying which; an unreachable server `UNAVAILABLE`.
 */
export function remoteActions(server: RemoteServer): ActionLookup {
  const cache = new Map<string, Promise<unknown>>();
  const once = <T>(key: string, read: () => Promise<T>): Promise<T> => {
    let pending = cache.get(key) as Promise<T> | undefined;
    if (!pending) {
      pending = read();
      cache.set(key, pending);
      pending.catch(() => cache.delete(key));
    }
    return pending;
  };
  const routes = () => once('routes', () => readRoutes(server));
  const latest = (slug: string) => once(`latest:${slug}`, () => latestVersion(server, slug));
  const definition = (slug: string, version: string, source: string) =>
    once(`definition:${slug}@${version}`, () => readDefinition(server, slug, version, source));

  return async (target, action): Promise<ActionDescription | undefined> => {
    const { slug, pinned } = pluginOf(target);
    let version = pinned;
    let source = 'the version the tool names';
    if (version === undefined && server.routes) {
      version = servedVersion(await routes(), slug, action);
      source = "the version the router's instances serve";
    }
    if (version === undefined) {
      version = await latest(slug);
      source = 'the latest published version';
    }
    const actions = await definition(slug, version, source);
    const found = actions.find((a) => a.name === action);
    if (!found) {
      throw invalid(
        `${slug}@${version} (${source}, from the registry of ${server.where}) has no action "${action}"`,
        'action',
      );
    }
    if (typeof found.input_schema !== 'object' || found.input_schema === null) {
      throw invalid(
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

/**
 * The first of `lookups` that knows the action. A lookup that throws does not stop the next
 * ones; when none knows it, the first error is thrown, with what the others said after its
 * message (undefined when none threw).
 */
export function firstKnown(lookups: readonly ActionLookup[]): ActionLookup {
  return async (target, action) => {
    const failures: WeftError[] = [];
    for (const lookup of lookups) {
      try {
        const found = await lookup(target, action);
        if (found) return found;
      } catch (error) {
        if (!(error instanceof WeftError)) throw error;
        failures.push(error);
      }
    }
    const [first, ...others] = failures;
    if (!first) return undefined;
    if (others.length === 0) throw first;
    const message = [first, ...others].map((e) => e.message).join('; and ');
    throw new WeftError(first.code, message, first.details, { cause: first });
  };
}

interface RemoteAction {
  name: string;
  description?: unknown;
  input_schema?: unknown;
}

/** The routing table, or undefined when it cannot be read with this credential. */
async function readRoutes(server: RemoteServer): Promise<RoutesResponse | undefined> {
  const answer = await server.get('/routes');
  if (answer.status !== 200) return undefined;
  const table = parseJson(answer.body) as Partial<RoutesResponse> | undefined;
  return Array.isArray(table?.instances) ? (table as RoutesResponse) : undefined;
}

/** The highest version the instances serving `slug`'s `action` registered. */
function servedVersion(
  table: RoutesResponse | undefined,
  slug: string,
  action: string,
): string | undefined {
  const versions = (table?.instances ?? [])
    .filter((i) => i.plugin_slug === slug && i.actions.includes(action))
    .map((i) => i.version)
    .filter((v) => semver.valid(v) !== null);
  return versions.sort(semver.rcompare)[0];
}

async function latestVersion(server: RemoteServer, slug: string): Promise<string> {
  const answer = await server.get(`/plugins/${encodeURIComponent(slug)}`);
  const detail = parseJson(answer.body) as { version?: unknown; kind?: unknown } | undefined;
  if (answer.status === 404) {
    throw invalid(
      `plugin "${slug}" is not published to the registry of ${server.where}, so its input_schema is unknown: publish its definition (weft plugin publish FILE --registry ...), or pin a published version in the tool`,
      'published',
    );
  }
  if (answer.status !== 200 || typeof detail?.version !== 'string')
    throw refused(server, `GET /plugins/${slug}`, answer);
  if (detail.kind === 'agent')
    throw invalid(`"${slug}" is a published agent, not a plugin with actions`, 'kind');
  return detail.version;
}

async function readDefinition(
  server: RemoteServer,
  slug: string,
  version: string,
  source: string,
): Promise<RemoteAction[]> {
  const path = `/plugins/${encodeURIComponent(slug)}/${encodeURIComponent(version)}/schema`;
  const answer = await server.get(path);
  if (answer.status === 404) {
    throw invalid(
      `${slug}@${version} (${source}) is not published to the registry of ${server.where}, so its input_schema is unknown: publish that version's definition`,
      'published',
    );
  }
  if (answer.status !== 200) throw refused(server, `GET ${path}`, answer);
  const format = answer.contentType.includes('json') ? 'json' : 'yaml';
  const parsed = parseDefinitionBytes(answer.body, format);
  const actions = parsed.ok ? (parsed.value as { actions?: unknown }).actions : undefined;
  if (!Array.isArray(actions)) {
    throw invalid(
      `the registry of ${server.where} answered ${slug}@${version} with no readable definition`,
      'definition',
    );
  }
  return actions.filter(
    (a): a is RemoteAction =>
      typeof a === 'object' && a !== null && typeof (a as RemoteAction).name === 'string',
  );
}

function pluginOf(target: ActionCall['target']): { slug: string; pinned?: string } {
  if (target.kind === 'plugin') return { slug: target.slug };
  const match = REF.exec(target.ref);
  if (!match) throw invalid(`"${target.ref}" is not a connector reference`, 'pattern');
  return { slug: match[2]!, pinned: match[3]! };
}

function parseJson(body: Uint8Array): unknown {
  try {
    return JSON.parse(Buffer.from(body).toString('utf8')) as unknown;
  } catch {
    return undefined;
  }
}

/** A registry answer that is neither the definition nor "not published". */
function refused(server: RemoteServer, request: string, answer: RemoteAnswer): ValidationError {
  const body = parseJson(answer.body) as { message?: unknown } | undefined;
  const why = typeof body?.message === 'string' ? `: ${body.message}` : '';
  return invalid(
    `${request} on ${server.where} answered ${answer.status}${why}, so the input_schema is unknown`,
    'input_schema',
  );
}

function invalid(message: string, reason: string): ValidationError {
  return new ValidationError(message, { field: 'agent.tools', constraint: 'input_schema', reason });
}
