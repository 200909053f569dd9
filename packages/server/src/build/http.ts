import { readFileSync } from 'node:fs';
import { LogController, type FastifyInstance, type FastifyServerOptions } from 'fastify';
import { createHttpApp } from '@weft/http';
import type { Telemetry } from '@weft/telemetry/setup';
import { registerAuthConfig, SignInProvider } from '../auth-config.js';
import type { CompiledServerOptions } from '../config.js';
import { consoleDistDir, loadConsoleFiles, registerConsole } from '../console.js';
import { registerHealth } from '../health.js';
import { textLogStream } from '../log-text.js';
import { countRegistryRequests } from '../metrics.js';
import type { BuildContext } from './context.js';
import type { ServerStores } from './stores.js';

/**
 * The http phase: the one Fastify app (TLS, logging, body limit) with what needs no
 * authenticator (health, the sign-in settings, the console), counting requests. Pushes the
 * app's close: it stops serving, waits for the requests in flight and runs the `onClose` hooks
 * of what later phases mount on it.
 */
export async function openHttp(
  context: BuildContext,
  telemetry: Telemetry,
  stores: ServerStores,
): Promise<FastifyInstance> {
  const { options, dependencies, stack } = context;
  const app = await createHttpApp({
    ...httpsOptions(options),
    logger:
      dependencies.logger === false
        ? false
        : {
            level: options.logLevel,
            // JSON lines, or one readable line each (time, level, message, key=value).
            ...(dependencies.logStream
              ? { stream: dependencies.logStream }
              : options.logFormat === 'text'
                ? { stream: textLogStream((text) => process.stdout.write(text)) }
                : {}),
          },
    // Per-request lines only at debug level: the default info level logs startup and errors.
    logController: new LogController({
      disableRequestLogging: options.logLevel !== 'debug' && options.logLevel !== 'trace',
    }),
    ...(options.bodyLimit !== undefined ? { bodyLimit: options.bodyLimit } : {}),
  });
  stack.push(() => app.close());
  context.warn = (message) => app.log.warn(message);
  countRegistryRequests(app, telemetry.metrics);
  telemetry.metrics.observeProcess();
  registerHealth(app, stores.registry);
  const signIn =
    options.identity.oidc && options.identity.signIn
      ? new SignInProvider(options.identity.oidc, options.identity.signIn)
      : undefined;
  registerAuthConfig(app, signIn);
  const consoleDir = consoleDistDir();
  registerConsole(
    app,
    consoleDir ? loadConsoleFiles(consoleDir) : undefined,
    signIn ? () => signIn.connectSources() : undefined,
  );
  if (!consoleDir)
    app.log.warn('the web console is not built: /console answers 404 (npm run build)');
  return app;
}

/** Fastify's `https` options: the server certificate, and client certificates when a CA is set. */
function httpsOptions(compiled: CompiledServerOptions): FastifyServerOptions {
  const tls = compiled.tls;
  if (!tls) return {};
  return {
    https: {
      cert: readFileSync(tls.cert),
      key: readFileSync(tls.key),
      ...(tls.clientCa
        ? { ca: readFileSync(tls.clientCa), requestCert: true, rejectUnauthorized: false }
        : {}),
    },
  } as FastifyServerOptions;
}
