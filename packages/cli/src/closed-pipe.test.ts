import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WeftClient } from '@weft/sdk/client';
import { createLocalKey, startServer, type RunningServer } from '@weft/server';

const weft = fileURLToPath(new URL('../bin/weft.js', import.meta.url));
const dir = mkdtempSync(join(tmpdir(), 'weft-closed-pipe-'));
let server: RunningServer;
let key: string;
let id: string;

/** 200 steps of 1 KB outputs: far more events than a pipe buffers (64 KiB). */
const MANY_EVENTS = `workflows:
  - name: chatty
    steps:
${Array.from(
  { length: 200 },
  (_, i) => `      - { name: s${i}, type: transform, input: { text: '${'x'.repeat(1024)}' } }`,
).join('\n')}
`;

beforeAll(async () => {
  const dataDir = join(dir, 'data');
  server = await startServer({ port: 0, dataDir, logLevel: 'silent' }, { logger: false });
  key = (await createLocalKey({ dataDir }, { name: 'reader' })).key;
  const client = new WeftClient({ baseUrl: server.url, apiKey: key });
  const record = await client.startExecution({ workflow: MANY_EVENTS, waitSeconds: 30 });
  expect(record.status).toBe('completed');
  id = record.execution_id;
}, 60_000);
afterAll(async () => {
  await server?.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('a reader that stops early', { timeout: 60_000 }, () => {
  it('ends `weft execution events <id> | head -1` quietly with exit 0', async () => {
    const child = spawn(
      process.execPath,
      [weft, 'execution', 'events', id, '--server', server.url, '--api-key', key],
      { stdio: ['ignore', 'pipe', 'pipe'] },
    );
    let err = '';
    child.stderr.on('data', (chunk: Buffer) => (err += chunk.toString()));
    const first = await new Promise<string>((resolve) => {
      let out = '';
      const onData = (chunk: Buffer) => {
        out += chunk.toString();
        const end = out.indexOf('\n');
        if (end < 0) return;
        // As `head -1` does: take one line and close the pipe.
        child.stdout.off('data', onData);
        child.stdout.destroy();
        resolve(out.slice(0, end));
      };
      child.stdout.on('data', onData);
    });
    const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
    expect(JSON.parse(first)).toMatchObject({ type: 'step.started', step_name: 's0' });
    expect(err).toBe('');
    expect(code).toBe(0);
  });
});
