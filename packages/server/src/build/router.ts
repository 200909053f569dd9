import type { FastifyInstance } from 'fastify';
import type { Authenticate } from '@weft/identity';
import { Router } from '@weft/router';
import type { BuildContext } from './context.js';
import type { ServerStores } from './stores.js';

/**
 * The router phase: the routing table, health checker and dispatch on the stores' routes, with
 * their routes on `app`. The router is closed by the app's `onClose` (pushed by the http phase):
 * after the app has stopped serving, so that calls in flight through it finish first.
 */
export async function mountRouter(
  { options }: BuildContext,
  app: FastifyInstance,
  stores: ServerStores,
  authenticate: Authenticate,
): Promise<Router> {
  const router = new Router(
    {
      store: stores.routes,
      ...(options.routerToken ? { token: options.routerToken } : {}),
      requireClientCert: options.tls?.clientCa !== undefined,
      // POST /execute takes the API keys (and identity-provider tokens) of the public API.
      authenticate,
      openExecute: options.routerOpenExecute,
      ...(options.healthIntervalMs ? { healthIntervalMs: options.healthIntervalMs } : {}),
      ...(options.healthTimeoutMs ? { healthTimeoutMs: options.healthTimeoutMs } : {}),
      ...(options.healthFailures ? { healthFailures: options.healthFailures } : {}),
      ...(options.routerTimeoutMs ? { executeTimeoutMs: options.routerTimeoutMs } : {}),
      ...(options.bodyLimit !== undefined ? { bodyLimit: options.bodyLimit } : {}),
      egressAllowlist: options.egressAllowlist,
    },
    (error) => app.log.error({ err: error }, 'router health check failed'),
  );
  app.addHook('onClose', () => router.close());
  await app.register(router.plugin());
  // Plain POST /execute and /{plugin_slug}/execute calls skip Fastify; not when every request
  // is logged, so that debug logs keep their per-request lines.
  if (options.logLevel !== 'debug' && options.logLevel !== 'trace') {
    const fast = router.fastPath(app);
    app.addHook('preClose', (done) => {
      fast.disable();
      done();
    });
  }
  if (!options.routerToken && options.tls?.clientCa === undefined) {
    app.log.warn(
      'router registration is open to anyone who can reach this server: set WEFT_ROUTER_TOKEN or --tls-client-ca (development only)',
    );
  }
  if (options.routerOpenExecute && options.tls?.clientCa === undefined) {
    app.log.warn(
      'WEFT_ROUTER_OPEN_EXECUTE: the router runs any registered action for anyone who can reach this server, without a credential; keep it on a private network',
    );
  }
  return router;
}
