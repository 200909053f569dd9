import { statSync } from 'node:fs';
import { Option, type Command } from 'commander';
import {
  closeOnSignals,
  serverOptionsFromEnv,
  startServer,
  type ServerOptions,
} from '@weft/server';
import { EXIT } from '../exit-codes.js';
import type { Io } from '../io.js';
import { guard } from '../command-errors.js';

interface ServerFlags {
  port: string;
  host: string;
  dataDir: string;
  databaseUrl?: string;
  workflows?: string;
  agents?: string;
  broker?: string;
  private?: boolean;
  publicUrl?: string;
  logLevel?: string;
  logFormat?: 'json' | 'text';
  tlsCert?: string;
  tlsKey?: string;
  tlsClientCa?: string;
}

/** `weft server`: the platform server (registry today), until SIGTERM or SIGINT. */
export function registerServer(program: Command, io: Io, setExit: (code: number) => void): void {
  program
    .command('server')
    .option('--port <port>', 'TCP port (0: any free port)', '8080')
    .option('--host <host>', 'interface to listen on', '127.0.0.1')
    .option('--data-dir <dir>', 'where the embedded SQLite store lives', './.weft')
    .option('--database-url <url>', 'use PostgreSQL (default: DATABASE_URL)')
    .option(
      '--broker <url>',
      'broker for task dispatch: memory, nats://host:port or kafka://host:port (default: WEFT_BROKER)',
    )
    .option(
      '--workflows <dir>',
      'deploy every workflow file of this directory now and whenever a file changes',
    )
    .option(
      '--agents <dir>',
      'agent definitions for agent steps (default: WEFT_AGENTS_DIR, else ./agents if present)',
    )
    .option('--private', 'private registry: reads need a key too (default: WEFT_REGISTRY_PRIVATE)')
    .option('--public-url <url>', 'base of absolute URLs in answers (default: from the request)')
    .option('--log-level <level>', 'pino level: fatal, error, warn, info, debug (default: info)')
    .addOption(
      new Option(
        '--log-format <format>',
        'log lines as readable text (time, level, message, key=value) or JSON lines (default: WEFT_LOG_FORMAT, else text on a terminal, JSON otherwise)',
      ).choices(['json', 'text']),
    )
    .option('--tls-cert <file>', 'serve HTTPS with this PEM certificate (needs --tls-key)')
    .option('--tls-key <file>', 'PEM private key of --tls-cert')
    .option(
      '--tls-client-ca <file>',
      'mutual TLS: router routes need a client certificate signed by this PEM CA',
    )
    .addHelpText(
      'after',
      '\nRouter settings from the environment: WEFT_ROUTER_TOKEN (registration bearer token),\n' +
        'WEFT_ROUTER_OPEN_EXECUTE=true (POST /execute without an API key: private networks only),\n' +
        'WEFT_HEALTH_INTERVAL_MS (10000), WEFT_HEALTH_TIMEOUT_MS (2000), WEFT_HEALTH_FAILURES (3),\n' +
        'WEFT_ROUTER_TIMEOUT_MS (120000), WEFT_EGRESS_ALLOWLIST (comma-separated CIDRs).\n' +
        'Triggers: WEFT_TRUSTED_PROXIES (proxies whose X-Forwarded-For webhooks believe),\n' +
        'WEFT_WORKFLOWS_OWNER (owner of --workflows runs, default local), WEFT_WORKFLOWS_ROLES and\n' +
        'WEFT_WORKFLOWS_PERMISSIONS (comma-separated: what --workflows runs act as; without them a\n' +
        'workflow with authorization enabled there is refused at start), WEFT_EVENTS_NATS_URL,\n' +
        'WEFT_EVENTS_KAFKA_BROKERS, WEFT_EVENTS_SQS=true; a webhook secret_name is read from the\n' +
        'variable of that name, then WEFT_SECRET_<NAME>.\n' +
        'Scale-out: DATABASE_URL (PostgreSQL shared by every replica), WEFT_BROKER (NATS or Kafka),\n' +
        'WEFT_REPLICA_ID (name in GET /metrics and of its leases: unique per running replica).\n' +
        'Retention: WEFT_RETENTION_DAYS (ended executions, default 30, 0 keeps them forever),\n' +
        'WEFT_AUDIT_RETENTION_DAYS (audit entries, default 0: forever).\n' +
        'Identity: WEFT_OIDC_ISSUER and WEFT_OIDC_AUDIENCE accept tokens of an OpenID Connect\n' +
        'provider beside API keys (WEFT_OIDC_JWKS_URL, WEFT_OIDC_ROLES_CLAIM (roles),\n' +
        'WEFT_OIDC_PERMISSIONS_CLAIM (permissions), WEFT_OIDC_CLOCK_TOLERANCE (30 s));\n' +
        'WEFT_OIDC_CLIENT_ID (the console signs in with the provider: code + PKCE; WEFT_OIDC_NAME,\n' +
        'WEFT_OIDC_SCOPE (openid));\n' +
        "Workspaces: WEFT_OIDC_OWNER_CLAIM (the claim naming a token's workspace, e.g. org_id) or\n" +
        'WEFT_OIDC_OWNER (one workspace for the issuer; neither: oidc-users); WEFT_OIDC_AUDITOR_ROLES\n' +
        "(comma-separated: holders read their workspace's audit log);\n" +
        'WEFT_ACCESS_FILE grants permissions by role (YAML, reloaded on change). See docs/authorization.md.',
    )
    .action(async (flags: ServerFlags) =>
      guard(io, setExit, async () => {
        const port = Number(flags.port);
        if (!Number.isInteger(port) || port < 0 || port > 65535) {
          io.err(`error: --port must be a port number, not ${flags.port}\n`);
          return EXIT.invalid;
        }
        if ((flags.tlsCert === undefined) !== (flags.tlsKey === undefined)) {
          io.err('error: --tls-cert and --tls-key go together\n');
          return EXIT.invalid;
        }
        if (flags.tlsClientCa !== undefined && flags.tlsCert === undefined) {
          io.err('error: --tls-client-ca needs --tls-cert and --tls-key\n');
          return EXIT.invalid;
        }
        if (flags.workflows !== undefined && !isDirectory(flags.workflows)) {
          io.err(`error: --workflows must be a directory of workflow files: ${flags.workflows}\n`);
          return EXIT.invalid;
        }
        const fromEnv = serverOptionsFromEnv(process.env);
        const options: ServerOptions = {
          ...fromEnv,
          ...(flags.workflows
            ? { triggers: { ...fromEnv.triggers, workflowsDir: flags.workflows } }
            : {}),
          port,
          host: flags.host,
          dataDir: flags.dataDir,
          ...(flags.databaseUrl ? { databaseUrl: flags.databaseUrl } : {}),
          ...(flags.broker ? { broker: flags.broker } : {}),
          ...(flags.agents ? { agentsDir: flags.agents } : {}),
          ...(flags.private ? { private: true } : {}),
          ...(flags.publicUrl ? { publicUrl: flags.publicUrl } : {}),
          ...(flags.logLevel ? { logLevel: flags.logLevel } : {}),
          logFormat:
            flags.logFormat ?? fromEnv.logFormat ?? (process.stdout.isTTY ? 'text' : 'json'),
          ...(flags.tlsCert && flags.tlsKey
            ? {
                tls: {
                  cert: flags.tlsCert,
                  key: flags.tlsKey,
                  ...(flags.tlsClientCa ? { clientCa: flags.tlsClientCa } : {}),
                },
              }
            : {}),
        };
        const server = await startServer(options);
        await closeOnSignals(server);
        // The server is closed: nothing it left behind (an export still retrying to a telemetry
        // collector that is gone) may hold the process. The timer does not hold it either.
        setTimeout(() => process.exit(), 100).unref();
        return EXIT.ok;
      }),
    );
}

function isDirectory(path: string): boolean {
  try {
    return statSync(path).isDirectory();
  } catch {
    return false;
  }
}
