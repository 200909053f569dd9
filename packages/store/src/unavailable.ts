import { UnavailableError } from '@weft/core';

/** Seconds a client is told to wait (`Retry-After`) when the database cannot be reached. */
export const DATABASE_RETRY_AFTER_SECONDS = 5;

/**
 * Socket errors of Node that mean the database server cannot be reached or went away; the
 * driver reports them with the address it tried, which must not reach a client.
 */
const SOCKET_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ECONNABORTED',
  'EPIPE',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'ENOTFOUND',
  'EAI_AGAIN',
]);

/**
 * PostgreSQL SQLSTATEs that say the server is not serving right now: `57P01` admin_shutdown,
 * `57P02` crash_shutdown, `57P03` cannot_connect_now (starting up, shutting down, recovering),
 * `53300` too_many_connections. Class `08` (connection exceptions) is matched by its prefix.
 */
const PG_STATES = new Set(['57P01', '57P02', '57P03', '53300']);

/**
 * What node-postgres throws without a code when a connection ends under a query, or when its
 * pool gives up waiting for a connection.
 */
const PG_MESSAGES =
  /^(Connection terminated|timeout exceeded when trying to connect|Client has encountered a connection error)/;

/**
 * SQLite result codes that say the file cannot be used now, not that the statement is wrong:
 * still locked after the busy timeout, cannot be opened, an I/O error, a full disk.
 */
const SQLITE_CODES = /^SQLITE_(BUSY|CANTOPEN|IOERR|FULL|PROTOCOL)/;

/**
 * True when `error` (or an error it aggregates or was caused by) means the database is out of
 * reach or not serving, so the same request may well succeed later: the one place that knows the
 * connection-level failures of node-postgres and better-sqlite3.
 */
export function isDatabaseUnavailable(error: unknown, depth = 0): boolean {
  if (typeof error !== 'object' || error === null || depth > 3) return false;
  if (error instanceof UnavailableError) return error.details.backend === 'database';
  const { code, message, errors, cause } = error as {
    code?: unknown;
    message?: unknown;
    errors?: unknown;
    cause?: unknown;
  };
  if (typeof code === 'string') {
    if (SOCKET_CODES.has(code) || PG_STATES.has(code) || code.startsWith('08')) return true;
    if (SQLITE_CODES.test(code)) return true;
  }
  if (typeof message === 'string' && PG_MESSAGES.test(message)) return true;
  // Connecting to a host name with several addresses fails with an AggregateError of each.
  if (Array.isArray(errors) && errors.some((e) => isDatabaseUnavailable(e, depth + 1))) return true;
  return cause !== undefined && isDatabaseUnavailable(cause, depth + 1);
}

/**
 * `error` as the store reports it: an {@link UnavailableError} (`details.backend: "database"`,
 * `details.retry_after` in seconds) when the database cannot be reached, with the driver's error
 * as its `cause` for the server's log and never in its message (it names internal addresses);
 * anything else unchanged.
 */
export function asStoreError(error: unknown): unknown {
  if (error instanceof UnavailableError || !isDatabaseUnavailable(error)) return error;
  return new UnavailableError(
    `the database is unavailable: retry in ${DATABASE_RETRY_AFTER_SECONDS} seconds`,
    {
      backend: 'database',
      suggestion: 'retry later; the operator should check that the database is running',
      retry_after: DATABASE_RETRY_AFTER_SECONDS,
    },
    { cause: error },
  );
}

/** Calls `run` and rethrows what it throws through {@link asStoreError}. */
export async function guarded<T>(run: () => Promise<T>): Promise<T> {
  try {
    return await run();
  } catch (error) {
    throw asStoreError(error);
  }
}
