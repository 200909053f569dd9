/**
 * @packageDocumentation In-memory implementations of the store ports: the routing table, the
 * trigger store, the deployments and the executions, for one process and for tests. Nothing survives the
 * process; several replicas share a database (`@weft/store`). Their own subpath, so that using
 * them loads neither SQLite nor PostgreSQL. They pass the same contract suites as the databases.
 */
export { MemoryRoutesStore } from './memory-routes-store.js';
export { MemoryTriggerStore } from './memory-trigger-store.js';
export { MemoryDeploymentStore } from './memory-deployment-store.js';
export { MemoryExecutionsStore } from './memory-executions-store.js';
