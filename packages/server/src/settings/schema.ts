import { Type, type Static, type TSchema } from '@weft/core/typebox';

/**
 * Annotations of one setting besides its JSON Schema: `must` ends the error message of a value
 * the schema refuses ("WEFT_X must be <must>, not ..."), `shown` is the default as docs/settings.md
 * shows it when it is no literal value, and `emptyIsValue` keeps an empty variable as a value
 * (an empty list; an empty text, checked against its pattern) instead of treating it as unset.
 */
export interface SettingAnnotations {
  readonly description: string;
  readonly must?: string;
  readonly shown?: string;
  readonly emptyIsValue?: true;
  /** The type as docs/settings.md shows it, when it says more than the schema's (`absolute path`). */
  readonly typeShown?: string;
}

/** Segments of letters, digits, `.`, `_`, `-` (not `.` or `..`), optionally from `/`. */
const SEGMENT = String.raw`(?!\.\.?(?:/|$))[A-Za-z0-9._-]+`;
const CGROUP_PARENT_PATTERN = `^/?${SEGMENT}(?:/${SEGMENT})*/?$`;
/** `/...`, or a drive letter on Windows. */
const ABSOLUTE_PATH_PATTERN = String.raw`^(?:/|[A-Za-z]:[\\/])`;

const flag = (description: string, shown = '`false`') =>
  Type.Optional(Type.Boolean({ description, shown, default: false }));
const text = (description: string, shown = 'none') =>
  Type.Optional(Type.String({ description, shown }));
const positive = (description: string, byDefault: number) =>
  Type.Optional(
    Type.Integer({
      description,
      default: byDefault,
      minimum: 1,
      maximum: 9_999_999_999,
      must: 'a positive integer',
    }),
  );
const days = (description: string, byDefault: number, shown?: string) =>
  Type.Optional(
    Type.Integer({
      description,
      default: byDefault,
      minimum: 0,
      maximum: 36_500,
      must: 'a whole number of days from 0 (keep forever) to 36500',
      ...(shown !== undefined ? { shown } : {}),
    }),
  );
const list = (description: string, annotations: Partial<SettingAnnotations> = {}) =>
  Type.Optional(Type.Array(Type.String(), { description, shown: 'none', ...annotations }));

/**
 * The environment settings of `weft server`, one property per variable: its type, default and
 * meaning. The server reads its environment through this schema alone
 * ({@link readServerSettings}), and docs/settings.md's settings table is generated from it
 * (`npm run settings-table`), so the two cannot drift apart.
 */
