import { execFile } from 'node:child_process';
import { chownSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir, userInfo } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { createLocalKey } from '@weft/server';
import {
  DATABASE_URL,
  freePort,
  registerCount,
  startChild,
  startCountingConnector,
  startExecutions,
  statusCounts,
  stop,
  waitUntil,
  type Child,
  type CountingConnector,
} from './support.js';

/**
 * PostgreSQL restarted for real (`pg_ctl restart -m fast`, what `pg_ctlcluster ... restart`
 * runs) in the middle of a run. The machine's cluster is shared with the tests running in
 * parallel, so this suite makes a private cluster of its own (initdb into a temporary folder, a
 * free port, the Debian binaries of the machine's PostgreSQL) and restarts that one. Like every
 * PostgreSQL suite it runs when WEFT_TEST_DATABASE_URL is set (.ci/run sets it).
 */
const run = promisify(execFile);
const BIN = (() => {
  const root = '/usr/lib/postgresql';
  if (!existsSync(root)) return undefined;
  const versions = readdirSync(root).sort((a, b) => Number(b) - Number(a));
  const bin = versions.map((v) => join(root, v, 'bin')).find((d) => existsSync(join(d, 'pg_ctl')));
  return bin;
})();
const SKIP = !DATABASE_URL
  ? 'needs WEFT_TEST_DATABASE_URL (.ci/run sets it)'
  : !BIN
    ? 'needs the PostgreSQL server binaries under /usr/lib/postgresql/<version>/bin'
    : undefined;
const EXECUTIONS = 60;

/**
 * A private PostgreSQL cluster. PostgreSQL refuses to run as root, so under root its programs run
 * as the `postgres` user (the Debian package's), which owns the folder.
 */
class PrivateCluster {
  readonly dir = mkdtempSync(join(tmpdir(), 'weft-pg-'));
  readonly data = join(this.dir, 'data');
  readonly url: string;
  private readonly owner: { uid: number; gid: number } | undefined;

  private constructor(readonly port: number) {
    this.url = `postgres://postgres@127.0.0.1:${port}/postgres`;
    if (userInfo().uid === 0) {
      const { uid, gid } = ids('postgres');
      this.owner = { uid, gid };
      chownSync(this.dir, uid, gid);
    }
  }

  static async create(): Promise<PrivateCluster> {
    const cluster = new PrivateCluster(await freePort());
    await cluster.pg('initdb', ['-D', cluster.data, '-U', 'postgres', '--auth=trust', '--no-sync']);
    await cluster.pgCtl('start');
    return cluster;
  }

  /** `pg_ctl restart -m fast`: open connections are closed, the server is down, then back. */
  restart(): Promise<void> {
    return this.pgCtl('restart', ['-m', 'fast']);
  }

  async destroy(): Promise<void> {
    await this.pg('pg_ctl', ['-D', this.data, '-m', 'immediate', '-w', 'stop']).catch(() => {});
    rmSync(this.dir, { recursive: true, force: true });
  }

  private pgCtl(command: string, extra: string[] = []): Promise<void> {
    const options = `-p ${this.port} -c listen_addresses=127.0.0.1 -c unix_socket_directories=${this.dir} -c fsync=off`;
    return this.pg('pg_ctl', [
      '-D',
      this.data,
      '-l',
      join(this.dir, 'log'),
      '-o',
      options,
      '-w',
      ...extra,
      command,
    ]);
  }

  private async pg(program: string, args: string[]): Promise<void> {
    await run(join(BIN!, program), args, { ...this.owner, cwd: this.dir, timeout: 60_000 });
  }
}

/** When the cluster's server process started: it changes with a real restart. */
async function postmasterStart(url: string): Promise<string> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    const { rows } = await client.query<{ at: string }>(
      'SELECT pg_postmaster_start_time()::text AS at',
    );
    return rows[0]!.at;
  } finally {
    await client.end();
  }
}

function ids(user: string): { uid: number; gid: number } {
  const line = readFileSync('/etc/passwd', 'utf8')
    .split('\n')
    .find((l) => l.startsWith(`${user}:`));
  if (!line) throw new Error(`there is no user ${user} to run PostgreSQL as`);
  const [, , uid, gid] = line.split(':');
  return { uid: Number(uid), gid: Number(gid) };
}

describe.skipIf(SKIP)(
  `a private PostgreSQL cluster restarted mid-run${SKIP ? ` (skipped: ${SKIP})` : ''}`,
  () => {
    let cluster: PrivateCluster | undefined;
    let replica: Child | undefined;
    let connector: CountingConnector | undefined;
    let client: pg.Client | undefined;

    afterAll(async () => {
      if (replica) await stop(replica.child, 'SIGKILL');
      await connector?.close();
      await client?.end().catch(() => {});
      await cluster?.destroy();
    });

    it(`reconnects and completes all ${EXECUTIONS} executions; nothing acknowledged is lost`, async () => {
      cluster = await PrivateCluster.create();
      const schema = 'weft';
      const auth = `Bearer ${(await createLocalKey({ databaseUrl: cluster.url, databaseSchema: schema }, { name: 'faults' })).key}`;
      connector = await startCountingConnector(20);
      replica = await startChild('server-main.ts', [schema], {
        DATABASE_URL: cluster.url,
        WEFT_BROKER: '',
      });
      await registerCount(replica.url, connector.url);
      await startExecutions([replica.url], auth, EXECUTIONS);
      await waitUntil(() => connector!.total() >= 100, 30_000, '100 action calls');
      const startedAt = await postmasterStart(cluster.url);
      const before = connector.total();
      await cluster.restart();
      const during = connector.total() - before;
      expect(await postmasterStart(cluster.url)).not.toBe(startedAt);
      client = new pg.Client({ connectionString: cluster.url });
      await client.connect();
      await waitUntil(
        async () => (await statusCounts(client!, schema))['completed'] === EXECUTIONS,
        60_000,
        'every execution to complete',
      ).catch(async (error: Error) => {
        throw new Error(
          `${error.message}: ${JSON.stringify(await statusCounts(client!, schema))}; replica: ${replica!.output().slice(-3000)}`,
        );
      });
      const { rows } = await client.query<{ v: number }>(
        `SELECT (result::jsonb->'outputs'->>'v')::int AS v FROM ${schema}.executions`,
      );
      expect(rows.map((r) => r.v)).toEqual(Array.from({ length: EXECUTIONS }, () => 5));
      console.log(
        `fault (PostgreSQL restart): ${connector.total()} calls for ${EXECUTIONS * 5} steps (${connector.extra()} extra; ${during} calls while it restarted)`,
      );
      const health = await fetch(`${replica.url}/healthz`);
      expect(health.status).toBe(200);
    }, 120_000);
  },
);
