/**
 * `network.bandwidth` of http actions: the rate a declarative http action achieves reading an
 * answer at 1MB/s, 10MB/s (the default) and 100MB/s (the most a connector may set, so weft's
 * "unlimited"), and sending a request body at 10MB/s, next to a bare `fetch` of the same answer
 * from the same loopback `node:http` server in the same run (the limit). Each case reads and
 * parses the JSON body, as the action does. The sizes make every throttled case last ~2–3 s;
 * the cases are interleaved, `WEFT_BENCH_ROUNDS` rounds (default 3), median rate.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { LocalInvoker } from '@weft/sdk';
import type { ExecutionContext } from '@weft/core';
import { shuffler } from './harness.js';

const MB = 1_000_000;
const ROUNDS = Number(process.env['WEFT_BENCH_ROUNDS'] ?? 3);

interface Case {
  readonly name: string;
  /** The configured rate in bytes a second; none for the bare transfer. */
  readonly rate: number | undefined;
  readonly bytes: number;
  readonly fn: () => Promise<void>;
}

function context(): ExecutionContext {
  const signal = new AbortController().signal;
  return {
    aborted: false,
    workflowId: 'bench',
    stepName: 'bandwidth',
    inputs: {},
    executionMode: 'local',
    environment: {},
    secrets: {},
    previousSteps: {},
    signal,
    idempotencyKey: '',
    progress: () => undefined,
  };
}

const median = (values: number[]) =>
  [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;

/** A JSON answer of about `bytes` bytes. */
const answer = (bytes: number) => JSON.stringify({ blob: 'x'.repeat(bytes - 11) });

export async function run(): Promise<void> {
  const bodies = new Map([3, 30, 100].map((mb) => [`/blob/${mb}`, answer(mb * MB)]));
  const server = createServer((req, res) => {
    const body = bodies.get(req.url ?? '');
    if (body !== undefined) return void res.end(body);
    let received = 0;
    req.on('data', (chunk: Buffer) => (received += chunk.byteLength));
    req.on('end', () => res.end(JSON.stringify({ received })));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

  const invoker = (bandwidth: string) => {
    const local = new LocalInvoker({ maxOutputBytes: 128 * 2 ** 20 });
    local.registerConnector({
      connector: {
        kind: 'http',
        name: 'api',
        namespace: 'bench',
        version: '1.0.0',
        base_url: base,
        runtime: { network: { bandwidth } },
      },
      actions: [
        { name: 'get', request: { url: '/blob/{{ inputs.mb }}' } },
        { name: 'put', request: { method: 'POST', url: '/sink', body: '{{ inputs.body }}' } },
      ],
    });
    return local;
  };
  const call = (target: LocalInvoker, action: string, input: Record<string, unknown>) => () =>
    target
      .invoke({ target: { kind: 'plugin', slug: 'api' }, action, input, context: context() })
      .then(() => undefined);
  const upload = 'u'.repeat(20 * MB);
  const cases: Case[] = [
    {
      name: 'bare fetch + JSON.parse, 100 MB (limit)',
      rate: undefined,
      bytes: 100 * MB,
      fn: async () => void JSON.parse(await (await fetch(`${base}/blob/100`)).text()),
    },
    {
      name: 'weft http action, 100MB/s (max), 100 MB',
      rate: 100 * MB,
      bytes: 100 * MB,
      fn: call(invoker('100MB/s'), 'get', { mb: 100 }),
    },
    {
      name: 'weft http action, 10MB/s (default), 30 MB',
      rate: 10 * MB,
      bytes: 30 * MB,
      fn: call(invoker('10MB/s'), 'get', { mb: 30 }),
    },
    {
      name: 'weft http action, 1MB/s, 3 MB',
      rate: MB,
      bytes: 3 * MB,
      fn: call(invoker('1MB/s'), 'get', { mb: 3 }),
    },
    {
      name: 'weft http action, 10MB/s, 20 MB request body',
      rate: 10 * MB,
      bytes: 20 * MB,
      fn: call(invoker('10MB/s'), 'put', { body: upload }),
    },
  ];
  const seconds: number[][] = cases.map(() => []);
  const shuffle = shuffler(2);
  const order = cases.map((_, i) => i);
  for (let round = 0; round < ROUNDS; round++) {
    for (const i of shuffle(order)) {
      const c = cases[i]!;
      const start = process.hrtime.bigint();
      await c.fn();
      seconds[i]!.push(Number(process.hrtime.bigint() - start) / 1e9);
    }
  }
  server.close();

  const rows = cases.map((c, i) => {
    const s = median(seconds[i]!);
    const achieved = c.bytes / s;
    return {
      name: c.name,
      seconds: s,
      achievedMBps: achieved / MB,
      rate: c.rate,
      ratio: c.rate ? achieved / c.rate : null,
    };
  });
  const header = ['case', 's (median)', 'achieved MB/s', 'set MB/s', 'achieved / set'];
  const table = rows.map((r) => [
    r.name,
    r.seconds.toFixed(2),
    r.achievedMBps.toFixed(2),
    r.rate === undefined ? '-' : String(r.rate / MB),
    r.ratio === null ? '-' : `${(r.ratio * 100).toFixed(0)}%`,
  ]);
  const widths = header.map((h, i) => Math.max(h.length, ...table.map((row) => row[i]!.length)));
  const line = (cells: readonly string[]) =>
    cells
      .map((cell, i) => (i === 0 ? cell.padEnd(widths[i]!) : cell.padStart(widths[i]!)))
      .join('  ');
  console.log('\nbandwidth: http actions under network.bandwidth (MB = 10^6 bytes)');
  console.log(line(header));
  console.log(widths.map((w) => '-'.repeat(w)).join('  '));
  for (const row of table) console.log(line(row));

  const directory = join(dirname(fileURLToPath(import.meta.url)), 'results');
  mkdirSync(directory, { recursive: true });
  const document = {
    suite: 'bandwidth',
    date: new Date().toISOString(),
    node: process.version,
    rounds: ROUNDS,
    rows,
  };
  writeFileSync(join(directory, 'bandwidth.json'), `${JSON.stringify(document, null, 2)}\n`);
}
