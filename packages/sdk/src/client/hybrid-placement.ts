import { ValidationError, type ActionCall } from '@weft/core';
import type { CloudInvoker } from '../invoker/cloud-invoker.js';
import { HybridInvoker } from '../invoker/hybrid-invoker.js';
import type { LocalInvoker } from '../invoker/local-invoker.js';
import type { RouterInvoker } from '../invoker/router-invoker.js';
import type { ExecuteOptions } from './execute-options.js';
import type { WeftOptions } from './options.js';

/** The invokers a hybrid run places its steps on. */
export interface HybridParts {
  readonly local: LocalInvoker;
  readonly router: RouterInvoker | undefined;
  /** Made only for a hybrid run (it needs the server's key and URL). */
  readonly cloud: () => CloudInvoker;
  /** Whether a step's connector was registered with `{cloud: true}`. */
  readonly cloudPlaced: (target: ActionCall['target']) => boolean;
}

/**
 * The invoker of one `hybrid` run, placing each step by the run's override, the step's
 * `execution`, the connector's cloud mark, then `hybridDefault` (docs/protocol.md#execution-modes);
 * undefined in the other modes, where a per-run `execution` is `VALIDATION`. A step placed
 * `self_hosted` without `routerUrl` fails the run's pre-run check (`VALIDATION` on `routerUrl`).
 */
export function hybridInvokerFor(
  client: WeftOptions,
  run: ExecuteOptions,
  parts: HybridParts,
): HybridInvoker | undefined {
  if (client.executionMode !== 'hybrid') {
    if (run.execution !== undefined) {
      throw new ValidationError('execution (per-run placement) needs executionMode "hybrid"', {
        field: 'execution',
        constraint: 'mode',
      });
    }
    return undefined;
  }
  return new HybridInvoker({
    local: parts.local,
    cloud: parts.cloud(),
    ...(parts.router ? { selfHosted: parts.router } : {}),
    ...(client.hybridDefault ? { defaultExecution: client.hybridDefault } : {}),
    cloudPlaced: parts.cloudPlaced,
    ...(run.execution !== undefined ? { override: run.execution } : {}),
  });
}
