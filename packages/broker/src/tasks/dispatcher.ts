import {
  TimeoutError,
  type Broker,
  type ConnectorRuntime,
  type ConsumeOptions,
  type Subscription,
} from '@weft/core';
import {
  parseTaskResultMessage,
  RESULTS_SUBJECT,
  TASK_HEADERS,
  taskSubject,
  type TaskMessage,
  type TaskResultMessage,
} from './messages.js';

/** Header carrying a dispatch's own id; the task worker copies it onto the result. */
export const DISPATCH_ID_HEADER = 'weft-dispatch-id';

/** One task to dispatch. */
export interface TaskRequest {
  /** The execution id (`workflow_id`, docs/protocol.md#broker-tasks). */
  workflowId: string;
  /** Plugin slug: the task goes to `platform.workflow.<plugin>`. */
  plugin: string;
  action: string;
  input: Record<string, unknown>;
  /** Step path; the idempotency key is `<workflowId>/<step>`. */
  step: string;
  /** The step's runtime block; it travels as the header `weft-runtime` (JSON), the body unchanged. */
  runtime?: ConnectorRuntime;
}

/** Publishes one task message (docs/protocol.md#broker-tasks) with its step and idempotency key headers. */
export async function dispatchTask(
  broker: Broker,
  request: TaskRequest,
  headers: Record<string, string> = {},
): Promise<void> {
  const message: TaskMessage = {
    workflow_id: request.workflowId,
    plugin: request.plugin,
    action: request.action,
    input: request.input,
    timestamp: new Date().toISOString(),
  };
  await broker.publish(taskSubject(request.plugin), JSON.stringify(message), {
    key: request.workflowId,
    headers: {
      ...headers,
      [TASK_HEADERS.step]: request.step,
      [TASK_HEADERS.idempotencyKey]: `${request.workflowId}/${request.step}`,
      ...(request.runtime ? { [TASK_HEADERS.runtime]: JSON.stringify(request.runtime) } : {}),
    },
  });
}

/** Options of {@link TaskDispatcher.start}. */
export interface TaskDispatcherOptions extends Partial<Omit<ConsumeOptions, 'group'>> {
  broker: Broker;
  /**
   * Consumer group of `platform.workflow.results`. One group per replica (each replica sees every
   * result and settles its own waits) or one shared group with `onResult` writing to the store.
   */
  group: string;
  /** Every result that is not a duplicate, whether a wait here matched it or not. */
  onResult?: (result: TaskResultMessage, matched: boolean) => Promise<void> | void;
  /** How many settled dispatch ids are remembered to drop duplicates (default 100,000). */
  rememberSettled?: number;
}

interface Waiter {
  resolve(result: TaskResultMessage): void;
}

/**
 * The runtime side of broker dispatch: publishes tasks and waits for their results on
 * `platform.workflow.results`. A result settles every wait for its `workflow_id`/`step`; a second
 * result of the same dispatch (a redelivered task run twice) is dropped.
 */
export class TaskDispatcher {
  private readonly waiters = new Map<string, Waiter[]>();
  private readonly settled = new Set<string>();
  private subscription: Subscription | undefined;
  private nextId = 0;
  private readonly prefix = `${Date.now().toString(36)}-${Math.random().toString(36).slice(2, 8)}`;
  /** Results dropped as duplicates so far. */
  duplicates = 0;

  private constructor(private readonly options: TaskDispatcherOptions) {}

  /** Starts listening for results (new ones only, unless `startFrom` says otherwise). */
  static async start(options: TaskDispatcherOptions): Promise<TaskDispatcher> {
    const dispatcher = new TaskDispatcher(options);
    const { broker, group, onResult: _onResult, rememberSettled: _remember, ...consume } = options;
    dispatcher.subscription = await broker.consume(
      RESULTS_SUBJECT,
      { startFrom: 'latest', ...consume, group },
      async (message) => {
        let result: TaskResultMessage;
        try {
          result = parseTaskResultMessage(message.text());
        } catch (error) {
          await message.deadLetter((error as Error).message);
          return;
        }
        await dispatcher.settle(result, message.headers[DISPATCH_ID_HEADER]);
      },
    );
    return dispatcher;
  }

  private async settle(result: TaskResultMessage, dispatchId: string | undefined): Promise<void> {
    if (dispatchId !== undefined) {
      if (this.settled.has(dispatchId)) {
        this.duplicates++;
        return;
      }
      this.settled.add(dispatchId);
      const limit = this.options.rememberSettled ?? 100_000;
      if (this.settled.size > limit) this.settled.delete(this.settled.values().next().value!);
    }
    const key = `${result.workflow_id}/${result.step ?? ''}`;
    const waiting = this.waiters.get(key);
    this.waiters.delete(key);
    for (const waiter of waiting ?? []) waiter.resolve(result);
    await this.options.onResult?.(result, waiting !== undefined);
  }

  /**
   * Publishes a task and resolves with its result (success or error result). Rejects with a
   * `TimeoutError` after `timeoutMs`, or with the signal's reason when it is aborted. `headers`
   * go on the message besides weft's own (W3C `traceparent`/`tracestate`).
   */
  async dispatch(
    request: TaskRequest,
    options: { timeoutMs?: number; signal?: AbortSignal; headers?: Record<string, string> } = {},
  ): Promise<TaskResultMessage> {
    options.signal?.throwIfAborted();
    const key = `${request.workflowId}/${request.step}`;
    const started = Date.now();
    let waiter!: Waiter & { fail(error: unknown): void };
    const result = new Promise<TaskResultMessage>((resolve, reject) => {
      const done = () => {
        clearTimeout(timer);
        options.signal?.removeEventListener('abort', onAbort);
        const rest = (this.waiters.get(key) ?? []).filter((w) => w !== waiter);
        if (rest.length === 0) this.waiters.delete(key);
        else this.waiters.set(key, rest);
      };
      waiter = {
        resolve: (value) => (done(), resolve(value)),
        fail: (error) => (done(), reject(error)),
      };
      const onAbort = () => waiter.fail(options.signal?.reason);
      const timer =
        options.timeoutMs === undefined
          ? undefined
          : setTimeout(() => {
              const elapsed = Date.now() - started;
              const message = `no result for ${key} within ${options.timeoutMs} ms`;
              waiter.fail(
                new TimeoutError(message, { timeout_ms: options.timeoutMs!, elapsed_ms: elapsed }),
              );
            }, options.timeoutMs);
      options.signal?.addEventListener('abort', onAbort, { once: true });
      this.waiters.set(key, [...(this.waiters.get(key) ?? []), waiter]);
    });
    const dispatchId = `${this.prefix}-${(this.nextId++).toString(36)}`;
    try {
      await dispatchTask(this.options.broker, request, {
        ...options.headers,
        [DISPATCH_ID_HEADER]: dispatchId,
      });
    } catch (error) {
      waiter.fail(error);
    }
    return result;
  }

  /** Dispatches waiting for a result right now. */
  get waiting(): number {
    let count = 0;
    for (const list of this.waiters.values()) count += list.length;
    return count;
  }

  /** Stops listening; waits still open never settle unless they time out. */
  async stop(): Promise<void> {
    await this.subscription?.stop();
  }
}
