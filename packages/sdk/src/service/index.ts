export {
  createConnectorService,
  type ConnectorService,
  type ConnectorServiceOptions,
} from './service.js';
export { ConnectorHost, type ConnectorHostOptions, type HostAnswer } from './host.js';
export {
  connectorRoutes,
  connectorMiddleware,
  type ConnectorSource,
  type MiddlewareOptions,
} from './mount.js';
export { connectorServiceRoutes } from './routes.js';
export type { HealthChecks, CheckResult } from './health.js';
export {
  registerWithRouter,
  deregisterFromRouter,
  routerAgent,
  type ClientTls,
  type RetryPolicy,
} from './router-client.js';
