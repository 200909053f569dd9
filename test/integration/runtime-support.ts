import { spawn, type ChildProcess } from 'node:child_process';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';
import { createLocalKey } from '@weft/server';

const root = fileURLToPath(new URL('../../', import.meta.url));

/** A `weft server` child process over a data directory. */
export interface ServerProcess {
  url: string;
  child: ChildProcess;
}

/** Starts the server of `runtime-server-main.ts` and waits for its URL. */
export async function startServerProcess(
  dataDir: string,
  env: Record<string, string> = {},
): Promise<ServerProcess> {
  const child = spawn(
    process.execPath,
    [
      '--import',
      'tsx',
      '--conditions=source',
      `${root}test/integration/runtime-server-main.ts`,
      dataDir,
    ],
    {
      cwd: root,
      env: { ...process.env, DATABASE_URL: '', ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  const url = await new Promise<string>((resolve, reject) => {
    let out = '';
    const onData = (chunk: Buffer) => {
      out += chunk.toString();
      const match = /listening on (http:\/\/\S+)/.exec(out);
      if (match) resolve(match[1]!);
    };
    child.stdout.on('data', onData);
    child.stderr.on('data', (chunk: Buffer) => (out += chunk.toString()));
    child.once('exit', (code) => reject(new Error(`server exited with ${code}: ${out}`)));
  });
  return { url, child };
}

/** Stops a server process (SIGKILL: no goodbye) and waits for it to be gone. */
export async function kill(
  server: ServerProcess,
  signal: NodeJS.Signals = 'SIGTERM',
): Promise<void> {
  if (server.child.exitCode !== null || server.child.signalCode !== null) return;
  const exited = new Promise((resolve) => server.child.once('exit', resolve));
  server.child.kill(signal);
  await exited;
}

/** A new API key in the data directory's store: its bearer header. */
export async function bearer(dataDir: string, name = 'runtime'): Promise<string> {
  const created = await createLocalKey({ dataDir }, { name });
  return `Bearer ${created.key}`;
}

/** A connector service in this process: `POST /execute` runs `handle(action, input)`. */
export interface TestConnector {
  url: string;
  server: Server;
  close(): Promise<void>;
}

/** Starts a connector service answering the action-call protocol (docs/protocol.md#action-calls) and `GET /healthz`. */
export async function startConnector(
  handle: (action: string, input: Record<string, unknown>) => Promise<unknown> | unknown,
): Promise<TestConnector> {
  const server = createServer((request: IncomingMessage, response: ServerResponse) => {
    if (request.method === 'GET') {
      response.writeHead(200, { 'content-type': 'application/json' }).end('{"status":"ok"}');
      return;
    }
    let body = '';
    request.on('data', (chunk: Buffer) => (body += chunk.toString()));
    request.on('end', () => {
      const { action, input } = JSON.parse(body) as {
        action: string;
        input: Record<string, unknown>;
      };
      Promise.resolve()
        .then(() => handle(action, input))
        .then(
          (data) =>
            response
              .writeHead(200, { 'content-type': 'application/json' })
              .end(JSON.stringify({ status: 'success', data })),
          (error: Error) =>
            response
              .writeHead(502, { 'content-type': 'application/json' })
              .end(
                JSON.stringify({ status: 'error', code: 'BACKEND_ERROR', message: error.message }),
              ),
        );
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    server,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

/** Registers a connector with a server's router for `plugin` and its actions. */
export async function register(
  serverUrl: string,
  plugin: string,
  actions: string[],
  connector: TestConnector,
  instanceId = `${plugin}-1`,
): Promise<void> {
  const response = await fetch(`${serverUrl}/register`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({
      plugin_slug: plugin,
      version: '1.0.0',
      metadata: { instance_id: instanceId },
      url: connector.url,
      actions,
      health_check_url: `${connector.url}/healthz`,
    }),
  });
  if (!response.ok) throw new Error(`register failed: ${response.status} ${await response.text()}`);
}
