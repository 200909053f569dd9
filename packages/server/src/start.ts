import { buildServer, type BuiltServer, type ServerDependencies } from './build.js';
import type { ServerOptions } from './config.js';

/** A listening server. */
export interface RunningServer extends BuiltServer {
  /** `http://host:port` (`https://` with TLS). */
  url: string;
}

/** Builds the server and listens; logs one line with its URL and storage. */
export async function startServer(
  options: ServerOptions = {},
  dependencies: ServerDependencies = {},
): Promise<RunningServer> {
  const built = await buildServer(options, dependencies);
  const { host, port } = built.options;
  const visibility = built.options.private ? 'private' : 'public';
  try {
    await built.app.listen({
      host,
      port,
      listenTextResolver: (address) =>
        `weft server listening on ${address} (storage ${built.storage}, ${visibility} registry)`,
    });
  } catch (error) {
    await built.close();
    throw error;
  }
  const address = built.app.server.address();
  const actualPort = typeof address === 'object' && address ? address.port : port;
  const shownHost = host.includes(':') ? `[${host}]` : host;
  const scheme = built.options.tls ? 'https' : 'http';
  return { ...built, url: `${scheme}://${shownHost}:${actualPort}` };
}

/** Closes `server` on the first SIGTERM or SIGINT; resolves when it has closed. */
export function closeOnSignals(
  server: RunningServer,
  signals: NodeJS.Signals[] = ['SIGTERM', 'SIGINT'],
): Promise<NodeJS.Signals> {
  return new Promise((resolve) => {
    const onSignal = (signal: NodeJS.Signals) => {
      for (const s of signals) process.off(s, onSignal);
      server.app.log.info({ signal }, 'shutting down');
      void server.close().then(() => resolve(signal));
    };
    for (const s of signals) process.on(s, onSignal);
  });
}
