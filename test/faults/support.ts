import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import { createServer as createTcpServer, type AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
// The fault tests run the scale benchmark's 5-step workflow (each step adds 1).
import { FIVE_STEPS } from '../../bench/scale/workload.js';

const root = fileURLToPath(new URL('../../', import.meta.url));

/** PostgreSQL and NATS of the machine, when the environment names them. */
export const DATABASE_URL = process.env['WEFT_TEST_DATABASE_URL'];
export const NATS_URL = process.env['WEFT_TEST_NATS_URL'];
/** Why a fault suite is skipped, or undefined when it runs. */
export const SKIP_REASON =
  !DATABASE_URL || !NATS_URL
    ? 'fault tests need WEFT_TEST_DATABASE_URL and WEFT_TEST_NATS_URL (.ci/run sets both)'
    : undefined;

/** A TCP port nobody listens on right now (for a private server a test starts). */
export async function freePort(): Promise<number> {
  const server = createTcpServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

/** A fresh name: schema, NATS namespace, application_name. */
export function uniqueName(prefix: string): string {
  return `${prefix}_${randomBytes(5).toString('hex')}`;
}

/** A child process that printed `listening on <url>`. */
export interface Child {
  url: string;
  child: ChildProcess;
  output: () => string;
}

/** Runs a TypeScript file of this folder from source and waits for its `listening on` line. */
export function startChild(
  file: string,
  args: string[],
  env: Record<string, string>,
): Promise<Child> {
  return startNode(file, [`${root}test/faults/${file}`, ...args], env);
}

/**
 * Runs an ES module given as source text (`node -e`, from the repository root, so `@weft/*`
 * resolve to their sources) and waits for its `listening on` line.
 */
export function startInline(
  name: string,
  source: string,
  env: Record<string, string>,
): Promise<Child> {
  return startNode(name, ['--input-type=module', '-e', source], env);
}

async function startNode(
  file: string,
  args: string[],
  env: Record<string, string>,
): Promise<Child> {
  const child = spawn(process.execPath, ['--import', 'tsx', '--conditions=source', ...args], {
    cwd: root,
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`${file} did not start: ${out}`)), 30_000);
    child.stdout.on('data', (chunk: Buffer) => {
      out += chunk.toString();
      const match = /listening on (\S+)/.exec(out);
      if (match) {
        clearTimeout(timer);
        resolve(match[1]!);
      }
    });
    child.stderr.on('data', (chunk: Buffer) => (out += chunk.toString()));
    child.once('exit', (code, signal) => {
      clearTimeout(timer);
      reject(new Error(`${file} exited (${code ?? signal}): ${out}`));
    });
  });
  return { url, child, output: () => out };
}

/** Sends `signal` and waits for the process to be gone. */
export async function stop(child: ChildProcess, signal: NodeJS.Signals = 'SIGTERM'): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.kill(signal);
  await exited;
}

/** Polls `check` every 50 ms until it is true; throws after `ms`. */
export async function waitUntil(
  check: () => Promise<boolean> | boolean,
  ms: number,
  what: string,
): Promise<void> {
  const deadline = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** A pg client on the test database (for counting executions and dropping the schema). */
export async function adminClient(): Promise<pg.Client> {
  const client = new pg.Client({ connectionString: DATABASE_URL });
  await client.connect();
  return client;
}

/** Execution counts of a schema by status. */
export async function statusCounts(client: pg.Client, schema: string) {
  const { rows } = await client.query<{ status: string; n: string }>(
    `SELECT status, count(*) AS n FROM ${schema}.executions GROUP BY status`,
  );
  return Object.fromEntries(rows.map((r) => [r.status, Number(r.n)])) as Record<string, number>;
}

/**
 * A connector service in the test process that counts calls per `Idempotency-Key` (so calls made
 * by replicas that were killed are counted too). Its action `step` adds 1 to `input.v` after
 * `delayMs`.
 */
export interface CountingConnector {
  url: string;
  calls: Map<string, number>;
  /** Calls received so far. */
  total(): number;
  /** Calls beyond the first of each key. */
  extra(): number;
  close(): Promise<void>;
}

/** Starts a {@link CountingConnector}. */
export async function startCountingConnector(delayMs: number): Promise<CountingConnector> {
  const calls = new Map<string, number>();
  let total = 0;
  const server: Server = createServer((request, response) => {
    if (request.method === 'GET') {
      response.writeHead(200, { 'content-type': 'application/json' }).end('{"status":"ok"}');
      return;
    }
    let body = '';
    request.on('data', (chunk: Buffer) => (body += chunk.toString()));
    request.on('end', () => {
      const key = String(request.headers['idempotency-key'] ?? '');
      total++;
      calls.set(key, (calls.get(key) ?? 0) + 1);
      const { input } = JSON.parse(body) as { input: { v: number } };
      setTimeout(() => {
        response
          .writeHead(200, { 'content-type': 'application/json' })
          .end(JSON.stringify({ status: 'success', data: { v: input.v + 1 } }));
      }, delayMs);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    calls,
    total: () => total,
    extra: () => [...calls.values()].reduce((sum, n) => sum + n - 1, 0),
    close: () => {
      server.closeAllConnections();
      return new Promise((resolve) => server.close(() => resolve()));
    },
  };
}

/** Registers an instance of plugin `count` with a replica's router. */
export async function registerCount(
  serverUrl: string,
  url: string,
  metadata: Record<string, string> = {},
): Promise<void> {
  const response = await fetch(`${serverUrl}/register`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({
      plugin_slug: 'count',
      version: '1.0.0',
      url,
      actions: ['step'],
      metadata: { instance_id: 'count-1', ...metadata },
    }),
  });
  if (!response.ok) throw new Error(`register: ${response.status} ${await response.text()}`);
}

/** Starts `n` executions of {@link FIVE_STEPS}, spread over `servers` (10 requests at a time). */
export async function startExecutions(servers: string[], auth: string, n: number): Promise<void> {
  let next = 0;
  const worker = async () => {
    for (let i = next++; i < n; i = next++) {
      const response = await fetch(`${servers[i % servers.length]}/workflows/executions`, {
        method: 'POST',
        headers: { authorization: auth, 'content-type': 'application/json' },
        body: JSON.stringify({ workflow_file: FIVE_STEPS }),
      });
      if (response.status !== 202)
        throw new Error(`start: ${response.status} ${await response.text()}`);
    }
  };
  await Promise.all(Array.from({ length: 10 }, worker));
}

/** Drops a test schema. */
export async function dropSchema(schema: string): Promise<void> {
  const client = await adminClient();
  try {
    await client.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
  } finally {
    await client.end();
  }
}
