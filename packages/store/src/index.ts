export { openStore, compileStoreOptions, redactUrl } from './open.js';
export type { StoreOptions, CompiledStoreOptions, OpenedStore } from './open.js';
export type { Dialect } from './database.js';
export { dropTestSchema, openTestStore, takeTestSchema, testSchemaName } from './test-stores.js';
export type { TestSchema, TestStore } from './test-stores.js';
export { KyselyRoutesStore } from './routes-store.js';
export { openTestRoutesStore } from './routes-test-store.js';
export type { TestRoutesStore } from './routes-test-store.js';
export { KyselyTriggerStore } from './triggers-store.js';
export { KyselyDeploymentStore } from './deployments-store.js';
export { openTestTriggerStores } from './triggers-test-stores.js';
export type { TestTriggerStores } from './triggers-test-stores.js';
export { KyselyExecutionsStore } from './executions-store.js';
export { openTestExecutionsStore } from './executions-test-store.js';
export type { TestExecutions, TestExecutionsStore } from './executions-test-store.js';
export { KyselyAuditStore } from './audit-store.js';
export { moveOwner, type OwnerMove } from './move-owner.js';
export { openTestAuditStore } from './audit-test-store.js';
export type { TestAuditStore } from './audit-test-store.js';
export {
  asStoreError,
  isDatabaseUnavailable,
  DATABASE_RETRY_AFTER_SECONDS,
} from './unavailable.js';
export { KyselyBudgetLedger } from './budgets-store.js';
