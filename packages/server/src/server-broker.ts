import type { Broker } from '@weft/core';
import { connectBroker, TaskDispatcher } from '@weft/broker';
import type { CompiledServerOptions } from './config.js';

/** The server's broker and its side of task dispatch. */
export interface ServerBroker {
  broker: Broker;
  /** Publishes tasks and waits for their results on `platform.workflow.results`. */
  tasks: TaskDispatcher;
  /** This replica's consumer group of the results topic. */
  resultsGroup: string;
  /** Stops the results consumer, then closes the broker (when the server opened it). */
  close(): Promise<void>;
}

/** Consumer group names are subject tokens: letters, digits, `_` and `-`. */
function groupToken(value: string): string {
  return value.replace(/[^A-Za-z0-9_-]/g, '-').slice(0, 100);
}

/**
 * Connects to `WEFT_BROKER` (or uses `given`) and starts the results consumer. Each replica
 * consumes the results in a group of its own (`runtime.<replica>`) from the newest message on:
 * it settles its own waits, and a replica that dies leaves nothing behind that others need (the
 * executions it ran are taken over and their steps dispatched again, under the same idempotency
 * keys). No broker configured and none given: undefined.
 */
export async function openServerBroker(
  options: CompiledServerOptions,
  given?: Broker,
): Promise<ServerBroker | undefined> {
  if (!given && !options.broker) return undefined;
  const broker = given ?? (await connectBroker(options.broker));
  const resultsGroup = `runtime.${groupToken(options.replicaId)}`;
  try {
    const tasks = await TaskDispatcher.start({
      broker,
      group: resultsGroup,
      startFrom: 'latest',
      concurrency: 256,
    });
    return {
      broker,
      tasks,
      resultsGroup,
      close: async () => {
        await tasks.stop();
        if (!given) await broker.close();
      },
    };
  } catch (error) {
    if (!given) await broker.close();
    throw error;
  }
}
