import { spawn, execFile, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import { connect, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const root = fileURLToPath(new URL('../../', import.meta.url));
const bin = `${root}node_modules/.bin/weft`;
const exec = promisify(execFile);
const work = mkdtempSync(join(tmpdir(), 'weft-e2e-'));
const dataDir = join(work, 'data');
let server: ChildProcess;
let url: string;
let key: string;

async function weft(...args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  const env = {
    ...process.env,
    NO_COLOR: '1',
    WORKFLOW_REGISTRY_URL: url,
    WORKFLOW_REGISTRY_API_KEY: key,
  };
  try {
    const { stdout, stderr } = await exec(bin, args, { cwd: work, env });
    return { code: 0, stdout, stderr };
  } catch (error) {
    const e = error as { code: number; stdout: string; stderr: string };
    return { code: e.code, stdout: e.stdout, stderr: e.stderr };
  }
}

beforeAll(async () => {
  server = spawn(bin, ['server', '--port', '0', '--data-dir', dataDir], {
    cwd: work,
    env: { ...process.env, DATABASE_URL: '' },
  });
  url = await new Promise<string>((resolve, reject) => {
    let out = '';
    server.stdout!.on('data', (chunk: Buffer) => {
      out += chunk.toString();
      const match = /listening on (http:\/\/[^\s]+) \(storage sqlite:/.exec(out);
      if (match) resolve(match[1]!);
    });
    server.once('exit', (code) => reject(new Error(`server exited with ${code}: ${out}`)));
  });
  const created = await weft('auth', 'create-key', '--name', 'e2e', '--data-dir', dataDir);
  key = created.stdout.trim().split('\n').at(-1)!;
}, 30_000);

afterAll(() => {
  if (server.exitCode === null) server.kill('SIGKILL');
});

describe('weft server over real HTTP, driven by the weft binary', () => {
  it('publishes every example, finds them, installs and verifies one', async () => {
    for (const name of ['slack', 'github', 'http', 'postgres', 'openai']) {
      const published = await weft(
        'plugin',
        'publish',
        join(root, 'examples/plugins', `${name}.yaml`),
      );
      expect(published.stderr).toBe('');
      expect(published.code).toBe(0);
    }
    const found = await weft('plugin', 'search', 'issues');
    expect(found.stdout).toMatch(/^github\s/m);
    const install = await weft('plugin', 'install', 'github', '--save');
    expect(install.code).toBe(0);
    expect(readFileSync(join(work, 'plugins', 'github.yaml'), 'utf8')).toBe(
      readFileSync(join(root, 'examples/plugins/github.yaml'), 'utf8'),
    );
    expect((await weft('plugin', 'list')).stdout).toMatch(
      /^github\s+2\.3\.1\s+http:\/\/127\.0\.0\.1:\d+\s+plugins\/github\.yaml$/m,
    );
    expect((await weft('plugin', 'verify', 'github@2.3.1')).code).toBe(0);
  }, 60_000);

  /**
   * Sends a raw `POST /plugins` with `headers` over a socket, then lets `send` write the body,
   * and resolves with the answer once its JSON body has arrived (even if the server closed the
   * socket while the body was still being sent). With `cutOk`, a connection the server cut
   * before the answer could be read resolves to what was read ('').
   */
  const rawPublish = (
    headers: string,
    send: (socket: Socket) => void,
    timeoutMs: number,
    cutOk = false,
  ) => {
    const { hostname: host, port } = new URL(url);
    return new Promise<string>((resolve, reject) => {
      const socket = connect(Number(port), host, () => {
        socket.write(
          `POST /plugins HTTP/1.1\r\nHost: ${host}\r\nAuthorization: Bearer ${key}\r\nContent-Type: application/json\r\n${headers}\r\n\r\n`,
        );
        send(socket);
      });
      let text = '';
      socket.on('data', (chunk) => {
        text += chunk.toString();
        if (text.includes('\r\n\r\n') && text.includes('}')) {
          socket.destroy();
          resolve(text);
        }
      });
      socket.on('error', (error: NodeJS.ErrnoException) =>
        text.includes('413') || (cutOk && ['EPIPE', 'ECONNRESET'].includes(error.code ?? ''))
          ? resolve(text)
          : reject(error),
      );
      setTimeout(() => reject(new Error(`no answer; got ${text}`)), timeoutMs);
    });
  };

  it('answers 413 as soon as the declared length is over the limit, without reading the body', async () => {
    const answer = await rawPublish(
      `Content-Length: ${64 * 1024 * 1024}`,
      (socket) => socket.write('{"slug":'),
      5000,
    );
    expect(answer).toMatch(/^HTTP\/1\.1 413/);
    expect(answer).toContain('"code":"PAYLOAD_TOO_LARGE"');
  });

  it('answers 413 to a chunked body once it passes the limit, before the sender is done', async () => {
    const chunk = 'x'.repeat(64 * 1024);
    // The server answers while the sender is still writing, lingers (2 s or 16 MiB) and closes;
    // a write that meets the close can raise EPIPE before the socket has handed over the answer
    // it read: the cut before the end always shows, the 413 in (nearly) every try, so 3 tries.
    let answer = '';
    for (let attempt = 0; attempt < 3 && !answer.startsWith('HTTP/1.1 413'); attempt++) {
      let sent = 0;
      answer = await rawPublish(
        'Transfer-Encoding: chunked',
        (socket) => {
          const feed = () => {
            // 64 MiB at most: far more than the limit, never sent whole once the answer comes.
            if (socket.destroyed || sent >= 64 * 1024 * 1024) return;
            sent += chunk.length;
            if (socket.write(`${chunk.length.toString(16)}\r\n${chunk}\r\n`)) setImmediate(feed);
            else socket.once('drain', feed);
          };
          feed();
        },
        10_000,
        true,
      );
      expect(sent).toBeLessThan(64 * 1024 * 1024);
    }
    expect(answer).toMatch(/^HTTP\/1\.1 413/);
    expect(answer).toContain('"limit":1048576');
  });

  it('shuts down gracefully on SIGTERM', async () => {
    const exited = new Promise<number | null>((resolve) =>
      server.once('exit', (code) => resolve(code)),
    );
    server.kill('SIGTERM');
    expect(await exited).toBe(0);
  });
});
