import pg from 'pg';
import { asStoreError } from './unavailable.js';

/** What a PostgreSQL pool of weft connects with. */
export interface PgPoolOptions {
  url: string;
  max: number;
  /** Server settings sent at connect (`-c search_path=...`). */
  options: string;
}

/**
 * Opens a pool that survives losing its connections. When PostgreSQL restarts or terminates a
 * backend, an idle client emits `error`; without a listener that event would end the process.
 * The same holds for a client that is checked out between two statements. The pool drops the
 * broken client, and the next query opens a new connection, so
 * the listener only has to exist. Queries that were running on the connection reject and are
 * handled by their callers.
 *
 * Connecting and querying fail through `asStoreError`: a server that cannot be reached is an
 * `UNAVAILABLE` error, whoever uses the pool (Kysely or the journal's own statements).
 */
export function openPgPool(options: PgPoolOptions): pg.Pool {
  const pool = new pg.Pool({
    connectionString: options.url,
    max: options.max,
    options: options.options,
  });
  const ignore = () => {
    // The pool drops the broken client; see above.
  };
  pool.on('error', ignore);
  // A client that is checked out (a transaction between statements) reports on itself.
  pool.on('connect', (client) => {
    client.on('error', ignore);
    guardQuery(client);
  });
  guardConnect(pool);
  return pool;
}

type Callback = (error: unknown, ...rest: unknown[]) => void;

/** `pool.connect` (promise and callback forms) failing through `asStoreError`. */
function guardConnect(pool: pg.Pool): void {
  const connect = pool.connect.bind(pool) as (callback?: Callback) => unknown;
  (pool as unknown as { connect: (callback?: Callback) => unknown }).connect = (callback) => {
    if (typeof callback === 'function') {
      return connect((error, ...rest) => callback(error ? asStoreError(error) : error, ...rest));
    }
    return (connect() as Promise<unknown>).catch((error: unknown) => {
      throw asStoreError(error);
    });
  };
}

/** `client.query` (promise and callback forms) failing through `asStoreError`. */
function guardQuery(client: pg.PoolClient): void {
  const query = client.query.bind(client) as (...args: unknown[]) => unknown;
  (client as unknown as { query: (...args: unknown[]) => unknown }).query = (...args) => {
    const last = args.length - 1;
    const callback = args[last];
    if (typeof callback === 'function') {
      args[last] = (error: unknown, ...rest: unknown[]) =>
        (callback as Callback)(error ? asStoreError(error) : error, ...rest);
      return query(...args);
    }
    const result = query(...args);
    if (!(result instanceof Promise)) return result;
    return result.catch((error: unknown) => {
      throw asStoreError(error);
    });
  };
}
