import { hostname } from 'node:os';
import { resolve } from 'node:path';
import { ValidationError, type CompiledOptions } from '@weft/core';
import { telemetryOptionsFromEnv, type TelemetryOptions } from '@weft/telemetry/setup';
import {
  compileIdentityOptions,
  identityOptionsFromEnv,
  type CompiledIdentityOptions,
  type IdentityServerOptions,
} from '@weft/identity';
import { judgeSettingsFromEnv, type JudgeSettings } from '@weft/agents';
import { moderationSettingsFromEnv, type ModerationSettings } from '@weft/agents';
import {
  checkPublishedAgentSecrets,
  publishedAgentSecretsFromEnv,
} from './published-agent-secrets.js';
import { readServerSettings } from './settings/read.js';
import { sandboxSettingsFromEnv, type SandboxSettings } from './settings/sandbox.js';
import {
  compileTriggerOptions,
  triggerOptionsFromSettings,
  type CompiledTriggerOptions,
  type TriggerServerOptions,
} from './trigger-config.js';

/** Settings of `weft server`, from flags and environment. */
export interface ServerOptions {
  /** TCP port; 0 picks a free one. Default 8080. */
  port?: number | undefined;
  /** Interface to listen on. Default 127.0.0.1. */
  host?: string | undefined;
  /** Directory of the embedded SQLite file. Default ./.weft. */
  dataDir?: string | undefined;
  /** `postgres://...`: use PostgreSQL instead of SQLite. */
  databaseUrl?: string | undefined;
  /** PostgreSQL schema (default public); tests use one per run. */
  databaseSchema?: string | undefined;
  /** Private registry: every read needs a key. Default false. */
  private?: boolean | undefined;
  /** Base of absolute URLs in answers; default: from each request's Host. */
  publicUrl?: string | undefined;
  /** pino log level. Default info. */
  logLevel?: string | undefined;
  /**
   * `json` lines (default) or readable `text` (`--log-format`, `WEFT_LOG_FORMAT`); `weft server`
   * picks text when stdout is a terminal and neither is given.
   */
  logFormat?: 'json' | 'text' | undefined;
  /** Largest request body in bytes. Default 1 MiB. */
  bodyLimit?: number | undefined;
  /**
   * Cache time of search and detail answers in ms (0: off). Default 10000. Every write of this
   * server drops the cache at once; the time only bounds other replicas' writes.
   */
  cacheTtlMs?: number | undefined;
  /**
   * Interval in ms at which counted schema downloads are written together (0: each before its
   * answer). Default 1000.
   */
  downloadFlushMs?: number | undefined;
  /** Bearer token router registration needs (`WEFT_ROUTER_TOKEN`); none: open, with a warning. */
  routerToken?: string | undefined;
  /**
   * The router's `POST /execute` without a credential (`WEFT_ROUTER_OPEN_EXECUTE=true`), for a
   * server only a private network reaches; logged as a warning at start. Default false: an API
   * key, the router token or (with `tls.clientCa`) a client certificate is needed.
   */
  routerOpenExecute?: boolean | undefined;
  /** Health-check interval of router instances in ms (`WEFT_HEALTH_INTERVAL_MS`, default 10000). */
  healthIntervalMs?: number | undefined;
  /** Health-check timeout in ms (`WEFT_HEALTH_TIMEOUT_MS`, default 2000). */
  healthTimeoutMs?: number | undefined;
  /** Consecutive failed checks that remove an instance (`WEFT_HEALTH_FAILURES`, default 3). */
  healthFailures?: number | undefined;
  /** Longest wait for a routed call in ms (`WEFT_ROUTER_TIMEOUT_MS`, default 120000). */
  routerTimeoutMs?: number | undefined;
  /** CIDRs weft may call although link-local or metadata (`WEFT_EGRESS_ALLOWLIST`). */
  egressAllowlist?: string[] | undefined;
  /** HTTPS: PEM files of the server certificate and key; with `clientCa`, mutual TLS (docs/router.md#protection). */
  tls?: { cert: string; key: string; clientCa?: string } | undefined;
  /** `secrets.*` of server-side runs (from `WEFT_SECRET_<NAME>` variables). Default none. */
  runtimeSecrets?: Record<string, string> | undefined;
  /** Deployed workflows and triggers (`--workflows DIR`, `WEFT_TRUSTED_PROXIES`, event sources). */
  triggers?: TriggerServerOptions | undefined;
  /**
   * Broker address (`WEFT_BROKER`): `memory`, `nats://host:port[,...]` or `kafka://host:port[,...]`.
   * With one, actions of plugins served by broker go out as task messages (docs/protocol.md#broker-tasks). Default none.
   */
  broker?: string | undefined;
  /**
   * This replica's name (`WEFT_REPLICA_ID`): in metrics, and the holder of its executions'
   * leases (a replica started again under its name takes them back at once). Unique among the
   * replicas running. Default `<hostname>-<pid>`.
   */
  replicaId?: string | undefined;
  /**
   * Days ended executions are kept, with their journal and events (`WEFT_RETENTION_DAYS`;
   * 0: forever). A deployed workflow's `execution.retention_days` overrides it. Default 30.
   */
  retentionDays?: number | undefined;
  /** Days audit entries are kept (`WEFT_AUDIT_RETENTION_DAYS`; 0: forever). Default forever. */
  auditRetentionDays?: number | undefined;
  /**
   * Lets whoever started a run approve it (`WEFT_APPROVAL_ALLOW_SELF=true`). Default false:
   * separation of duties.
   */
  allowSelfApproval?: boolean | undefined;
  /**
   * Most items one `for_each` of a server-side run may iterate over
   * (`WEFT_MAX_FOR_EACH_ITEMS`). Default 100,000.
   */
  maxForEachItems?: number | undefined;
  /** Identity-provider tokens and the access file (`WEFT_OIDC_*`, `WEFT_ACCESS_FILE`). */
  identity?: IdentityServerOptions | undefined;
  /**
   * Directory of agent definitions for agent steps (`--agents`, `WEFT_AGENTS_DIR`). Default
   * `./agents`, which may be missing.
   */
  agentsDir?: string | undefined;
  /**
   * The secrets agents published to the registry may read through `api_key_secret`
   * (`WEFT_PUBLISHED_AGENT_SECRETS`): names, or prefixes ending in `*`. Default none: a
   * published agent naming a secret fails its step. The `--agents` directory's may read any.
   */
  publishedAgentSecrets?: string[] | undefined;
  /**
   * An OpenAI-compatible moderation endpoint (`WEFT_MODERATION_URL`, `_API_KEY` or
   * `_API_KEY_SECRET`, `_MODEL`, `_TIMEOUT_MS`), offered to workflows as the toxicity detector
   * `moderation`. Default none: a workflow choosing it is refused at deploy.
   */
  moderation?: ModerationSettings | undefined;
  /**
   * A judge model (`WEFT_JUDGE_MODEL`, `_BASE_URL`, `_API_KEY` or `_API_KEY_SECRET`,
   * `_TIMEOUT_MS`), offered to workflows as the detector `judge` of every content check.
   * Default none: a workflow choosing it is refused at deploy.
   */
  judge?: JudgeSettings | undefined;
  /**
   * Traces and metrics (`OTEL_*` variables, docs/observability.md). Default: no tracing, metrics
   * on `GET /metrics` only.
   */
  telemetry?: TelemetryOptions | undefined;
  /**
   * The connector sandbox (`WEFT_SANDBOX`, `WEFT_CGROUP_PARENT`, `WEFT_SCRATCH_DIR`): opened at
   * start, which logs the limits this host enforces. Default: strict, parent group `weft` below
   * the server's own, scratch under `<os tmpdir>/weft-scratch`.
   */
  sandbox?: SandboxSettings | undefined;
}

