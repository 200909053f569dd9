import { resolve } from 'node:path';
import { isKeyRole, isPermission, ValidationError, type CompiledOptions } from '@weft/core';
import { compileAddressList } from '@weft/runtime';
import { readServerSettings } from './settings/read.js';
import type { ServerSettings } from './settings/schema.js';

/** Settings of deployed workflows and their triggers (`weft server --workflows DIR`, env). */
export interface TriggerServerOptions {
  /** Deploy every workflow file of this directory at start and when a file changes. */
  workflowsDir?: string | undefined;
  /** Owner of the executions of workflows deployed from `workflowsDir` (`WEFT_WORKFLOWS_OWNER`). */
  workflowsOwner?: string | undefined;
  /**
   * Roles the runs of `workflowsDir`'s workflows act as (`WEFT_WORKFLOWS_ROLES`). With
   * `workflowsPermissions`, declares what the directory deploys as: without either, a workflow
   * with authorization enabled is refused there (docs/authorization.md#deployments-and-triggers).
   */
  workflowsRoles?: string[] | undefined;
  /** Permissions the runs of `workflowsDir`'s workflows act with (`WEFT_WORKFLOWS_PERMISSIONS`). */
  workflowsPermissions?: string[] | undefined;
  /** Proxies whose `X-Forwarded-For` webhooks believe, IPs and CIDRs (`WEFT_TRUSTED_PROXIES`). */
  trustedProxies?: string[] | undefined;
  /**
   * Where a webhook's `secret_name` is looked up: the variable of that name, then
   * `WEFT_SECRET_<NAME>` (`weft server` passes its environment). Default: only the server's
   * `runtimeSecrets`.
   */
  secretsEnvironment?: Readonly<Record<string, string | undefined>> | undefined;
  /**
   * How often each server reconciles its deployments with the store, ms, so that deploys and
   * undeploys made on another replica take effect (`WEFT_DEPLOYMENTS_RECONCILE_MS`). Default
   * 1000; 0 turns it off.
   */
  reconcileIntervalMs?: number | undefined;
  /** Event sources of `event` triggers besides `custom`, `webhook` and `sns` (always served). */
  events?:
    | {
        /** NATS subjects (`WEFT_EVENTS_NATS_URL`, e.g. nats://127.0.0.1:4222). */
        natsUrl?: string | undefined;
        /** Kafka topics (`WEFT_EVENTS_KAFKA_BROKERS`, comma-separated host:port). */
        kafkaBrokers?: string[] | undefined;
        /** SQS queues, with the AWS SDK's usual credentials and region (`WEFT_EVENTS_SQS=true`). */
        sqs?: boolean | undefined;
      }
    | undefined;
}

/** The defaults of {@link TriggerServerOptions} (read only: shared by every compile). */
export const TRIGGER_DEFAULTS = {
  workflowsOwner: 'local',
  trustedProxies: [],
  secretsEnvironment: {},
  reconcileIntervalMs: 1000,
} satisfies Partial<TriggerServerOptions>;

/** {@link TriggerServerOptions} with defaults filled in. */
export type CompiledTriggerOptions = CompiledOptions<
  Omit<TriggerServerOptions, 'workflowsRoles' | 'workflowsPermissions'>,
  typeof TRIGGER_DEFAULTS,
  {
    /** What the directory's runs act as; undefined: nothing declared (guarded workflows refused). */
    workflowsGrants: { roles: string[]; permissions: string[] } | undefined;
    events: { natsUrl: string | undefined; kafkaBrokers: string[]; sqs: boolean };
  }
>;

const OWNER = /^[A-Za-z0-9][A-Za-z0-9_.-]{0,127}$/;

