import { hostname } from 'node:os';
import Fastify, { type FastifyInstance } from 'fastify';
import type { Logger } from 'pino';
import {
  INSTANCE_ID_PATTERN,
  ValidationError,
  type Broker,
  type RegistrationResponse,
  type Subscription,
} from '@weft/core';
import type { ConsumeTasksOptions } from '@weft/broker/tasks';
import { createLogger } from '../client/logging.js';
import type { ActionHandler } from '../handlers/handler.js';
import { LocalInvoker } from '../invoker/local-invoker.js';
import { sandboxLogLine, type SandboxOptions } from '../sandbox/index.js';
import { ConnectorHost } from './host.js';
import type { HealthChecks } from './health.js';
import { connectorServiceRoutes } from './routes.js';
import { serveTasks } from './tasks.js';
import {
  deregisterFromRouter,
  registerWithRouter,
  routerAgent,
  type ClientTls,
  type RetryPolicy,
} from './router-client.js';
import { processEnvironment } from '../client/environment.js';

/** Options of {@link createConnectorService}. */
export interface ConnectorServiceOptions {
  /** The connector definition (packages/sdk/CONNECTORS.md#definitions): an object, or the path of a YAML/JSON file. */
  connector: object | string;
  /** Handlers by `<plugin>.<action>` or by bare action name, or an object with `@handler` methods. */
  handlers?: Record<string, ActionHandler<never>> | object;
  /** Port to listen on (0: any free one). Default: the port of `serviceUrl`, else 0. */
  port?: number;
  /** Interface to listen on. Default 127.0.0.1 (use 0.0.0.0 to serve other machines). */
  host?: string;
  /** The router to register with. Default `WORKFLOW_ROUTER_URL`; none: no registration. */
  routerUrl?: string;
  /** This service's base URL as the router reaches it. Default `WORKFLOW_SERVICE_URL`, else http://host:port. */
  serviceUrl?: string;
  /** Bearer token of the router's registration. Default `WEFT_ROUTER_TOKEN`. */
  routerToken?: string;
  /** Client certificate for a router that requires mutual TLS. */
  tls?: ClientTls;
  /** `metadata.instance_id`. Default `<hostname>-<port>` (stable across restarts). */
  instanceId?: string;
  /** `metadata.region`. */
  region?: string;
  /** Dependency checks of `GET /healthz`. */
  healthChecks?: HealthChecks;
  /** Registration retry policy (default: forever, 200 ms doubling to 5 s). */
  retry?: RetryPolicy;
  /**
   * Registers again every this many ms (idempotent: health history is kept), so that an instance
   * the router dropped after a network partition comes back. Default 30000; 0: never.
   */
  reregisterMs?: number;
  /** Deregister and close on SIGTERM and SIGINT. Default true. */
  handleSignals?: boolean;
  /** Environment of `${VAR}` in the definition and of handlers. Default: the process's. */
  environment?: Record<string, string | undefined>;
  /** Default: JSON lines on stderr at info level. */
  logger?: Logger;
  /**
   * Also serve by broker: consume `platform.workflow.<plugin_slug>` (docs/protocol.md#broker-tasks) in the
   * plugin's consumer group and publish results on `platform.workflow.results`. The broker is the
   * caller's (`connectBroker(process.env.WEFT_BROKER)`); `close()` stops consuming, not the broker.
   */
  broker?: Broker;
  /** Consumer settings of the task topic (ack timeout, deliveries before dead-lettering...). */
  taskOptions?: Omit<ConsumeTasksOptions, 'broker' | 'pluginSlug' | 'handle'>;
  /**
   * `metadata.transport` registered with the router: `broker` (the server sends this plugin's
   * actions as task messages; the default with `broker`) or `http` (`POST /execute`; the default
   * without). `POST /execute` is served either way.
   */
  transport?: 'http' | 'broker';
  /**
   * Recent idempotency keys remembered to answer a call delivered twice without running it again
   * (HTTP and broker alike). Default 1000; 0: off.
   */
  recentResults?: number;
  /**
   * The sandbox of a `shell` connector's actions (docs/workflow-language.md#connector-runtime):
   * `mode`, `cgroupParent`, `scratchRoot`, `warn` (default: a warning on `logger`). Default:
   * strict, parent group `weft` below this process's own. A shell connector's service opens it
   * at start and logs which limits this host enforces.
   */
  sandbox?: SandboxOptions;
}

