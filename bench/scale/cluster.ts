/**
 * The systems under test of the scale benchmark: N `weft server` replicas (child processes) on
 * PostgreSQL + NATS with plugin `count` served by broker from a connector service process of its
 * own, or one replica on SQLite with the in-memory broker (the service then lives in the replica,
 * since the in-memory broker is one process's). Each cluster has its own schema, NATS namespace
 * or data directory, removed by `close()`.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import pg from 'pg';
import { NatsBroker, testNamespace } from '@weft/broker';
import { createLocalKey } from '@weft/server';
import type { Counts } from './load.js';
import { pidsNamed, startChild, stopChild, type Child, type ProcessGroups } from './processes.js';

/** A running cluster. */
export interface Cluster {
  readonly replicas: readonly Child[];
  /** `Authorization` header of an API key of the cluster's store. */
  readonly auth: string;
  /** Executions finished in the store so far. */
  count(): Promise<Counts>;
  /** The processes whose CPU time the table shows. */
  readonly groups: ProcessGroups;
  close(): Promise<void>;
}

const COUNTS = `SELECT count(*) FILTER (WHERE status = 'completed') AS completed,
  count(*) FILTER (WHERE status IN ('completed', 'failed', 'canceled')) AS finished
  FROM executions`;

function pidsOf(children: readonly Child[]): () => number[] {
  return () => children.map((c) => c.child.pid!).filter((pid) => pid !== undefined);
}

/** One replica on SQLite with the in-memory broker, serving plugin `count` itself. */
export async function sqliteCluster(): Promise<Cluster> {
  const dataDir = mkdtempSync(join(tmpdir(), 'weft-bench-scale-'));
  const auth = `Bearer ${(await createLocalKey({ dataDir }, { name: 'bench' })).key}`;
  const replica = await startChild('replica.ts', {
    WEFT_BENCH_DATA_DIR: dataDir,
    WEFT_BENCH_SERVICE: 'in-process',
    WEFT_BROKER: 'memory',
    DATABASE_URL: '',
    WEFT_REPLICA_ID: 'sqlite-1',
  });
  const db = new Database(join(dataDir, 'weft.db'), { readonly: true, fileMustExist: true });
  const statement = db.prepare<[], { completed: number; finished: number }>(COUNTS);
  return {
    replicas: [replica],
    auth,
    count: () => Promise.resolve(statement.get()!),
    groups: { replicas: pidsOf([replica]) },
    close: async () => {
      await stopChild(replica.child);
      db.close();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

/**
 * `n` replicas on one PostgreSQL schema with NATS JetStream as broker, and one connector service
 * process serving plugin `count` by broker, registered with the first replica (every replica
 * reads the shared routing table).
 */
export async function postgresNatsCluster(
  databaseUrl: string,
  natsUrl: string,
  n: number,
): Promise<Cluster> {
  const schema = `weft_bench_scale_${process.pid}_${n}`;
  const namespace = testNamespace();
  const broker = `${natsUrl}?namespace=${namespace}`;
  const admin = new pg.Client({ connectionString: databaseUrl });
  await admin.connect();
  const children: Child[] = [];
  const close = async () => {
    for (const child of children.reverse()) await stopChild(child.child);
    await admin.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
    await admin.end();
    const nats = await NatsBroker.connect({ servers: [natsUrl], namespace });
    await nats.deleteNamespace();
    await nats.close();
  };
  try {
    const options = { databaseUrl, databaseSchema: schema };
    const auth = `Bearer ${(await createLocalKey(options, { name: 'bench' })).key}`;
    const env = { DATABASE_URL: databaseUrl, WEFT_BENCH_SCHEMA: schema, WEFT_BROKER: broker };
    const replicas = await Promise.all(
      Array.from({ length: n }, (_, i) =>
        startChild('replica.ts', { ...env, WEFT_REPLICA_ID: `replica-${i + 1}` }),
      ),
    );
    children.push(...replicas);
    const service = await startChild('service.ts', {
      WEFT_BROKER: broker,
      WORKFLOW_ROUTER_URL: replicas[0]!.url,
    });
    children.push(service);
    return {
      replicas,
      auth,
      count: async () => {
        const { rows } = await admin.query<{ completed: string; finished: string }>(
          COUNTS.replace('FROM executions', `FROM ${schema}.executions`),
        );
        return { completed: Number(rows[0]!.completed), finished: Number(rows[0]!.finished) };
      },
      groups: {
        replicas: pidsOf(replicas),
        service: pidsOf([service]),
        postgres: () => pidsNamed('postgres'),
        nats: () => pidsNamed('nats-server'),
      },
      close,
    };
  } catch (error) {
    await close();
    throw error;
  }
}
