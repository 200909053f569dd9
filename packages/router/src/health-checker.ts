import { Agent } from 'undici';
import type { CheckOutcome, RouteInstance } from '@weft/core';
import { egressLookup } from './egress.js';
import type { CompiledRouterOptions } from './options.js';
import type { RoutingTable } from './table.js';

/** Largest health answer read, in bytes. */
const MAX_HEALTH_BYTES = 64 * 1024;

/**
 * Checks every instance's `health_check_url` every `healthIntervalMs` (docs/protocol.md#health, docs/router.md#health-checks). A
 * check is claimed in the store with a lease, so that one replica checks an instance at a time.
 * A 2xx JSON answer with status `ok` or `degraded` is a success; anything else (non-2xx,
 * non-JSON, `unhealthy`, an unknown status, no answer within `healthTimeoutMs`) is a failure, and
 * `healthFailures` consecutive failures remove the instance.
 */
export class HealthChecker {
  private readonly agent: Agent;
  private timer: NodeJS.Timeout | undefined;
  /** When the scheduled tick runs (by the options' clock). */
  private wakeAt = 0;
  private running: Promise<void> | undefined;
  private stopped = false;
  private readonly tickMs: number;

  constructor(
    private readonly table: RoutingTable,
    private readonly options: CompiledRouterOptions,
    private readonly onError: (error: unknown) => void = () => undefined,
  ) {
    this.agent = new Agent({
      keepAliveTimeout: Math.max(options.healthIntervalMs * 2, 4000),
      connect: { lookup: egressLookup(options.egress), timeout: options.healthTimeoutMs },
    });
    this.tickMs = Math.min(1000, Math.max(10, Math.round(options.healthIntervalMs / 10)));
  }

  /**
   * Starts checking until {@link stop}. Between ticks it sleeps until the earliest check of the
   * table is due (at least `tickMs`, at most one interval), and a table read that brings a check
   * forward (a registration) wakes it: an idle router does not poll.
   */
  start(): void {
    this.table.onEarlierCheck = (at) => {
      // Asleep past `at` (not in a tick): wake up then instead.
      if (this.timer !== undefined && at < this.wakeAt) this.sleep();
    };
    this.running = this.tick().finally(() => this.sleep());
  }

  /** Schedules the next tick (replacing a scheduled one). */
  private sleep(): void {
    clearTimeout(this.timer);
    this.timer = undefined;
    if (this.stopped) return;
    const now = this.options.clock.now();
    const wait = this.table.earliestCheckAt - now;
    const ms = Math.max(this.tickMs, Math.min(this.options.healthIntervalMs, wait));
    this.wakeAt = now + ms;
    this.timer = setTimeout(() => {
      this.timer = undefined;
      this.running = this.tick().finally(() => this.sleep());
    }, ms);
    this.timer.unref();
  }

  /** Runs the checks that are due now (exposed for tests). */
  async tick(): Promise<void> {
    const { store, clock, replicaId, healthTimeoutMs } = this.options;
    try {
      const now = clock.now();
      // A stale copy may wake the checker early: it finds nothing due, without a query.
      if (!this.table.checkMayBeDue(now)) return;
      const due = await store.claimDue(replicaId, now, healthTimeoutMs + 5000, 100);
      if (due.length === 0) return;
      const results = await Promise.all(due.map((instance) => this.check(instance, now)));
      let changed = false;
      for (const outcome of results) {
        const recorded = await store.recordCheck(outcome);
        if (recorded === 'stale') continue;
        this.table.setHealth(
          outcome.plugin_slug,
          outcome.instance_id,
          recorded === 'removed' ? 'removed' : outcome.health,
        );
        changed = true;
      }
      if (changed) await this.table.refresh();
    } catch (error) {
      this.onError(error);
    }
  }

  /** Stops checking and closes connections. */
  async stop(): Promise<void> {
    this.stopped = true;
    this.table.onEarlierCheck = undefined;
    clearTimeout(this.timer);
    await this.running;
    await this.agent.close();
  }

  private async check(instance: RouteInstance, startedAt: number): Promise<CheckOutcome> {
    const { healthTimeoutMs, healthIntervalMs, healthFailures, clock } = this.options;
    const verdict = await this.probe(instance.health_check_url, healthTimeoutMs);
    return {
      plugin_slug: instance.plugin_slug,
      instance_id: instance.instance_id,
      owner: this.options.replicaId,
      at: new Date(clock.now()).toISOString(),
      health: verdict.health,
      error: verdict.error,
      // From the start of this check: a removal takes at most interval × failures + one timeout.
      next_check_at: startedAt + healthIntervalMs,
      max_failures: healthFailures,
    };
  }

  private async probe(
    url: string,
    timeoutMs: number,
  ): Promise<{ health: CheckOutcome['health']; error: string | null }> {
    const fail = (error: string) => ({ health: 'unhealthy' as const, error });
    let text: string;
    let status: number;
    try {
      const response = await this.agent.request({
        origin: new URL(url).origin,
        path: `${new URL(url).pathname}`,
        method: 'GET',
        headers: { accept: 'application/json' },
        headersTimeout: timeoutMs,
        bodyTimeout: timeoutMs,
        signal: AbortSignal.timeout(timeoutMs),
      });
      status = response.statusCode;
      const chunks: Buffer[] = [];
      let size = 0;
      for await (const chunk of response.body as AsyncIterable<Buffer>) {
        size += chunk.byteLength;
        if (size > MAX_HEALTH_BYTES)
          return fail(`the health answer is over ${MAX_HEALTH_BYTES} bytes`);
        chunks.push(chunk);
      }
      text = Buffer.concat(chunks).toString('utf8');
    } catch (error) {
      const e = error as { code?: string; name?: string; message?: string };
      if (
        e.name === 'TimeoutError' ||
        e.code === 'UND_ERR_HEADERS_TIMEOUT' ||
        e.code === 'UND_ERR_BODY_TIMEOUT'
      ) {
        return fail(`no answer within ${timeoutMs} ms`);
      }
      return fail(`request failed: ${e.code ?? e.name ?? 'error'}`);
    }
    if (status < 200 || status >= 300) return fail(`answered HTTP ${status}`);
    let json: unknown;
    try {
      json = JSON.parse(text);
    } catch {
      return fail('answered with a body that is not JSON');
    }
    const reported = (json as { status?: unknown } | null)?.status;
    if (reported === 'ok' || reported === 'degraded') return { health: reported, error: null };
    if (reported === 'unhealthy') return fail('reported status unhealthy');
    return fail('answered without a status of ok, degraded or unhealthy');
  }
}
