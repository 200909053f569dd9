/**
 * Deployed workflows and triggers end to end: a real `weft server --workflows DIR` process (the
 * built binary), reached over loopback; workflows deployed with `weft workflow deploy` and over
 * HTTP. Needs `npx tsc -b` first (the binary runs from `dist`).
 */
import { execFile, spawn } from 'node:child_process';
import { createHmac } from 'node:crypto';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLocalKey } from '@weft/server';
import { kill, type ServerProcess } from './runtime-support.js';

const root = fileURLToPath(new URL('../../', import.meta.url));
const bin = `${root}packages/cli/bin/weft.js`;
const exec = promisify(execFile);
const base = mkdtempSync(join(tmpdir(), 'weft-triggers-'));
const dataDir = join(base, 'data');
const workflowsDir = join(base, 'workflows');
const hookFile = join(base, 'hook.yaml');
const SECRET = 'integration webhook secret';

const HOOK = `workflows:
  - name: github-push
    triggers:
      - type: webhook
        path: /github
        method: POST
        auth: { type: hmac-sha256, secret_name: GH_HOOK_SECRET, header: X-Hub-Signature-256 }
    steps:
      - { name: echo, type: transform, input: { ref: '{{ trigger.payload.ref }}' } }
    outputs:
      payload: { value: '{{ trigger.payload }}' }
      ref: { value: '{{ steps.echo.output.ref }}' }
`;
const TICK = `workflows:
  - name: tick
    triggers:
      - { type: schedule, cron: '* * * * * *', timezone: UTC }
    steps:
      - { name: t, type: transform, input: { ok: true } }
`;
const PAID = {
  name: 'on-paid',
  inputs: { note: { type: 'string', default: 'none' } },
  triggers: [
    { type: 'manual' },
    { type: 'event', source: 'custom', topic: 'orders', filter: { 'order.status': 'paid' } },
  ],
  steps: [
    { name: 'e', type: 'transform', input: { id: '{{ trigger.event.order.id | default(0) }}' } },
  ],
  outputs: { id: { value: '{{ steps.e.output.id }}' }, note: { value: '{{ inputs.note }}' } },
};

let server: ServerProcess;
let key: string;

async function api(method: string, path: string, body?: unknown, authorization = `Bearer ${key}`) {
  const response = await fetch(`${server.url}${path}`, {
    method,
    headers: {
      authorization,
      ...(body !== undefined ? { 'content-type': 'application/json' } : {}),
    },
    ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
  });
  const text = await response.text();
  return { status: response.status, body: text ? JSON.parse(text) : undefined };
}

async function executionsOf(workflow: string): Promise<{ status: string; execution_id: string }[]> {
  return (await api('GET', `/workflows/executions?workflow=${workflow}&limit=100`)).body.executions;
}