/** A running connector service. */
export interface ConnectorService {
  /** The Fastify app serving `POST /execute` and `GET /healthz`. */
  readonly app: FastifyInstance;
  readonly host: ConnectorHost;
  /** The base URL registered with the router. */
  readonly url: string;
  readonly pluginSlug: string;
  readonly instanceId: string;
  /** The router's answer, when the service registered. */
  readonly registration: RegistrationResponse | undefined;
  /** The task consumer, when serving by broker. */
  readonly tasks: Subscription | undefined;
  /** Deregisters from the router, then stops serving. Idempotent. */
  close(): Promise<void>;
}

/**
 * Serves one connector as an HTTP connector service (docs/protocol.md#connector-services): `POST /execute` runs its
 * actions (docs/protocol.md#action-calls: input checked against the action's schema, the connector's timeout and
 * concurrency cap), `GET /healthz` answers health (docs/protocol.md#health). Once listening it registers with the router
 * (docs/router.md#registration), retrying with backoff until the router answers, and it deregisters on `close()`,
 * SIGTERM and SIGINT.
 */
export async function createConnectorService(
  options: ConnectorServiceOptions,
): Promise<ConnectorService> {
  const env = processEnvironment();
  const environment = options.environment ?? env;
  const logger = options.logger ?? createLogger('info', 'json', process.stderr);
  const invoker = new LocalInvoker({
    environment,
    sandbox: { warn: (message) => logger.warn(message), ...options.sandbox },
  });
  const compiled =
    typeof options.connector === 'string'
      ? await invoker.loadConnectorFile(options.connector)
      : invoker.registerConnector(options.connector);
  const sandbox = compiled.kind === 'shell' ? await invoker.shellSandbox() : undefined;
  if (sandbox) {
    const line = sandboxLogLine(sandbox);
    logger.info({ plugin: compiled.name, ...line.fields }, line.message);
  }
  registerHandlers(invoker, compiled.name, options.handlers);
  const pluginSlug = compiled.slug ?? compiled.name;
  const host = new ConnectorHost({
    invoker,
    environment,
    recentResults: options.recentResults ?? 1000,
    ...(options.healthChecks ? { healthChecks: options.healthChecks } : {}),
  });
  const routerUrl = options.routerUrl ?? (env['WORKFLOW_ROUTER_URL'] || undefined);
  const serviceUrl = options.serviceUrl ?? (env['WORKFLOW_SERVICE_URL'] || undefined);
  const token = options.routerToken ?? (env['WEFT_ROUTER_TOKEN'] || undefined);
  const port = options.port ?? (serviceUrl ? portOf(serviceUrl) : 0);
  const listenHost = options.host ?? '127.0.0.1';

  const app = Fastify({ logger: false });
  await app.register(connectorServiceRoutes(host));
  await app.listen({ port, host: listenHost });
  const address = app.server.address();
  const actualPort = typeof address === 'object' && address ? address.port : port;
  const url = (
    serviceUrl ??
    `http://${listenHost.includes(':') ? `[${listenHost}]` : listenHost}:${actualPort}`
  ).replace(/\/+$/, '');
  const instanceId =
    options.instanceId ?? `${hostname()}-${actualPort}`.replace(/[^A-Za-z0-9._:-]/g, '-');
  if (!new RegExp(INSTANCE_ID_PATTERN).test(instanceId)) {
    await app.close();
    sandbox?.close();
    throw new ValidationError(
      `instanceId "${instanceId}" may hold letters, digits, ., _, : and - only`,
      {
        field: 'instanceId',
        constraint: 'pattern',
      },
    );
  }

  const agent = routerAgent(options.tls);
  const stop = new AbortController();
  let closing: Promise<void> | undefined;
  let registration: RegistrationResponse | undefined;
  let renew: NodeJS.Timeout | undefined;
  let tasks: Subscription | undefined;
  const close = (): Promise<void> =>
    (closing ??= (async () => {
      clearInterval(renew);
      stop.abort(new Error('the connector service is closing'));
      removeSignals();
      await tasks?.stop();
      if (registration && routerUrl) {
        const done = await deregisterFromRouter(routerUrl, pluginSlug, instanceId, {
          agent,
          ...(token ? { token } : {}),
        });
        logger.info(
          { plugin: pluginSlug, instance_id: instanceId, deregistered: done },
          'left the router',
        );
      }
      await app.close();
      await agent.close();
      sandbox?.close();
    })());

  const onSignal = (signal: NodeJS.Signals) => {
    logger.info({ signal }, 'shutting down the connector service');
    void close().then(() => {
      if (process.listenerCount(signal) === 0) process.kill(process.pid, signal);
    });
  };
  const signals: NodeJS.Signals[] = options.handleSignals === false ? [] : ['SIGTERM', 'SIGINT'];
  for (const s of signals) process.once(s, onSignal);
  function removeSignals() {
    for (const s of signals) process.off(s, onSignal);
  }

  if (options.broker) {
    tasks = await serveTasks(host, options.broker, pluginSlug, logger, options.taskOptions);
  }
  const transport = options.transport ?? (options.broker ? 'broker' : 'http');
  if (routerUrl) {
    const record = {
      plugin_slug: pluginSlug,
      version: compiled.version,
      url,
      actions: [...compiled.actions.keys()],
      health_check_url: `${url}/healthz`,
      metadata: {
        instance_id: instanceId,
        ...(transport === 'broker' ? { transport } : {}),
        ...(options.region ? { region: options.region } : {}),
      },
    };
    const base = { agent, ...(token ? { token } : {}), signal: stop.signal };
    try {
      registration = await registerWithRouter(routerUrl, record, {
        ...base,
        ...(options.retry ? { retry: options.retry } : {}),
        onRetry: (attempt, error) =>
          logger.warn(
            { attempt, err: error, router: routerUrl },
            'router registration failed; retrying',
          ),
      });
      logger.info(
        { plugin: pluginSlug, instance_id: instanceId, url, router: routerUrl },
        'registered with the router',
      );
    } catch (error) {
      await close();
      throw error;
    }
    const every = options.reregisterMs ?? 30_000;
    if (every > 0) {
      renew = setInterval(() => {
        registerWithRouter(routerUrl, record, { ...base, retry: { maxAttempts: 1 } }).catch(
          (error: unknown) => {
            if (!stop.signal.aborted) {
              logger.warn({ err: error, router: routerUrl }, 'registering again failed');
            }
          },
        );
      }, every);
      renew.unref();
    }
  }
  return {
    app,
    host,
    url,
    pluginSlug,
    instanceId,
    get registration() {
      return registration;
    },
    tasks,
    close,
  };
}

function registerHandlers(
  invoker: LocalInvoker,
  plugin: string,
  handlers: ConnectorServiceOptions['handlers'],
) {
  if (!handlers) return;
  if (Object.getPrototypeOf(handlers) !== Object.prototype) {
    invoker.registerHandlers(handlers);
    return;
  }
  for (const [key, fn] of Object.entries(handlers as Record<string, ActionHandler<never>>)) {
    invoker.registerHandler(key.includes('.') ? key : `${plugin}.${key}`, fn as ActionHandler);
  }
}

function portOf(serviceUrl: string): number {
  try {
    const url = new URL(serviceUrl);
    return url.port ? Number(url.port) : url.protocol === 'https:' ? 443 : 80;
  } catch {
    throw new ValidationError(`serviceUrl "${serviceUrl}" is not an absolute URL`, {
      field: 'serviceUrl',
      constraint: 'url',
    });
  }
}