/** Days ended executions are kept when `WEFT_RETENTION_DAYS` is not set. */
export const DEFAULT_RETENTION_DAYS = 30;

/** The defaults of {@link ServerOptions}: each field here is never undefined once compiled. */
export const SERVER_DEFAULTS = {
  port: 8080,
  host: '127.0.0.1',
  dataDir: './.weft',
  private: false,
  logLevel: 'info',
  logFormat: 'json',
  routerOpenExecute: false,
  egressAllowlist: [],
  runtimeSecrets: {},
  retentionDays: DEFAULT_RETENTION_DAYS,
  /** 0: forever. */
  auditRetentionDays: 0,
  allowSelfApproval: false,
  publishedAgentSecrets: [],
  telemetry: { serviceName: 'weft-server' },
  sandbox: {},
} satisfies Partial<ServerOptions>;

/** {@link ServerOptions} with defaults filled in. */
export type CompiledServerOptions = CompiledOptions<
  ServerOptions,
  typeof SERVER_DEFAULTS,
  {
    /** Default `<hostname>-<pid>`. */
    replicaId: string;
    tls: { cert: string; key: string; clientCa: string | undefined } | undefined;
    triggers: CompiledTriggerOptions;
    identity: CompiledIdentityOptions;
  }
>;

/** A number of days of retention (0: forever), refused naming the option otherwise. */
function days(option: string, value: number): number {
  if (!Number.isInteger(value) || value < 0 || value > 36_500) {
    throw new ValidationError(
      `${option} must be a whole number of days from 0 (keep forever) to 36500, not ${value}`,
      { field: option, constraint: 'range' },
    );
  }
  return value;
}