async function finished(pollUrl: string) {
  for (let i = 0; i < 200; i++) {
    const record = (await api('GET', pollUrl)).body;
    if (record.status === 'completed' || record.status === 'failed') return record;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error(`${pollUrl} did not finish`);
}

/** Starts the built `weft server --workflows DIR` and waits for its URL. */
async function startWeftServer(): Promise<ServerProcess> {
  const child = spawn(
    process.execPath,
    [bin, 'server', '--port', '0', '--data-dir', dataDir, '--workflows', workflowsDir],
    {
      cwd: root,
      env: {
        ...process.env,
        DATABASE_URL: '',
        GH_HOOK_SECRET: SECRET,
        WEFT_WORKFLOWS_OWNER: 'acme',
        WEFT_LOG_LEVEL: 'info',
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  const url = await new Promise<string>((resolve, reject) => {
    let out = '';
    const onData = (chunk: Buffer) => {
      out += chunk.toString();
      const match = /listening on (http:\/\/[0-9.:]+)/.exec(out);
      if (match) resolve(match[1]!);
    };
    child.stdout.on('data', onData);
    child.stderr.on('data', onData);
    child.once('exit', (code) => reject(new Error(`weft server exited with ${code}: ${out}`)));
  });
  return { url, child };
}

beforeAll(async () => {
  mkdirSync(workflowsDir, { recursive: true });
  writeFileSync(join(workflowsDir, 'tick.yaml'), TICK);
  writeFileSync(hookFile, HOOK);
  key = (await createLocalKey({ dataDir }, { name: 'acme' })).key;
  server = await startWeftServer();
}, 30_000);
afterAll(async () => {
  if (server) await kill(server);
  rmSync(base, { recursive: true, force: true });
});

describe('weft server with deployed workflows (real process, loopback)', () => {
  it('deploys with weft workflow deploy and runs a correctly signed webhook to completion', async () => {
    const deploy = await exec(process.execPath, [bin, 'workflow', 'deploy', hookFile], {
      cwd: root,
      env: { ...process.env, WORKFLOW_CLOUD_URL: server.url, WORKFLOW_REGISTRY_API_KEY: key },
    });
    expect(deploy.stdout).toContain('deployed github-push 1.0.0, revision 1');
    expect(deploy.stdout).toContain('webhook: POST /hooks/github');

    const body = JSON.stringify({ ref: 'refs/heads/main', commits: 2 });
    const signature = `sha256=${createHmac('sha256', SECRET).update(body).digest('hex')}`;
    const response = await fetch(`${server.url}/hooks/github`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-hub-signature-256': signature },
      body,
    });
    expect(response.status).toBe(202);
    const pending = (await response.json()) as { status: string; poll_url: string };
    expect(pending).toMatchObject({ status: 'pending', trigger: 'webhook' });
    const record = await finished(pending.poll_url);
    expect(record.status).toBe('completed');
    expect(record.result.outputs).toEqual({
      payload: { ref: 'refs/heads/main', commits: 2 },
      ref: 'refs/heads/main',
    });
  });

  it('refuses a bad signature with 401 and starts no execution', async () => {
    const before = (await executionsOf('github-push')).length;
    const body = JSON.stringify({ ref: 'refs/heads/evil' });
    const response = await fetch(`${server.url}/hooks/github`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        'x-hub-signature-256': `sha256=${createHmac('sha256', 'wrong').update(body).digest('hex')}`,
      },
      body,
    });
    expect(response.status).toBe(401);
    expect(await response.json()).toMatchObject({ status: 'error', code: 'UNAUTHORIZED' });
    expect((await executionsOf('github-push')).length).toBe(before);
  });

  it('starts a deployed workflow by hand with inputs', async () => {
    expect((await api('PUT', '/workflows/on-paid', PAID)).status).toBe(201);
    const started = await api('POST', '/workflows/on-paid/executions', {
      inputs: { note: 'by hand' },
    });
    expect(started.status).toBe(202);
    const record = await finished(started.body.poll_url);
    expect(record).toMatchObject({ status: 'completed', trigger: 'manual' });
    expect(record.result.outputs).toEqual({ id: 0, note: 'by hand' });
  });

  it('answers a manual run sent with Prefer: wait with its ended record (200)', async () => {
    expect((await api('PUT', '/workflows/on-paid', PAID)).status).toBe(201);
    const response = await fetch(`${server.url}/workflows/on-paid/executions`, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${key}`,
        'content-type': 'application/json',
        prefer: 'wait=10',
      },
      body: JSON.stringify({ inputs: { note: 'waited' } }),
    });
    expect(response.status).toBe(200);
    expect(response.headers.get('preference-applied')).toBe('wait=10');
    const record = (await response.json()) as { status: string; result: { outputs: unknown } };
    expect(record).toMatchObject({ status: 'completed', trigger: 'manual' });
    expect(record.result.outputs).toEqual({ id: 0, note: 'waited' });
  });

  it('starts one execution for a custom event that passes the filter and none for one that does not', async () => {
    const before = (await executionsOf('on-paid')).length;
    const paid = await api('POST', '/events/orders', { order: { id: 42, status: 'paid' } });
    expect(paid.status).toBe(202);
    expect(paid.body.started).toHaveLength(1);
    const record = await finished(paid.body.started[0].poll_url);
    expect(record.result.outputs).toMatchObject({ id: 42 });
    const refunded = await api('POST', '/events/orders', { order: { id: 43, status: 'refunded' } });
    expect(refunded.status).toBe(202);
    expect(refunded.body.started).toEqual([]);
    expect((await executionsOf('on-paid')).length).toBe(before + 1);
  });

  it('fires a six-field schedule deployed from --workflows within a few seconds', async () => {
    let runs: { status: string }[] = [];
    for (let i = 0; i < 50 && !runs.some((r) => r.status === 'completed'); i++) {
      await new Promise((resolve) => setTimeout(resolve, 100));
      runs = await executionsOf('tick');
    }
    expect(runs.some((r) => r.status === 'completed')).toBe(true);
    const listed = await api('GET', '/workflows/tick');
    expect(listed.body).toMatchObject({ name: 'tick', deployed_by: null, triggers: ['schedule'] });
  }, 10_000);
});
