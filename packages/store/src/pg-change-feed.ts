import { randomUUID } from 'node:crypto';
import pg from 'pg';
import { sql, type Transaction } from 'kysely';
import type { Database } from './database.js';

/** The PostgreSQL channel plugin changes are announced on. */
const CHANNEL = 'weft_plugins';
/** Reconnection delays after the listening connection is lost (ms), the last one repeated. */
const RECONNECT_MS = [100, 250, 500, 1000, 2000, 5000];

/**
 * Plugin changes announced between the processes sharing one PostgreSQL schema, with
 * LISTEN/NOTIFY. A change is announced inside its own transaction ({@link announce}), so it is
 * delivered when, and only when, it commits. Each feed has an origin id, so a process is not
 * told about its own changes. One connection listens; when it is lost the feed reconnects and
 * then reports `null` (changes may have been missed meanwhile).
 */
export class PgChangeFeed {
  private readonly origin = randomUUID();
  private readonly listeners = new Set<(slug: string | null) => void>();
  private client: pg.Client | undefined;
  private connecting: Promise<void> | undefined;
  private attempt = 0;
  private retry: ReturnType<typeof setTimeout> | undefined;
  private stopped = false;

  constructor(
    private readonly url: string,
    private readonly schema: string,
  ) {}

  /** Announces a change of `slug` in `trx` (delivered to the other processes on commit). */
  async announce(trx: Transaction<Database>, slug: string): Promise<void> {
    const payload = `${this.schema}\n${this.origin}\n${slug}`;
    await sql`SELECT pg_notify(${CHANNEL}, ${payload})`.execute(trx);
  }

  /** Starts telling `listener` about other processes' changes; resolves once listening. */
  async watch(listener: (slug: string | null) => void): Promise<() => Promise<void>> {
    this.listeners.add(listener);
    await this.connect();
    return async () => {
      this.listeners.delete(listener);
      if (this.listeners.size === 0) await this.close();
    };
  }

  /** Stops listening for good. */
  async close(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.retry);
    const client = this.client;
    this.client = undefined;
    await client?.end().catch(() => {});
  }

  private connect(): Promise<void> {
    this.stopped = false;
    this.connecting ??= this.open().finally(() => (this.connecting = undefined));
    return this.connecting;
  }

  private async open(): Promise<void> {
    if (this.client) return;
    const client = new pg.Client({
      connectionString: this.url,
      // Names the connection in pg_stat_activity (what an operator, or a test, looks for).
      application_name: `weft-changes-${this.schema}`.slice(0, 63),
    });
    client.on('notification', ({ channel, payload }) => {
      if (channel === CHANNEL && payload !== undefined) this.received(payload);
    });
    client.on('error', () => this.lost(client));
    client.on('end', () => this.lost(client));
    try {
      await client.connect();
      await client.query(`LISTEN ${CHANNEL}`);
    } catch (error) {
      await client.end().catch(() => {});
      throw error;
    }
    if (this.stopped) {
      await client.end().catch(() => {});
      return;
    }
    this.client = client;
  }

  private received(payload: string): void {
    const [schema, origin, slug] = payload.split('\n');
    if (schema !== this.schema || origin === this.origin || slug === undefined) return;
    for (const listener of this.listeners) listener(slug);
  }

  /** The listening connection is gone: reconnect, then report that changes may be missed. */
  private lost(client: pg.Client): void {
    if (this.client !== client || this.stopped) return;
    this.client = undefined;
    this.reconnectLater();
  }

  private reconnectLater(): void {
    const delay = RECONNECT_MS[Math.min(this.attempt++, RECONNECT_MS.length - 1)]!;
    this.retry = setTimeout(() => {
      this.connect().then(
        () => {
          this.attempt = 0;
          for (const listener of this.listeners) listener(null);
        },
        () => {
          if (!this.stopped) this.reconnectLater();
        },
      );
    }, delay);
    this.retry.unref();
  }
}
