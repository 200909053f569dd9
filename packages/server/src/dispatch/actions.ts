import {
  targetPlugin,
  UnavailableError,
  type ActionCall,
  type ActionInvoker,
  type InvocationResult,
} from '@weft/core';
import type { Router } from '@weft/router';
import type { ServerActions } from '@weft/runtime';
import { invokeByBroker } from './broker.js';
import { invokeByRouter } from './router.js';
import { refreshOnce, transportOf, type TransportPlaces } from './transport.js';

/**
 * The runtime's actions port on `weft server`: each call goes where {@link transportOf} says
 * (a broker task, the router, a published plugin's `http` connector); anything else is
 * `UNAVAILABLE`, and refused before a run starts ({@link unavailable}).
 */
export class DispatchActions implements ServerActions {
  private readonly router: Router;

  constructor(
    private readonly places: TransportPlaces,
    private readonly taskTimeoutMs: number,
  ) {
    this.router = places.router;
  }

  invoker(): ActionInvoker {
    return { invoke: (call) => this.invoke(call) };
  }

  async unavailable(targets: readonly ActionCall['target'][]): Promise<string[]> {
    const missing: string[] = [];
    // One read of the table for the whole batch at most.
    const refresh = refreshOnce(this.router);
    for (const target of targets) {
      const { slug, version } = targetPlugin(target);
      if (await transportOf(this.places, { slug, version }, refresh)) continue;
      missing.push(target.kind === 'plugin' ? slug : target.ref);
    }
    return missing;
  }

  private async invoke(call: ActionCall): Promise<InvocationResult> {
    const { slug, version } = targetPlugin(call.target);
    const question = { slug, action: call.action, version };
    const transport = await transportOf(this.places, question, refreshOnce(this.router));
    if (transport?.via === 'broker') {
      return invokeByBroker(transport.tasks, slug, call, this.taskTimeoutMs);
    }
    if (transport?.via === 'router') return invokeByRouter(this.router, slug, call);
    // A question naming its action is answered `published` with the invoker.
    if (transport?.invoker)
      return transport.invoker.invoke({ ...call, target: { kind: 'plugin', slug } });
    throw new UnavailableError(
      `plugin "${slug}" has no registered instance serving "${call.action}" and no published http connector`,
      {
        backend: slug,
        suggestion:
          'register an instance with the router, or publish the plugin with an http connector block',
      },
    );
  }
}
