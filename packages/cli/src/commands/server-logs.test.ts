import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';

const weft = fileURLToPath(new URL('../../bin/weft.js', import.meta.url));
const dir = mkdtempSync(join(tmpdir(), 'weft-server-logs-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** The stdout of `weft server ...args` (stdout a pipe) up to its "listening" line, then stopped. */
async function firstLines(args: string[], env: Record<string, string> = {}): Promise<string> {
  const base = { ...process.env };
  delete base['WEFT_LOG_FORMAT'];
  const child = spawn(
    process.execPath,
    [weft, 'server', '--port', '0', '--data-dir', join(dir, `data-${args.join('')}`), ...args],
    { env: { ...base, ...env }, stdio: ['ignore', 'pipe', 'inherit'] },
  );
  let out = '';
  await new Promise<void>((resolve) => {
    child.stdout.on('data', (chunk: Buffer) => {
      out += chunk.toString();
      if (/listening on http/.test(out)) resolve();
    });
  });
  const closed = new Promise((resolve) => child.on('close', resolve));
  child.kill('SIGTERM');
  await closed;
  return out;
}

describe('weft server log lines', { timeout: 60_000 }, () => {
  it('are JSON when stdout is not a terminal', async () => {
    const out = await firstLines([]);
    const listening = out.split('\n').find((line) => line.includes('listening on'));
    expect(JSON.parse(listening!)).toMatchObject({ level: 30, msg: expect.any(String) });
  });

  it('are readable text with --log-format text or WEFT_LOG_FORMAT=text', async () => {
    for (const out of [
      await firstLines(['--log-format', 'text']),
      await firstLines([], { WEFT_LOG_FORMAT: 'text' }),
    ]) {
      expect(out).toMatch(/^\d\d:\d\d:\d\d\.\d{3} INFO {2}weft server listening on http:\/\/127/m);
      expect(out).not.toMatch(/^\{/m);
    }
  });
});
