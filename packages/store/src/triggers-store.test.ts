import { describe } from 'vitest';
import { deploymentStoreContract } from './deployments-store.contract.js';
import { triggerStoreContract } from './triggers-store.contract.js';
import { openTestTriggerStores } from './triggers-test-stores.js';
import { MemoryDeploymentStore, MemoryTriggerStore } from './memory/index.js';

const url = process.env['WEFT_TEST_DATABASE_URL'];
const noop = async () => {};

describe('memory trigger store', () => {
  triggerStoreContract(async () => ({ store: new MemoryTriggerStore(), dispose: noop }));
});
describe('memory deployment store', () => {
  deploymentStoreContract(async () => ({ store: new MemoryDeploymentStore(), dispose: noop }));
});

describe('SQLite trigger store', () => {
  triggerStoreContract(async () => {
    const s = await openTestTriggerStores('sqlite');
    return { store: s.triggers, dispose: s.dispose };
  });
});
describe('SQLite deployment store', () => {
  deploymentStoreContract(async () => {
    const s = await openTestTriggerStores('sqlite');
    return { store: s.deployments, dispose: s.dispose };
  });
});

describe.skipIf(!url)('PostgreSQL trigger store (set WEFT_TEST_DATABASE_URL to run)', () => {
  triggerStoreContract(async () => {
    const s = await openTestTriggerStores('postgres', url);
    return { store: s.triggers, dispose: s.dispose };
  });
});
describe.skipIf(!url)('PostgreSQL deployment store (set WEFT_TEST_DATABASE_URL to run)', () => {
  deploymentStoreContract(async () => {
    const s = await openTestTriggerStores('postgres', url);
    return { store: s.deployments, dispose: s.dispose };
  });
});
