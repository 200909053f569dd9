/**
 * weft's sides of the peer suite: the SDK client in `local` mode (in-process, the engine without
 * a journal) and a real server on loopback (SQLite, or PostgreSQL when a URL is given) whose
 * runtime journals every step's input and output before the next one starts, driven by
 * `POST /workflows/executions` with `Prefer: wait`. Each task is an action step (`bench.task`):
 * the server's action invoker runs it in this process, as `bench/runtime.bench.ts` does, so the
 * numbers are the runtime's own cost without a connector service's HTTP hop.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Agent, request } from 'undici';
import type { ActionInvoker } from '@weft/core';
import { loadWorkflowSource, type WorkflowDefinition } from '@weft/engine';
import { Weft } from '@weft/sdk';
import { buildServer, createLocalKey } from '@weft/server';
import { dropTestSchema } from '@weft/store';
import { checkCount, task, type Shape } from './tasks.js';

/** A system under test: one run of a shape per call, and a way to let go of it. */
export interface System {
  readonly name: string;
  run(shape: Shape): Promise<void>;
  close(): Promise<void>;
}

/** The workflow of a shape: task `k` takes task `k - 1`'s counter. */
export function workflowSource(shape: Shape): string {
  const steps = Array.from({ length: shape.tasks }, (_, k) => {
    const previous = k === 0 ? '0' : `'{{ steps.t${k - 1}.output.i }}'`;
    return `      - { name: t${k}, plugin: bench, action: task, input: { n: ${shape.n}, i: ${previous} } }`;
  });
  return `workflows:
  - name: ${shape.key}
    steps:
${steps.join('\n')}
    outputs: { i: { value: '{{ steps.t${shape.tasks - 1}.output.i }}' } }
`;
}

function definition(shape: Shape): WorkflowDefinition {
  const loaded = loadWorkflowSource(workflowSource(shape));
  if (!loaded.ok) throw new Error(loaded.diagnostics[0]!.message);
  return loaded.workflows[0]!;
}

function runTask(input: Record<string, unknown>) {
  return task(Number(input['n']), Number(input['i']));
}

/** The SDK client in `local` mode with the task as a registered handler. */
export function weftLocal(shapes: readonly Shape[]): System {
  const weft = new Weft({ executionMode: 'local', logLevel: 'silent' });
  weft.registerHandler('bench.task', runTask);
  const workflows = new Map(shapes.map((s) => [s.key, definition(s)]));
  return {
    name: 'weft local (SDK, not journaled)',
    async run(shape) {
      const result = await weft.run(workflows.get(shape.key)!, {});
      if (result.status !== 'completed') throw new Error(`weft local: ${result.status}`);
      checkCount(shape, result.outputs['i'], this.name);
    },
    close: async () => undefined,
  };
}

/** A weft server on loopback, on SQLite in a temp directory or on a PostgreSQL schema of its own. */
export async function weftServer(databaseUrl?: string): Promise<System> {
  const dataDir = mkdtempSync(join(tmpdir(), 'weft-bench-peers-'));
  const schema = `weft_bench_peers_${process.pid}`;
  const storage = databaseUrl ? { databaseUrl, databaseSchema: schema } : { dataDir };
  const invoker: ActionInvoker = { invoke: async (call) => ({ output: runTask(call.input) }) };
  const server = await buildServer(
    { ...storage, port: 0, logLevel: 'error' },
    {
      logger: false,
      runtime: { actions: { invoker: () => invoker, unavailable: async () => [] } },
    },
  );
  await server.app.listen({ port: 0, host: '127.0.0.1' });
  const url = `http://127.0.0.1:${(server.app.server.address() as AddressInfo).port}`;
  const key = `Bearer ${(await createLocalKey(storage, { name: 'bench' })).key}`;
  const agent = new Agent({ connections: 2 });
  const name = `weft server, ${databaseUrl ? 'PostgreSQL' : 'SQLite'} (journaled)`;
  return {
    name,
    async run(shape) {
      const response = await request(`${url}/workflows/executions`, {
        method: 'POST',
        dispatcher: agent,
        headers: { authorization: key, 'content-type': 'application/json', prefer: 'wait=60' },
        body: JSON.stringify({ workflow: workflowSource(shape) }),
      });
      const record = (await response.body.json()) as {
        status: string;
        result?: { outputs?: Record<string, unknown> };
      };
      if (record.status !== 'completed') throw new Error(`${name}: ${JSON.stringify(record)}`);
      checkCount(shape, record.result?.outputs?.['i'], name);
    },
    async close() {
      await agent.close();
      await server.close();
      if (databaseUrl) await dropTestSchema(databaseUrl, schema);
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

/** The physical limit: the same tasks as plain awaited function calls. */
export function bare(): System {
  const call = async (n: number, i: number) => task(n, i);
  return {
    name: 'bare awaited function calls (limit)',
    async run(shape) {
      let i = 0;
      for (let k = 0; k < shape.tasks; k++) i = (await call(shape.n, i)).i;
      checkCount(shape, i, this.name);
    },
    close: async () => undefined,
  };
}