export const SERVER_SETTINGS = Type.Object({
  WEFT_REGISTRY_PRIVATE: flag('private registry: every read needs a key too (`--private`)'),
  WEFT_PUBLIC_URL: text('base of absolute URLs in answers', 'from the request\u2019s Host'),
  WEFT_LOG_LEVEL: Type.Optional(Type.String({ description: 'pino log level', default: 'info' })),
  WEFT_LOG_FORMAT: Type.Optional(
    Type.Union([Type.Literal('json'), Type.Literal('text')], {
      description:
        'log lines as readable text (time, level, message, key=value) or JSON lines (`--log-format`)',
      shown: '`json`; `text` on a TTY',
      must: '"json" or "text"',
    }),
  ),
  WEFT_AGENTS_DIR: text('agent definitions for agent steps (`--agents`)', '`./agents` if present'),
  WEFT_MAX_FOR_EACH_ITEMS: positive(
    'most items one `for_each` of a server-side run iterates over',
    100_000,
  ),
  WEFT_RETENTION_DAYS: days(
    'days ended executions are kept with their journal and events (`0`: forever); a deployed workflow\u2019s `execution.retention_days` overrides it',
    30,
  ),
  WEFT_AUDIT_RETENTION_DAYS: days('days audit entries are kept (`0`: forever)', 0, '`0` (forever)'),
  WEFT_APPROVAL_ALLOW_SELF: flag('whoever started a run may approve it'),
  WEFT_ROUTER_TOKEN: text(
    'bearer token of router registration, also taken by `POST /execute`; without it or `--tls-client-ca` registration is open (a warning is logged)',
  ),
  WEFT_ROUTER_OPEN_EXECUTE: flag(
    '`POST /execute` without any credential, for private networks only',
  ),
  WEFT_HEALTH_INTERVAL_MS: positive('interval of router health checks, ms', 10_000),
  WEFT_HEALTH_TIMEOUT_MS: positive('timeout of one health check, ms', 2_000),
  WEFT_HEALTH_FAILURES: positive('failed checks in a row that remove an instance', 3),
  WEFT_ROUTER_TIMEOUT_MS: positive('longest wait for a routed call, ms', 120_000),
  WEFT_EGRESS_ALLOWLIST: list(
    'comma-separated CIDRs that may be called although link-local or cloud metadata addresses',
  ),
  WEFT_BROKER: text('broker of task dispatch: `memory`, `nats://...` or `kafka://...`', '`memory`'),
  WEFT_REPLICA_ID: text(
    'this replica\u2019s name in metrics and execution leases',
    '`<hostname>-<pid>`',
  ),
  WEFT_WORKFLOWS_DIR: text('deploy every workflow file of this directory (`--workflows`)'),
  WEFT_WORKFLOWS_OWNER: Type.Optional(
    Type.String({
      description: 'owner of the runs of `WEFT_WORKFLOWS_DIR`\u2019s workflows',
      default: 'local',
    }),
  ),
  WEFT_WORKFLOWS_ROLES: list('roles the runs of `WEFT_WORKFLOWS_DIR`\u2019s workflows act as', {
    emptyIsValue: true,
  }),
  WEFT_WORKFLOWS_PERMISSIONS: list(
    'permissions the runs of `WEFT_WORKFLOWS_DIR`\u2019s workflows act with',
    { emptyIsValue: true },
  ),
  WEFT_DEPLOYMENTS_RECONCILE_MS: Type.Optional(
    Type.Integer({
      description: 'how often deployments are reconciled with the store, ms (`0`: off)',
      default: 1000,
      minimum: 0,
      maximum: 9_999_999_999,
      must: 'a whole number of milliseconds (0 turns it off)',
    }),
  ),
  WEFT_SANDBOX: Type.Optional(
    Type.Union([Type.Literal('strict'), Type.Literal('best-effort')], {
      description:
        'a connector or step declaring a limit this host cannot enforce (`weft sandbox check`): `strict` refuses the call with `VALIDATION` before it runs, `best-effort` runs it and warns once per connector',
      default: 'strict',
      must: '"strict" or "best-effort"',
    }),
  ),
  WEFT_CGROUP_PARENT: Type.Optional(
    Type.String({
      description:
        'parent control group of shell actions\u2019 groups: from each cgroup hierarchy\u2019s root when it starts with `/`, else below the process\u2019s own group; made on first use',
      default: 'weft',
      pattern: CGROUP_PARENT_PATTERN,
      typeShown: 'control group path',
      must: 'a control group path of letters, digits, `.`, `_`, `-` and `/`, without `.` or `..` segments',
      emptyIsValue: true,
    }),
  ),
  WEFT_SCRATCH_DIR: Type.Optional(
    Type.String({
      description:
        'where each shell action call gets its scratch directory (working directory and `TMPDIR`)',
      shown: '`<os tmpdir>/weft-scratch`',
      pattern: ABSOLUTE_PATH_PATTERN,
      typeShown: 'absolute path',
      must: 'an absolute path',
      emptyIsValue: true,
    }),
  ),
  WEFT_TRUSTED_PROXIES: list('proxies whose `X-Forwarded-For` webhooks believe: IPs and CIDRs'),
  WEFT_EVENTS_NATS_URL: text('NATS server of `event` triggers on NATS subjects'),
  WEFT_EVENTS_KAFKA_BROKERS: list('Kafka brokers (`host:port`) of `event` triggers on topics'),
  WEFT_EVENTS_SQS: flag(
    '`event` triggers on SQS queues (the AWS SDK\u2019s credentials and region)',
  ),
});

/** The settings the environment gave, parsed (a variable not set is absent). */
export type ServerSettings = Static<typeof SERVER_SETTINGS>;

/** One setting's schema with its annotations. */
export type SettingSchema = TSchema & SettingAnnotations & { default?: unknown };
