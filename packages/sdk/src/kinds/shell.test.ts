import { readFileSync } from 'node:fs';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { TimeoutError } from '@weft/core';
import { afterAll, describe, expect, it } from 'vitest';
import { invokerWith, rejection, run } from '../test-support/context.js';

const node = process.execPath;
const action = (name: string, command: string[], extra: object = {}) => ({
  name,
  command,
  ...extra,
});
const shell = (actions: object[], options = {}) =>
  invokerWith(
    { connector: { kind: 'shell', name: 'sh', namespace: 't', version: '1.0.0' }, actions },
    options,
  );

const dirs: string[] = [];
afterAll(() => Promise.all(dirs.map((dir) => rm(dir, { recursive: true, force: true }))));

/** True when the process is gone (or a zombie waiting to be reaped). */
function isDead(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch {
    return true;
  }
  try {
    return /^\d+ \(.*\) Z/.test(readFileSync(`/proc/${pid}/stat`, 'utf8'));
  } catch {
    return true;
  }
}

describe('shell connectors', () => {
  it('writes the input as JSON on stdin and answers stdout that parses as JSON', async () => {
    const invoker = shell([
      action('echo', [
        node,
        '-e',
        'let s="";process.stdin.on("data",d=>s+=d).on("end",()=>{const i=JSON.parse(s);console.log(JSON.stringify({got:i.n+1}))})',
      ]),
    ]);
    expect(await run(invoker, 'sh.echo', { n: 41 })).toEqual({ got: 42 });
  });

  it('answers {stdout, stderr, exit_code} when stdout is not JSON', async () => {
    const invoker = shell([
      action('plain', [node, '-e', 'console.log("hello");console.error("note")']),
    ]);
    expect(await run(invoker, 'sh.plain')).toEqual({
      stdout: 'hello\n',
      stderr: 'note\n',
      exit_code: 0,
    });
  });

  it('templates argv items on the action input, one argument each, never through a shell', async () => {
    const invoker = shell([
      action('args', [
        node,
        '-e',
        'console.log(JSON.stringify(process.argv.slice(1)))',
        '{{ inputs.a }}',
        'n={{ inputs.n }}',
      ]),
    ]);
    expect(await run(invoker, 'sh.args', { a: '$(rm -rf /); `x` | y', n: 3 })).toEqual([
      '$(rm -rf /); `x` | y',
      'n=3',
    ]);
  });

  it('runs with the run environment plus env, not the whole process environment', async () => {
    const invoker = shell([
      action(
        'env',
        [
          node,
          '-e',
          'console.log(JSON.stringify([process.env.A, process.env.B, process.env.HOME]))',
        ],
        {
          env: { B: '{{ inputs.b }}' },
        },
      ),
    ]);
    const output = await run(
      invoker,
      'sh.env',
      { b: 'bee' },
      { environment: { A: 'a', PATH: '/usr/bin:/bin' } },
    );
    expect(output).toEqual(['a', 'bee', null]);
  });

  it('reports a non-zero exit as BACKEND_ERROR with the tail of stderr', async () => {
    const invoker = shell([
      action('fail', [node, '-e', 'console.error("it broke: disk full");process.exit(3)']),
    ]);
    const error = await rejection(run(invoker, 'sh.fail'));
    expect(error['code']).toBe('BACKEND_ERROR');
    expect(error['message']).toContain('exited with 3: it broke: disk full');
    expect(error['details']).toMatchObject({
      backend: 'sh',
      original_error: 'it broke: disk full',
      exit_code: 3,
    });
  });

  it('reports a missing program as UNAVAILABLE', async () => {
    const error = await rejection(
      run(shell([action('missing', ['weft-no-such-program-xyz'])]), 'sh.missing'),
    );
    expect(error['code']).toBe('UNAVAILABLE');
    expect(error['details']).toMatchObject({ backend: 'sh' });
  });

  it('bounds captured stdout', async () => {
    const invoker = shell(
      [action('big', [node, '-e', 'process.stdout.write("x".repeat(100000))'])],
      {
        maxOutputBytes: 1000,
      },
    );
    const error = await rejection(run(invoker, 'sh.big'));
    expect(error['message']).toContain('over the limit of 1000 bytes');
  });

  it('kills the whole process group, grandchildren included, when the signal aborts', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'weft-shell-'));
    dirs.push(dir);
    const pidFile = join(dir, 'pid');
    const spawnSleep =
      'const c=require("child_process").spawn("sleep",["30"],{stdio:"ignore"});' +
      'require("fs").writeFileSync(process.argv[1],String(c.pid));setInterval(()=>{},1000)';
    const invoker = shell([action('hang', [node, '-e', spawnSleep, pidFile])]);
    const controller = new AbortController();
    const pending = run(invoker, 'sh.hang', {}, { signal: controller.signal });
    let grandchild = 0;
    for (let i = 0; i < 100 && grandchild === 0; i++) {
      await new Promise((resolve) => setTimeout(resolve, 50));
      grandchild = Number(await readFile(pidFile, 'utf8').catch(() => '0'));
    }
    expect(grandchild).toBeGreaterThan(0);
    expect(isDead(grandchild)).toBe(false);
    const timeout = new TimeoutError('step timed out', { timeout_ms: 50, elapsed_ms: 51 });
    controller.abort(timeout);
    expect(await rejection(pending)).toBe(timeout);
    for (let i = 0; i < 40 && !isDead(grandchild); i++) {
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    expect(isDead(grandchild)).toBe(true);
  });
});
