import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type AddressInfo, type Server, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const weft = fileURLToPath(new URL('../../bin/weft.js', import.meta.url));
const dir = mkdtempSync(join(tmpdir(), 'weft-server-stop-'));
/** A collector that takes connections and never answers. */
let collector: Server;
const held: Socket[] = [];

beforeAll(async () => {
  collector = createServer((socket) => {
    held.push(socket);
    socket.resume();
  });
  await new Promise<void>((resolve) => collector.listen(0, '127.0.0.1', resolve));
});
afterAll(async () => {
  for (const socket of held) socket.destroy();
  await new Promise((resolve) => collector.close(resolve));
  rmSync(dir, { recursive: true, force: true });
});

describe('weft server on SIGTERM', { timeout: 60_000 }, () => {
  it('exits within 2 s when the OTLP collector never answers, with one warning', async () => {
    const port = (collector.address() as AddressInfo).port;
    const child = spawn(
      process.execPath,
      [weft, 'server', '--port', '0', '--data-dir', join(dir, 'data')],
      {
        env: {
          ...process.env,
          OTEL_EXPORTER_OTLP_ENDPOINT: `http://127.0.0.1:${port}`,
          WEFT_LOG_FORMAT: 'json',
        },
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    );
    let out = '';
    child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (out += chunk.toString()));
    const url = await new Promise<string>((resolve) => {
      const look = () => {
        const found = /listening on (http:\/\/\S+)/.exec(out);
        if (found) resolve(found[1]!);
        else child.stdout.once('data', look);
      };
      look();
    });
    // A request makes a span and moves the counters: there is something to export.
    expect((await fetch(`${url}/healthz`)).status).toBe(200);
    const exited = new Promise<number | null>((resolve) => child.on('close', resolve));
    const signaled = Date.now();
    child.kill('SIGTERM');
    const code = await exited;
    const took = Date.now() - signaled;

    expect(code).toBe(0);
    expect(took).toBeLessThan(2000);
    const lines = out
      .split('\n')
      .filter((line) => line.startsWith('{'))
      .map((line) => JSON.parse(line) as { level: number; msg: string });
    const dropped = lines.filter((line) => /dropped/.test(line.msg));
    expect(dropped).toEqual([
      expect.objectContaining({
        level: 40,
        msg: expect.stringMatching(/^telemetry: the collector did not take .* dropped$/),
      }),
    ]);
    expect(held.length).toBeGreaterThan(0);
  });
});
