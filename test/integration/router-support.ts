/** Processes and requests of the router integration tests: real processes over loopback. */
import { spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { Agent, request } from 'undici';

export const root = fileURLToPath(new URL('../../', import.meta.url));
const weftBin = `${root}node_modules/.bin/weft`;
const tsx = 'tsx';
const exampleService = `${root}examples/connector-service/service.ts`;

/** A started child process and the first match of the line it was awaited for. */
export interface Started {
  child: ChildProcess;
  match: RegExpExecArray;
  output: () => string;
  /** Sends `signal` and resolves when the process has exited. */
  stop(signal?: NodeJS.Signals): Promise<void>;
}

/** Spawns a process and resolves once its output matches `ready`. */
export function startProcess(
  command: string,
  args: string[],
  env: NodeJS.ProcessEnv,
  ready: RegExp,
  timeoutMs = 30_000,
): Promise<Started> {
  const child = spawn(command, args, { cwd: root, env: { ...process.env, ...env, NO_COLOR: '1' } });
  let out = '';
  const stop = (signal: NodeJS.Signals = 'SIGTERM') =>
    new Promise<void>((resolve) => {
      if (child.exitCode !== null || child.signalCode !== null) return resolve();
      child.once('exit', () => resolve());
      child.kill(signal);
    });
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      void stop('SIGKILL');
      reject(new Error(`${command} ${args.join(' ')} did not start in time:\n${out}`));
    }, timeoutMs);
    const onData = (chunk: Buffer) => {
      out += chunk.toString();
      const match = ready.exec(out);
      if (match) {
        clearTimeout(timer);
        resolve({ child, match, output: () => out, stop });
      }
    };
    child.stdout.on('data', onData);
    child.stderr.on('data', onData);
    child.once('exit', (code, signal) => {
      clearTimeout(timer);
      reject(new Error(`${command} exited with ${code ?? signal} before it was ready:\n${out}`));
    });
  });
}

/** `weft server` on a free port; resolves with its URL. */
export async function startServer(args: string[], env: NodeJS.ProcessEnv) {
  const started = await startProcess(
    weftBin,
    ['server', '--port', '0', ...args],
    { DATABASE_URL: '', ...env },
    /listening on (https?:\/\/[^\s]+) \(storage/,
  );
  started.child.once('exit', () => undefined);
  return { ...started, url: started.match[1]! };
}

/** The inventory example served as a connector service, registered with `routerUrl`. */
export async function startInventory(
  routerUrl: string,
  instanceId: string,
  env: NodeJS.ProcessEnv = {},
) {
  const started = await startProcess(
    process.execPath,
    ['--import', tsx, '--conditions=source', exampleService],
    { WORKFLOW_ROUTER_URL: routerUrl, PORT: '0', INSTANCE_ID: instanceId, ...env },
    /inventory service (\S+) listening on (http:\/\/\S+)/,
  );
  return { ...started, url: started.match[2]! };
}

/** One JSON request; `dispatcher` carries TLS settings when needed. */
export async function call(
  method: 'GET' | 'POST' | 'DELETE',
  url: string,
  body?: unknown,
  options: { dispatcher?: Agent; headers?: Record<string, string> } = {},
): Promise<{ status: number; json: Record<string, unknown>; headers: Record<string, unknown> }> {
  const response = await request(url, {
    method,
    ...(options.dispatcher ? { dispatcher: options.dispatcher } : {}),
    headers: {
      ...(body !== undefined ? { 'content-type': 'application/json' } : {}),
      ...options.headers,
    },
    ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
  });
  const text = await response.body.text();
  return {
    status: response.statusCode,
    json: text ? (JSON.parse(text) as Record<string, unknown>) : {},
    headers: response.headers,
  };
}

/** Polls `check` every 20 ms until it is true; resolves with the milliseconds it took. */
export async function waitFor(
  check: () => Promise<boolean>,
  timeoutMs: number,
  what: string,
): Promise<number> {
  const start = Date.now();
  while (!(await check())) {
    if (Date.now() - start > timeoutMs)
      throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
  return Date.now() - start;
}

export const weftCommand = weftBin;
