/** @packageDocumentation weft router: routing table, health checker, dispatch and its HTTP routes */
export { Router } from './router.js';
export { compileRouterOptions, type RouterOptions, type CompiledRouterOptions } from './options.js';
export { RoutingTable, type LiveInstance } from './table.js';
export { Dispatcher, parseAction, type DispatchAnswer } from './dispatch.js';
export { HealthChecker } from './health-checker.js';
export { egressLookup, egressRefusal, EgressRefusedError } from './egress.js';
export { checkRegistration } from './registration.js';
export { routerRoutes } from './http/routes.js';
