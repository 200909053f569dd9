import pg from 'pg';

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
  pool.on('connect', (client) => client.on('error', ignore));
  return pool;
}
