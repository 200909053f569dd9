import {
  type AuditStore,
  type BudgetLedgerStore,
  type DeploymentStore,
  type ExecutionsStore,
  type RegistryStore,
  type RoutesStore,
  type TriggerStore,
} from '@weft/core';
import { openStore, type StoreOptions } from '@weft/store';
import { MemoryRoutesStore } from '@weft/store/memory';
import type { CompiledServerOptions } from '../config.js';
import type { BuildContext } from './context.js';

/** The stores of a server: opened from the options, or given (`ServerDependencies`). */
export interface ServerStores {
  registry: RegistryStore;
  /** The router's routing table. */
  routes: RoutesStore;
  /** Absent when only a registry store was given: then the server runs no runtime. */
  executions: ExecutionsStore | undefined;
  deployments: DeploymentStore | undefined;
  triggers: TriggerStore | undefined;
  /** Absent when only a registry store was given: then the audit log is in memory. */
  audit: AuditStore | undefined;
  /** The ledger of budgets across runs; absent when only a registry store was given. */
  budgets: BudgetLedgerStore | undefined;
  /** `sqlite:/path/weft.db` or the database URL without password. */
  description: string;
}

/** Where the options say to store. */
export function storeOptionsOf(options: CompiledServerOptions): StoreOptions {
  return options.databaseUrl
    ? {
        kind: 'postgres',
        url: options.databaseUrl,
        ...(options.databaseSchema ? { schema: options.databaseSchema } : {}),
      }
    : { kind: 'sqlite', dataDir: options.dataDir };
}

/** Read-only SQLite connections of a server, each in a thread of its own (`openStore`'s `readers`). */
export const SERVER_SQLITE_READERS = 2;

/**
 * The store of a server: on SQLite, WAL checkpoints run in a background thread from the start,
 * and the registry's hot reads in {@link SERVER_SQLITE_READERS} threads of their own.
 */
export function serverStoreOptions(options: CompiledServerOptions): StoreOptions {
  const store = storeOptionsOf(options);
  return store.kind === 'sqlite'
    ? { ...store, checkpoints: 'background', readers: SERVER_SQLITE_READERS }
    : store;
}

/**
 * The stores phase: opens the store the options name (SQLite file, PostgreSQL pool) unless one
 * is given, each part replaceable by a given one, and pushes the closing of what it opened (not
 * of what it was given).
 */
export async function openStores({
  options,
  dependencies,
  stack,
}: BuildContext): Promise<ServerStores> {
  const given = dependencies.store;
  const opened = given
    ? {
        registry: given,
        routes: dependencies.routesStore ?? new MemoryRoutesStore(),
        description: given.kind,
      }
    : await openStore(serverStoreOptions(options));
  if (!('executions' in opened)) {
    return {
      registry: opened.registry,
      routes: dependencies.routesStore ?? opened.routes,
      executions: dependencies.executionsStore,
      deployments: dependencies.deploymentStore,
      triggers: dependencies.triggerStore,
      audit: dependencies.auditStore,
      budgets: dependencies.budgetLedger,
      description: opened.description,
    };
  }
  stack.push(async () => {
    // The executions store has connections of its own on PostgreSQL: closed first, then the rest.
    if (!dependencies.executionsStore) await opened.executions.close();
    await opened.registry.close();
  });
  return {
    registry: opened.registry,
    routes: dependencies.routesStore ?? opened.routes,
    executions: dependencies.executionsStore ?? opened.executions,
    deployments: dependencies.deploymentStore ?? opened.deployments,
    triggers: dependencies.triggerStore ?? opened.triggers,
    audit: dependencies.auditStore ?? opened.audit,
    budgets: dependencies.budgetLedger ?? opened.budgets,
    description: opened.description,
  };
}
