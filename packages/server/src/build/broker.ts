import { openServerBroker, type ServerBroker } from '../server-broker.js';
import type { BuildContext } from './context.js';

/**
 * The broker phase: connects to `WEFT_BROKER` (or takes the given broker) and starts the task
 * results consumer; pushes stopping them (a given broker stays open). Before the stores, so that
 * it is closed after them, as the runtime that dispatches tasks is closed before both.
 */
export async function openBroker({
  options,
  dependencies,
  stack,
}: BuildContext): Promise<ServerBroker | undefined> {
  const brokered = await openServerBroker(options, dependencies.broker);
  if (brokered) stack.push(() => brokered.close());
  return brokered;
}
