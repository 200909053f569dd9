/**
 * Restate in the peer suite: `restate-server` (the binary `@restatedev/restate-server` installs
 * for this platform) started as a child with a temporary base directory and free loopback ports,
 * a service of the TypeScript SDK served by this process on loopback and registered through the
 * admin API, and each run one call through the ingress to a handler whose every task is a
 * `ctx.run` (journaled by the server before the handler goes on). The SDK uses
 * `Promise.withResolvers` (Node 22+): on Node 20 a shim is installed before the SDK is imported.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { checkCount, task } from './tasks.js';
import type { System } from './weft.js';

/** Either a running Restate system, or why it cannot run here. */
export type RestateStart = { system: System } | { skipped: string };

/** `Promise.withResolvers` for Node 20, where V8 does not have it yet. */
function shimWithResolvers(): void {
  const P = Promise as unknown as { withResolvers?: () => unknown };
  if (typeof P.withResolvers === 'function') return;
  P.withResolvers = <T>() => {
    let resolve!: (value: T | PromiseLike<T>) => void;
    let reject!: (reason?: unknown) => void;
    const promise = new Promise<T>((res, rej) => {
      resolve = res;
      reject = rej;
    });
    return { promise, resolve, reject };
  };
}

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

const require = createRequire(import.meta.url);

/** The binary of this platform's package, or why there is none. */
function binaryPath(): string {
  const name = `@restatedev/restate-server-${process.platform}-${process.arch}`;
  return require.resolve(`${name}/bin/restate-server`);
}

async function waitHealthy(url: string, child: ChildProcess, log: () => string): Promise<void> {
  const deadline = Date.now() + 30_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`exited ${child.exitCode}: ${log().slice(-400)}`);
    try {
      const response = await fetch(url);
      if (response.ok) return;
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline) throw new Error(`not healthy after 30 s: ${log().slice(-400)}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

async function stop(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.kill('SIGTERM');
  const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
  await exited;
  clearTimeout(timer);
}

/**
 * Starts restate-server and the SDK endpoint, registers the deployment, and returns the system;
 * anything that fails on the way is given back as the reason to skip (everything started is
 * stopped and the temporary directory removed).
 */
export async function startRestate(options: { binary?: string } = {}): Promise<RestateStart> {
  let binary: string;
  try {
    binary = options.binary ?? binaryPath();
  } catch (error) {
    return { skipped: `no restate-server binary for this platform (${(error as Error).message})` };
  }
  const baseDir = mkdtempSync(join(tmpdir(), 'weft-bench-restate-'));
  const [admin, ingress, fabric] = [await freePort(), await freePort(), await freePort()];
  let output = '';
  const child = spawn(
    binary,
    ['--no-logo', '--listen-mode', 'tcp', '--node-name', 'bench', '--base-dir', baseDir],
    {
      stdio: ['ignore', 'pipe', 'pipe'],
      env: {
        PATH: process.env['PATH'] ?? '',
        RESTATE_ADMIN__BIND_ADDRESS: `127.0.0.1:${admin}`,
        RESTATE_INGRESS__BIND_ADDRESS: `127.0.0.1:${ingress}`,
        RESTATE_BIND_ADDRESS: `127.0.0.1:${fabric}`,
        RESTATE_ADVERTISED_ADDRESS: `http://127.0.0.1:${fabric}`,
        RESTATE_DEFAULT_NUM_PARTITIONS: '1',
        RESTATE_DISABLE_TELEMETRY: 'true',
        RESTATE_LOG_FORMAT: 'compact',
        RESTATE_LOG_FILTER: 'warn',
      },
    },
  );
  const keep = (chunk: Buffer) => (output = (output + chunk.toString()).slice(-4000));
  child.stdout!.on('data', keep);
  child.stderr!.on('data', keep);
  const spawned = await new Promise<Error | undefined>((resolve) => {
    child.once('spawn', () => resolve(undefined));
    child.once('error', resolve);
  });
  let endpoint: { close(): void } | undefined;
  const cleanUp = async () => {
    endpoint?.close();
    await stop(child);
    rmSync(baseDir, { recursive: true, force: true });
  };
  try {
    if (spawned) throw spawned;
    await waitHealthy(`http://127.0.0.1:${admin}/health`, child, () => output);
    await waitHealthy(`http://127.0.0.1:${ingress}/restate/health`, child, () => output);
    const served = await serveEndpoint();
    endpoint = served.server;
    const registered = await fetch(`http://127.0.0.1:${admin}/deployments`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ uri: `http://127.0.0.1:${served.port}` }),
    });
    if (!registered.ok)
      throw new Error(`registration: ${registered.status} ${await registered.text()}`);
  } catch (error) {
    await cleanUp();
    return { skipped: `restate-server did not start here: ${(error as Error).message}` };
  }
  const { version } = require('@restatedev/restate-server/package.json') as { version: string };
  const name = `Restate ${version} (ctx.run per task)`;
  return {
    system: {
      name,
      async run(shape) {
        const response = await fetch(`http://127.0.0.1:${ingress}/peers/sequence`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ tasks: shape.tasks, n: shape.n }),
        });
        if (!response.ok) throw new Error(`${name}: ${response.status} ${await response.text()}`);
        checkCount(shape, ((await response.json()) as { i: number }).i, name);
      },
      close: cleanUp,
    },
  };
}

/** The SDK's service (`peers/sequence`) on an HTTP/2 server on a free loopback port. */
async function serveEndpoint(): Promise<{ port: number; server: { close(): void } }> {
  shimWithResolvers();
  // The SDK's console logger reads its level from the environment: errors only (its one warning,
  // that requests are not signed, is what a loopback-only endpoint of a benchmark expects).
  process.env['RESTATE_LOGGING'] ??= 'ERROR';
  const restate = await import('@restatedev/restate-sdk');
  const http2 = await import('node:http2');
  const service = restate.service({
    name: 'peers',
    handlers: {
      sequence: async (
        ctx: import('@restatedev/restate-sdk').Context,
        input: { tasks: number; n: number },
      ) => {
        let i = 0;
        for (let k = 0; k < input.tasks; k++) {
          const previous = i;
          i = (await ctx.run(`t${k}`, () => task(input.n, previous))).i;
        }
        return { i };
      },
    },
  });
  const server = http2.createServer(restate.endpoint().bind(service).http2Handler());
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  return { port, server };
}
