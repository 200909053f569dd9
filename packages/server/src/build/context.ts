import type { FastifyInstance } from 'fastify';
import type {
  AuditStore,
  BudgetLedgerStore,
  Broker,
  DeploymentStore,
  ExecutionsStore,
  PluginUsage,
  RegistryStore,
  RoutesStore,
  TriggerStore,
} from '@weft/core';
import type { RegistryClock } from '@weft/registry';
import type { RuntimeOptions } from '@weft/runtime';
import type { Telemetry } from '@weft/telemetry/setup';
import type { CompiledServerOptions } from '../config.js';
import type { DisposalStack } from './disposal.js';

/** Parts a test or another composition may supply instead of the defaults. */
export interface ServerDependencies {
  /** Use this store instead of opening one from the options (it is not closed by the server). */
  store?: RegistryStore;
  /** The routing table to use (default: the store's; in memory when `store` is given alone). */
  routesStore?: RoutesStore;
  clock?: RegistryClock;
  usage?: PluginUsage;
  /** `false`: no logging (default: pino at the configured level). */
  logger?: boolean;
  /** Where the log lines go as JSON instead of stdout (tests read them). */
  logStream?: { write(line: string): void };
  /** Executions store (default: the opened store's; no runtime when `store` is given alone). */
  executionsStore?: ExecutionsStore;
  /** Deployed workflows and trigger state (default: the opened store's; none with `store` alone). */
  deploymentStore?: DeploymentStore;
  triggerStore?: TriggerStore;
  /** The audit log (default: the opened store's; in memory when `store` is given alone). */
  auditStore?: AuditStore;
  /** The ledger of budgets across runs (default: the opened store's; none with `store` alone). */
  budgetLedger?: BudgetLedgerStore;
  /** The clock of budget periods, ms since the epoch (tests roll the period). Default `Date.now`. */
  budgetClock?: () => number;
  /** Options of the runtime beyond what the server options give (tests: short leases). */
  runtime?: Partial<RuntimeOptions>;
  /** Adds routes of the caller before the server is sealed (benchmarks add a bare route). */
  routes?: (app: FastifyInstance) => void;
  /** Use this broker instead of connecting to `options.broker` (it is not closed by the server). */
  broker?: Broker;
  /** Telemetry to use instead of starting it from `options.telemetry` (it is not shut down). */
  telemetry?: Telemetry;
}

/** What every phase of the build reads, and the stack it pushes what it opens onto. */
export interface BuildContext {
  options: CompiledServerOptions;
  dependencies: ServerDependencies;
  stack: DisposalStack;
  /** Where warnings of the closing go: the app's logger, once the http phase opened it. */
  warn?: (message: string) => void;
}