/** Fills the defaults of {@link TriggerServerOptions}; throws `VALIDATION` naming a bad setting. */
export function compileTriggerOptions(options: TriggerServerOptions = {}): CompiledTriggerOptions {
  const owner = options.workflowsOwner ?? TRIGGER_DEFAULTS.workflowsOwner;
  if (!OWNER.test(owner)) {
    throw new ValidationError(
      `the workflows owner must be an owner name such as acme (letters, digits, _ . -), not ${JSON.stringify(owner)}`,
      { field: 'workflowsOwner', constraint: 'pattern' },
    );
  }
  const roles = options.workflowsRoles ?? [];
  const permissions = options.workflowsPermissions ?? [];
  const badRole = roles.find((r) => !isKeyRole(r));
  if (badRole !== undefined) {
    throw new ValidationError(
      `WEFT_WORKFLOWS_ROLES: ${JSON.stringify(badRole)} is not a role name (letters, digits, _ . : / @ -)`,
      { field: 'workflowsRoles', constraint: 'pattern' },
    );
  }
  const badPermission = permissions.find((p) => !isPermission(p));
  if (badPermission !== undefined) {
    throw new ValidationError(
      `WEFT_WORKFLOWS_PERMISSIONS: ${JSON.stringify(badPermission)} is not a permission such as payments:write`,
      { field: 'workflowsPermissions', constraint: 'pattern' },
    );
  }
  const trustedProxies = options.trustedProxies ?? TRIGGER_DEFAULTS.trustedProxies;
  try {
    compileAddressList(trustedProxies);
  } catch (error) {
    throw new ValidationError(`WEFT_TRUSTED_PROXIES: ${(error as Error).message}`, {
      field: 'trustedProxies',
      constraint: 'cidr',
    });
  }
  const reconcileIntervalMs = options.reconcileIntervalMs ?? TRIGGER_DEFAULTS.reconcileIntervalMs;
  if (!Number.isInteger(reconcileIntervalMs) || reconcileIntervalMs < 0) {
    throw new ValidationError(
      `WEFT_DEPLOYMENTS_RECONCILE_MS must be a whole number of milliseconds (0 turns it off), not ${String(options.reconcileIntervalMs)}`,
      { field: 'reconcileIntervalMs', constraint: 'integer' },
    );
  }
  return {
    workflowsDir: options.workflowsDir ? resolve(options.workflowsDir) : undefined,
    reconcileIntervalMs,
    workflowsOwner: owner,
    workflowsGrants:
      options.workflowsRoles !== undefined || options.workflowsPermissions !== undefined
        ? { roles, permissions }
        : undefined,
    trustedProxies,
    secretsEnvironment: options.secretsEnvironment ?? TRIGGER_DEFAULTS.secretsEnvironment,
    events: {
      natsUrl: options.events?.natsUrl || undefined,
      kafkaBrokers: options.events?.kafkaBrokers ?? [],
      sqs: options.events?.sqs ?? false,
    },
  };
}

/**
 * The trigger settings of the environment (`weft server`), read through the settings schema;
 * `env` is also where webhooks look their secrets up.
 */
export function triggerOptionsFromEnv(env: NodeJS.ProcessEnv): TriggerServerOptions {
  return triggerOptionsFromSettings(readServerSettings(env), env);
}

/** The trigger settings among the server's parsed settings. */
export function triggerOptionsFromSettings(
  s: ServerSettings,
  env: NodeJS.ProcessEnv,
): TriggerServerOptions {
  return {
    secretsEnvironment: env,
    workflowsDir: s.WEFT_WORKFLOWS_DIR,
    workflowsOwner: s.WEFT_WORKFLOWS_OWNER,
    workflowsRoles: s.WEFT_WORKFLOWS_ROLES,
    workflowsPermissions: s.WEFT_WORKFLOWS_PERMISSIONS,
    reconcileIntervalMs: s.WEFT_DEPLOYMENTS_RECONCILE_MS,
    trustedProxies: s.WEFT_TRUSTED_PROXIES,
    events: {
      natsUrl: s.WEFT_EVENTS_NATS_URL,
      kafkaBrokers: s.WEFT_EVENTS_KAFKA_BROKERS,
      sqs: s.WEFT_EVENTS_SQS,
    },
  };
}
