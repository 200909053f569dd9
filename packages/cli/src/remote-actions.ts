import {
  highestServedVersion,
  publishedActions,
  toolSchemaError,
  type ActionLookup,
  type PublishedAction,
} from '@weft/agents';
import { ValidationError, WeftError, type RoutesResponse } from '@weft/core';
import { parseDefinitionBytes } from '@weft/registry/definitions';

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

/**
 * The input schemas of actions that run on a weft server rather than here: the registry of that
 * server holds each published plugin definition (`GET /plugins/{slug}/{version}/schema`), read
 * by {@link publishedActions} (the pinned version, else the one the router's instances of the
 * plugin registered, `GET /routes`, readable with the router token, a client certificate, or on
 * an open router; else the latest). Each answer is read once per run (a failed read is tried
 * again). An unreachable server throws `UNAVAILABLE`.
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
  return publishedActions({
    where: `the registry of ${server.where}`,
    ...(server.routes
      ? {
          served: async (slug: string, action: string) =>
            highestServedVersion((await routes())?.instances ?? [], slug, action),
        }
      : {}),
    latest: (slug) => once(`latest:${slug}`, () => latestVersion(server, slug)),
    actions: (slug, version) =>
      once(`definition:${slug}@${version}`, () => readDefinition(server, slug, version)),
  });
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

/** The routing table, or undefined when it cannot be read with this credential. */
async function readRoutes(server: RemoteServer): Promise<RoutesResponse | undefined> {
  const answer = await server.get('/routes');
  if (answer.status !== 200) return undefined;
  const table = parseJson(answer.body) as Partial<RoutesResponse> | undefined;
  return Array.isArray(table?.instances) ? (table as RoutesResponse) : undefined;
}

/** The latest published version of `slug`; undefined when it is not published. */
async function latestVersion(server: RemoteServer, slug: string): Promise<string | undefined> {
  const answer = await server.get(`/plugins/${encodeURIComponent(slug)}`);
  const detail = parseJson(answer.body) as { version?: unknown; kind?: unknown } | undefined;
  if (answer.status === 404) return undefined;
  if (answer.status !== 200 || typeof detail?.version !== 'string')
    throw refused(server, `GET /plugins/${slug}`, answer);
  if (detail.kind === 'agent')
    throw toolSchemaError(`"${slug}" is a published agent, not a plugin with actions`, 'kind');
  return detail.version;
}

/** The actions of `slug@version`'s definition; undefined when that version is not published. */
async function readDefinition(
  server: RemoteServer,
  slug: string,
  version: string,
): Promise<PublishedAction[] | undefined> {
  const path = `/plugins/${encodeURIComponent(slug)}/${encodeURIComponent(version)}/schema`;
  const answer = await server.get(path);
  if (answer.status === 404) return undefined;
  if (answer.status !== 200) throw refused(server, `GET ${path}`, answer);
  const format = answer.contentType.includes('json') ? 'json' : 'yaml';
  const parsed = parseDefinitionBytes(answer.body, format);
  const actions = parsed.ok ? (parsed.value as { actions?: unknown }).actions : undefined;
  if (!Array.isArray(actions)) {
    throw toolSchemaError(
      `the registry of ${server.where} answered ${slug}@${version} with no readable definition`,
      'definition',
    );
  }
  return actions.filter(
    (a): a is PublishedAction =>
      typeof a === 'object' && a !== null && typeof (a as PublishedAction).name === 'string',
  );
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
  return toolSchemaError(
    `${request} on ${server.where} answered ${answer.status}${why}, so the input_schema is unknown`,
    'input_schema',
  );
}
