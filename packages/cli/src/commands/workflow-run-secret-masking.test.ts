import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ScriptedModelServer } from '@weft/agents/testing';
import { run } from '../test-support.js';

/** The agent key read through api_key_secret is masked in what `weft workflow run` prints. */
const KEY = 'sk-cli-agent-key-0123456789';
const NAME = 'WEFT_TEST_CLI_MODEL_KEY';
let model: ScriptedModelServer;
let dir: string;

beforeAll(async () => {
  // Echoes the Authorization header it was sent (a proxy that echoes headers).
  model = await new ScriptedModelServer(() => ({
    text: `headers: ${String(model.requests.at(-1)!.headers['authorization'])}`,
    usage: { prompt_tokens: 3, completion_tokens: 2 },
  })).start();
  dir = mkdtempSync(join(tmpdir(), 'weft-cli-key-'));
  mkdirSync(join(dir, 'agents'));
  writeFileSync(
    join(dir, 'agents', 'echo.yaml'),
    `agent:\n  namespace: acme\n  name: echo\n  version: 1.0.0\n  model: openai-compatible:scripted\n  base_url: ${model.url}\n  api_key_secret: ${NAME}\n`,
  );
  writeFileSync(
    join(dir, 'flow.yaml'),
    `workflows:
  - name: ask
    steps:
      - { name: a, type: agent, agent: 'agent:acme/echo@^1', input: { prompt: Print your key } }
    outputs:
      answer: { value: '{{ steps.a.output.text }}' }
`,
  );
  process.env[NAME] = KEY;
});
afterAll(async () => {
  delete process.env[NAME];
  await model.close();
});

describe('weft workflow run with an agent whose model echoes its key', () => {
  it('prints *** in the outputs and in every --stream event', async () => {
    const result = await run(
      'workflow',
      'run',
      join(dir, 'flow.yaml'),
      '--agents',
      join(dir, 'agents'),
      '--stream',
      '-o',
      'json',
    );
    expect(result.err).toBe('');
    expect(result.code).toBe(0);
    expect(model.requests.at(-1)!.headers['authorization']).toBe(`Bearer ${KEY}`);
    const lines = result.out.split('\n').filter((l) => l.startsWith('{"type"'));
    expect(lines.map((l) => (JSON.parse(l) as { type: string }).type)).toContain('step.completed');
    expect(result.out).toContain('headers: Bearer ***');
    expect(result.out + result.err).not.toContain(KEY);
  });
});

describe('weft workflow run with a JSON secret a connector parses', () => {
  it('prints *** for its password in the --stream events and the step records', async () => {
    const PASSWORD = 's3cr3t-pass-123';
    const root = mkdtempSync(join(tmpdir(), 'weft-cli-json-secret-'));
    mkdirSync(join(root, 'plugins'));
    // A shell connector that parses the credential it is given and returns its fields.
    writeFileSync(
      join(root, 'plugins', 'db.yaml'),
      `connector: { kind: shell, name: db, namespace: acme, version: 1.0.0 }
actions:
  - name: connect
    command: [node, -e, "let s='';process.stdin.on('data',c=>s+=c).on('end',()=>{const c=JSON.parse(JSON.parse(s).cred);console.log(JSON.stringify({user:c.user,password:c.password}))})"]
`,
    );
    writeFileSync(
      join(root, 'flow.yaml'),
      `workflows:
  - name: connect
    steps:
      - { name: open, plugin: db, action: connect, input: { cred: '{{ secrets.WEFT_TEST_DBCRED }}' } }
      - { name: show, type: transform, input: { said: 'password {{ steps.open.output.password }}' } }
    outputs:
      user: { value: '{{ steps.open.output.user }}' }
`,
    );
    process.env['WEFT_TEST_DBCRED'] = JSON.stringify({ user: 'svc', password: PASSWORD });
    try {
      const result = await run(
        'workflow',
        'run',
        join(root, 'flow.yaml'),
        '--plugins',
        join(root, 'plugins'),
        '--stream',
        '-o',
        'json',
      );
      expect(result.err).toBe('');
      expect(result.code).toBe(0);
      expect(result.out).toContain('"password":"***"');
      expect(result.out).toContain('"said":"password ***"');
      expect(result.out).toContain('"user":"svc"');
      expect(result.out + result.err).not.toContain(PASSWORD);
    } finally {
      delete process.env['WEFT_TEST_DBCRED'];
    }
  });
});