/** Fills the defaults of {@link ServerOptions} once. */
export function compileServerOptions(options: ServerOptions = {}): CompiledServerOptions {
  const d = SERVER_DEFAULTS;
  return {
    port: options.port ?? d.port,
    host: options.host ?? d.host,
    dataDir: resolve(options.dataDir ?? d.dataDir),
    databaseUrl: options.databaseUrl || undefined,
    databaseSchema: options.databaseSchema,
    private: options.private ?? d.private,
    publicUrl: options.publicUrl,
    logLevel: options.logLevel ?? d.logLevel,
    logFormat: options.logFormat ?? d.logFormat,
    bodyLimit: options.bodyLimit,
    cacheTtlMs: options.cacheTtlMs,
    downloadFlushMs: options.downloadFlushMs,
    routerToken: options.routerToken || undefined,
    routerOpenExecute: options.routerOpenExecute ?? d.routerOpenExecute,
    healthIntervalMs: options.healthIntervalMs,
    healthTimeoutMs: options.healthTimeoutMs,
    healthFailures: options.healthFailures,
    routerTimeoutMs: options.routerTimeoutMs,
    egressAllowlist: options.egressAllowlist ?? d.egressAllowlist,
    runtimeSecrets: options.runtimeSecrets ?? d.runtimeSecrets,
    triggers: compileTriggerOptions(options.triggers),
    broker: options.broker?.trim() || undefined,
    replicaId: options.replicaId || `${hostname()}-${process.pid}`,
    retentionDays: days('retentionDays', options.retentionDays ?? d.retentionDays),
    auditRetentionDays: days(
      'auditRetentionDays',
      options.auditRetentionDays ?? d.auditRetentionDays,
    ),
    allowSelfApproval: options.allowSelfApproval ?? d.allowSelfApproval,
    maxForEachItems: options.maxForEachItems,
    identity: compileIdentityOptions(options.identity),
    agentsDir: options.agentsDir,
    publishedAgentSecrets: checkPublishedAgentSecrets(
      options.publishedAgentSecrets ?? d.publishedAgentSecrets,
    ),
    moderation: options.moderation,
    judge: options.judge,
    telemetry: options.telemetry ?? d.telemetry,
    sandbox: options.sandbox ?? d.sandbox,
    tls: options.tls
      ? {
          cert: resolve(options.tls.cert),
          key: resolve(options.tls.key),
          clientCa: options.tls.clientCa ? resolve(options.tls.clientCa) : undefined,
        }
      : undefined,
  };
}

/**
 * Reads the environment variables `weft server` understands (through {@link SERVER_SETTINGS},
 * which checks each against its type); flags given explicitly win.
 */
export function serverOptionsFromEnv(env: NodeJS.ProcessEnv): ServerOptions {
  const s = readServerSettings(env);
  return {
    ...(env['DATABASE_URL'] ? { databaseUrl: env['DATABASE_URL'] } : {}),
    private: s.WEFT_REGISTRY_PRIVATE,
    publicUrl: s.WEFT_PUBLIC_URL,
    logLevel: s.WEFT_LOG_LEVEL,
    logFormat: s.WEFT_LOG_FORMAT,
    routerToken: s.WEFT_ROUTER_TOKEN,
    routerOpenExecute: s.WEFT_ROUTER_OPEN_EXECUTE,
    healthIntervalMs: s.WEFT_HEALTH_INTERVAL_MS,
    healthTimeoutMs: s.WEFT_HEALTH_TIMEOUT_MS,
    healthFailures: s.WEFT_HEALTH_FAILURES,
    routerTimeoutMs: s.WEFT_ROUTER_TIMEOUT_MS,
    egressAllowlist: s.WEFT_EGRESS_ALLOWLIST,
    broker: s.WEFT_BROKER,
    replicaId: s.WEFT_REPLICA_ID,
    retentionDays: s.WEFT_RETENTION_DAYS,
    auditRetentionDays: s.WEFT_AUDIT_RETENTION_DAYS,
    allowSelfApproval: s.WEFT_APPROVAL_ALLOW_SELF,
    maxForEachItems: s.WEFT_MAX_FOR_EACH_ITEMS,
    agentsDir: s.WEFT_AGENTS_DIR,
    sandbox: sandboxSettingsFromEnv(env),
    ...publishedAgentSecretsFromEnv(env),
    ...moderationFromEnv(env),
    ...judgeFromEnv(env),
    runtimeSecrets: runtimeSecretsFromEnv(env),
    triggers: triggerOptionsFromSettings(s, env),
    identity: identityOptionsFromEnv(env),
    telemetry: telemetryOptionsFromEnv(env, 'weft-server'),
  };
}

/** `secrets.NAME` of server-side runs: the variables `WEFT_SECRET_NAME` (never the others). */
export function runtimeSecretsFromEnv(env: NodeJS.ProcessEnv): Record<string, string> {
  const secrets: Record<string, string> = {};
  for (const [name, value] of Object.entries(env)) {
    if (name.startsWith('WEFT_SECRET_') && name.length > 12 && value !== undefined) {
      secrets[name.slice(12)] = value;
    }
  }
  return secrets;
}

function moderationFromEnv(env: NodeJS.ProcessEnv): { moderation?: ModerationSettings } {
  const moderation = moderationSettingsFromEnv(env);
  return moderation ? { moderation } : {};
}

function judgeFromEnv(env: NodeJS.ProcessEnv): { judge?: JudgeSettings } {
  const judge = judgeSettingsFromEnv(env);
  return judge ? { judge } : {};
}
