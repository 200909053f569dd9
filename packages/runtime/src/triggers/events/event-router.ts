import { ValidationError, type EventSource, type EventTrigger } from '@weft/core';
import type { WorkflowDefinition } from '@weft/engine';
import { silentLogger, type TriggerLogger } from '../logger.js';
import type { PendingRecord, StartExecution } from '../start-execution.js';
import { matchesFilter } from './filter.js';

/** One event trigger of a deployed workflow. */
interface Subscription {
  workflow: WorkflowDefinition;
  /** The key of the deployment listening (`owner/name`). */
  deployment: string;
  filter: Record<string, unknown> | undefined;
}

/** An execution an event started. */
export interface EventStart {
  workflow: string;
  record: PendingRecord;
}

/** Options of {@link EventRouter}. */
export interface EventRouterOptions {
  start: StartExecution;
  /** External sources by kind; `custom` and `webhook` need none. */
  sources?: readonly EventSource[];
  logger?: TriggerLogger;
}

/**
 * Connects event triggers to event sources: one source subscription per (source, topic), shared
 * by every workflow listening to it; each event is matched against each workflow's `filter` and
 * starts the workflow with the event as `trigger.event`.
 */
export class EventRouter {
  private readonly subscriptions = new Map<string, Subscription[]>();
  private readonly stops = new Map<string, () => Promise<void>>();
  private readonly sources = new Map<string, EventSource>();
  private readonly logger: TriggerLogger;

  constructor(private readonly options: EventRouterOptions) {
    for (const source of options.sources ?? []) this.sources.set(source.kind, source);
    this.logger = options.logger ?? silentLogger;
  }

  /** Throws `VALIDATION` when a trigger names a source this server has not configured. */
  check(triggers: readonly { trigger: EventTrigger; index: number }[]): void {
    for (const { trigger, index } of triggers) {
      if (trigger.source === 'custom' || trigger.source === 'webhook') continue;
      if (!this.sources.has(trigger.source)) {
        throw new ValidationError(
          `event source "${trigger.source}" is not configured on this server; configure it (see docs/triggers.md) or use another source`,
          { field: `triggers[${index}].source`, constraint: 'configured', source: trigger.source },
        );
      }
    }
  }

  /**
   * Listens for the event triggers of a workflow deployed as `deployment` (its key; default its
   * name), replacing those it had.
   */
  async register(
    workflow: WorkflowDefinition,
    triggers: readonly EventTrigger[],
    deployment: string = workflow.name,
  ): Promise<void> {
    this.check(triggers.map((trigger, index) => ({ trigger, index })));
    this.removeFromMaps(deployment);
    for (const trigger of triggers) {
      const key = `${trigger.source}\u0000${trigger.topic}`;
      const list = this.subscriptions.get(key) ?? [];
      list.push({ workflow, deployment, filter: trigger.filter });
      this.subscriptions.set(key, list);
      const source = this.sources.get(trigger.source);
      if (source && !this.stops.has(key)) {
        const stop = await source.subscribe(trigger.topic, async (event) => {
          await this.dispatch(trigger.source, trigger.topic, event);
        });
        this.stops.set(key, stop);
      }
    }
    await this.stopUnused();
  }

  /** Stops listening for the events of a deployment (its key). */
  async unregister(workflow: string): Promise<void> {
    this.removeFromMaps(workflow);
    await this.stopUnused();
  }

  /**
   * True when some workflow (whose deployment key `may` accepts) listens to `topic` of `source`.
   */
  has(source: string, topic: string, may: (workflow: string) => boolean = () => true): boolean {
    return (this.subscriptions.get(`${source}\u0000${topic}`) ?? []).some((s) => may(s.deployment));
  }

  /** Emits a `custom` event in process (the SDK's `weft.emit`); resolves with what it started. */
  emit(topic: string, event: unknown): Promise<EventStart[]> {
    return this.dispatch('custom', topic, event);
  }

  /**
   * Starts every workflow listening to `topic` of `source` whose filter keeps `event`. A failed
   * start is logged; when at least one other started, the event counts as delivered (resolves
   * with those started, so an external message is acknowledged and the failed workflows miss it:
   * a redelivery would start the others twice). Only when every start failed does it reject
   * with the first failure (an external message is then redelivered). With `may`, only the
   * workflows it accepts (those of the caller's owner) are considered at all.
   */
  async dispatch(
    source: string,
    topic: string,
    event: unknown,
    may: (workflow: string) => boolean = () => true,
  ): Promise<EventStart[]> {
    const started: EventStart[] = [];
    let failure: unknown;
    const listening = this.subscriptions.get(`${source}\u0000${topic}`) ?? [];
    for (const { workflow, deployment, filter } of listening) {
      if (!may(deployment) || !matchesFilter(event, filter)) continue;
      try {
        const record = await this.options.start({
          workflow,
          deployment,
          inputs: {},
          trigger: { type: 'event', event },
        });
        started.push({ workflow: workflow.name, record });
      } catch (error) {
        failure ??= error;
        this.logger.error(
          { workflow: workflow.name, source, topic, err: error },
          'event: could not start the execution',
        );
      }
    }
    if (failure !== undefined && started.length === 0) throw failure;
    return started;
  }

  /** Stops every subscription and closes the sources. */
  async close(): Promise<void> {
    this.subscriptions.clear();
    await this.stopUnused();
    for (const source of this.sources.values()) await source.close();
  }

  private removeFromMaps(workflow: string): void {
    for (const [key, list] of this.subscriptions) {
      const kept = list.filter((s) => s.deployment !== workflow);
      if (kept.length > 0) this.subscriptions.set(key, kept);
      else this.subscriptions.delete(key);
    }
  }

  private async stopUnused(): Promise<void> {
    for (const [key, stop] of this.stops) {
      if (this.subscriptions.has(key)) continue;
      this.stops.delete(key);
      await stop();
    }
  }
}
