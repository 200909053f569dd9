import { builtinModules } from 'node:module';

/**
 * The import table as data (docs/design.md#import-rules): eslint.config.js turns it into
 * `weft/package-boundaries` options, and test/architecture checks it against docs/design.md's
 * package table and each package's `dependencies`.
 */

/** Node's built-in modules, with and without `node:`. */
const NODE_BUILTINS = ['node:*', ...builtinModules.filter((name) => !name.startsWith('_'))];

/** HTTP, database and broker libraries: the engine knows none of them (docs/design.md#import-rules). */
export const HTTP_AND_DATABASES = [
  'fastify',
  '@fastify/*',
  'undici',
  'ws',
  'node:http',
  'node:https',
  'node:http2',
  'node:net',
  'http',
  'https',
  'http2',
  'net',
  'pg',
  'pg-*',
  'better-sqlite3',
  'kysely',
  '@nats-io/*',
  'kafkajs',
  'ioredis',
  'bullmq',
  '@aws-sdk/*',
];

/** What code that runs in the browser cannot import. */
export const NODE_ONLY = [
  ...NODE_BUILTINS,
  'fastify',
  '@fastify/*',
  'pino',
  'pino-*',
  'undici',
  'ws',
];

/**
 * The import rules (docs/design.md#import-rules): the workspace packages each package may
 * import (`sdk` = `@weft/sdk` and the subpaths it exports, `sdk/client` = that subpath only),
 * and the libraries it must not.
 * Arrows never point back; `server` is the composition root.
 */
export const PACKAGES = {
  core: {
    may: [],
    // The browser client (`@weft/sdk/client`) bundles core: it stays free of Node.
    forbid: NODE_ONLY,
    why: 'core is bundled into the browser console (@weft/sdk/client), so it uses no Node API',
  },
  // The shared HTTP layer (Fastify app, error answers, body checks, OpenAPI, typed routes).
  http: { may: ['core'] },
  expr: { may: ['core'] },
  engine: {
    may: ['core', 'expr'],
    forbid: HTTP_AND_DATABASES,
    why: 'the engine knows no HTTP and no database (docs/design.md#import-rules)',
  },
  guardrails: { may: ['core', 'engine'] },
  telemetry: {
    may: ['core', 'engine'],
    forbid: HTTP_AND_DATABASES,
    why: 'telemetry speaks OpenTelemetry only; transports call its propagation helpers',
  },
  sdk: { may: ['core', 'engine', 'expr', 'guardrails', 'telemetry'] },
  store: { may: ['core'] },
  broker: { may: ['core'] },
  identity: { may: ['core'] },
  registry: { may: ['core', 'http', 'identity'] },
  router: { may: ['core', 'http', 'sdk/client'] },
  runtime: {
    may: ['core', 'http', 'engine', 'sdk', 'identity', 'guardrails', 'telemetry'],
    forbid: ['@nats-io/*', 'kafkajs', '@aws-sdk/*'],
    why: 'event sources live beside the brokers in @weft/broker; the runtime takes them through the EventSource port',
  },
  server: { may: '*' },
  cli: {
    may: [
      'sdk',
      'server',
      'core',
      'identity',
      'engine',
      'agents',
      'telemetry',
      'registry/definitions',
      'store',
    ],
  },
  agents: { may: ['core', 'engine', 'sdk', 'guardrails'] },
  console: {
    may: ['sdk/client', 'core'],
    forbid: NODE_ONLY,
    why: 'the console runs in the browser and talks to the public HTTP API only (through @weft/sdk/client)',
  },
};

/** Folders inside a package held to a stricter rule than the package. */
export const ZONES = [
  {
    files: ['packages/sdk/src/http-client/**'],
    may: ['core'],
    forbid: NODE_ONLY,
    confine: 'packages/sdk/src/http-client',
    why: 'this folder is the browser entry @weft/sdk/client, shared with the Node SDK, which imports it, never the reverse',
  },
  {
    // The connector-service kit (`@weft/sdk/service`) serves HTTP with @weft/http and broker
    // tasks with @weft/broker/tasks; the rest of the SDK (and the `@weft/sdk` root, which must
    // not load Fastify) imports neither.
    files: ['packages/sdk/src/service/**'],
    may: ['core', 'engine', 'expr', 'guardrails', 'telemetry', 'broker/tasks', 'http'],
  },
];
