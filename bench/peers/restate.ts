/**
 * Restate in the peer suite: `restate-server` (the binary `@restatedev/restate-server` installs
 * for this platform) started as a child with a temporary base directory and free loopback ports,
 * a service of the TypeScript SDK served by this process on loopback and registered through the
 * admin API, and each run one call through the ingress to a handler whose every task is a
 * `ctx.run` (journaled by the server before the handler goes on). The SDK uses
 * `Promise.withResolvers` (Node 22+): on Node 20 a shim is installed before the SDK is imported.
 *
 * Neither package is a dependency of the repository (the server is a ~225 MB binary no other
 * install needs): both are installed, at the versions pinned in {@link RESTATE}, the first time
 * the suite runs, into `bench/.peers` (ignored by git, tsc, eslint and prettier). Without a
 * registry the Restate rows are skipped with the reason.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import type { Http2ServerRequest, Http2ServerResponse } from 'node:http2';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { checkCount, task } from './tasks.js';
import type { System } from './weft.js';

/** The exact versions installed on first use. */
export const RESTATE = { server: '1.7.12', sdk: '1.17.2' } as const;

/** Where they are installed: `bench/.peers` (in .gitignore). */
const CACHE = join(dirname(fileURLToPath(import.meta.url)), '..', '.peers');

/** Either a running Restate system, or why it cannot run here. */
export type RestateStart = { system: System } | { skipped: string };

/** The part of the SDK's context the handler uses. */
interface RestateContext {
  run<T>(name: string, action: () => Promise<T> | T): Promise<T>;
}

/** The part of `@restatedev/restate-sdk` this file uses (its types are not installed for tsc). */
interface RestateSdk {
  service(definition: {
    name: string;
    handlers: Record<string, (ctx: RestateContext, input: never) => Promise<unknown>>;
  }): unknown;
  endpoint(): {
    bind(service: unknown): {
      http2Handler(): (request: Http2ServerRequest, response: Http2ServerResponse) => void;
    };
  };
}

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

/** The directory of an installed package in the cache. */
function packageDir(name: string): string {
  return join(CACHE, 'node_modules', ...name.split('/'));
}

/** The version of a package installed in the cache, or undefined. */
function installedVersion(name: string): string | undefined {
  try {
    const manifest = JSON.parse(readFileSync(join(packageDir(name), 'package.json'), 'utf8')) as {
      version?: string;
    };
    return manifest.version;
  } catch {
    return undefined;
  }
}

/** The binary the server package installed for this platform. */
function binaryPath(): string {
  const binary = join(
    packageDir(`@restatedev/restate-server-${process.platform}-${process.arch}`),
    'bin',
    'restate-server',
  );
  if (!existsSync(binary))
    throw new Error(`no restate-server binary for ${process.platform}-${process.arch}`);
  return binary;
}

/**
 * Installs the pinned server and SDK into the cache unless they are there already; install
 * scripts are not run (the server's only one is an analytics ping). Resolves with why not.
 */
async function install(): Promise<string | undefined> {
  if (
    installedVersion('@restatedev/restate-server') === RESTATE.server &&
    installedVersion('@restatedev/restate-sdk') === RESTATE.sdk
  )
    return undefined;
  console.log(`installing Restate ${RESTATE.server} for the peer suite into bench/.peers (once)`);
  mkdirSync(CACHE, { recursive: true });
  // Its own project, so that npm does not walk up to the repository's workspaces.
  writeFileSync(join(CACHE, 'package.json'), '{ "private": true }\n');
  // Settings npm passes to scripts it runs (`npm run bench`) would point the install back at them.
  const env = Object.fromEntries(
    Object.entries(process.env).filter(
      ([key]) =>
        !/^npm_config_(prefix|local_prefix|workspaces?|include_workspace_root)$/i.test(key),
    ),
  );
  const args = [
    'install',
    '--prefix',
    CACHE,
    '--no-save',
    '--no-audit',
    '--no-fund',
    '--ignore-scripts',
    '--no-package-lock',
    `@restatedev/restate-server@${RESTATE.server}`,
    `@restatedev/restate-sdk@${RESTATE.sdk}`,
  ];
  let output = '';
  const child = spawn('npm', args, {
    cwd: CACHE,
    env,
    stdio: ['ignore', 'pipe', 'pipe'],
    shell: process.platform === 'win32',
    timeout: 600_000,
  });
  const keep = (chunk: Buffer) => (output = (output + chunk.toString()).slice(0, 8000));
  child.stdout.on('data', keep);
  child.stderr.on('data', keep);
  const outcome = await new Promise<number | Error | null>((resolve) => {
    child.once('error', resolve);
    child.once('close', (code) => resolve(code));
  });
  if (outcome instanceof Error) return `npm install did not start: ${outcome.message}`;
  if (outcome !== 0) {
    // npm's first error lines (code, then the message), without its stack and advice.
    const reason = output
      .split('\n')
      .filter((line) => /^npm (error|ERR!) \S/.test(line))
      .map((line) => line.replace(/^npm (error|ERR!) /, ''))
      .filter((line) => !/^(A complete log|If you are behind a proxy)/.test(line))
      .slice(0, 4)
      .join('; ');
    return `npm install of Restate ${RESTATE.server} failed (${outcome ?? 'timed out'}): ${reason}`;
  }
  return undefined;
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
    const failed = await install();
    if (failed) return { skipped: failed };
    binary = options.binary ?? binaryPath();
  } catch (error) {
    return { skipped: (error as Error).message };
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
  const name = `Restate ${RESTATE.server} (ctx.run per task)`;
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
  const restate = (await import(pathToFileURL(sdkEntry()).href)) as RestateSdk;
  const http2 = await import('node:http2');
  const service = restate.service({
    name: 'peers',
    handlers: {
      sequence: async (ctx: RestateContext, input: { tasks: number; n: number }) => {
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

/** The file `import('@restatedev/restate-sdk')` would load, from the cache's copy. */
function sdkEntry(): string {
  const directory = packageDir('@restatedev/restate-sdk');
  const manifest = JSON.parse(readFileSync(join(directory, 'package.json'), 'utf8')) as {
    exports?: Record<string, unknown>;
    module?: string;
    main?: string;
  };
  const root = manifest.exports?.['.'];
  const pick = (value: unknown): string | undefined => {
    if (typeof value === 'string') return value;
    if (value && typeof value === 'object') {
      const conditions = value as Record<string, unknown>;
      for (const condition of ['node', 'import', 'default'])
        if (condition in conditions) return pick(conditions[condition]);
    }
    return undefined;
  };
  const entry = pick(root) ?? manifest.module ?? manifest.main ?? 'index.js';
  return join(directory, entry);
}
