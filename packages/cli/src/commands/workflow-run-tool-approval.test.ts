import { mkdirSync, mkdtempSync, readFileSync, existsSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { ScriptedModelServer } from '@weft/agents/testing';
import { run, runAnswering } from '../test-support.js';

/**
 * Local runs of an agent whose tool needs approval (docs/agents.md#tool-approvals): `--approve`
 * approves, a terminal is asked, and otherwise the call is refused before the tool runs.
 */
let model: ScriptedModelServer;
let dir: string;
let marker: string;

beforeAll(async () => {
  model = await new ScriptedModelServer((body) => {
    const messages = body['messages'] as { role: string; content: unknown }[];
    const last = messages.at(-1)!;
    return last.role === 'tool'
      ? { text: `tool said: ${String(last.content)}` }
      : { toolCalls: [{ name: 'bank_pay', arguments: '{"amount":10}' }] };
  }).start();
  dir = mkdtempSync(join(tmpdir(), 'weft-cli-tool-approval-'));
  marker = join(dir, 'paid.txt');
  mkdirSync(join(dir, 'plugins'));
  // The tool writes a file when it runs: whether it ran is on disk.
  const script = join(dir, 'pay.cjs');
  writeFileSync(
    script,
    `let s='';process.stdin.on('data',c=>s+=c).on('end',()=>{require('fs').writeFileSync(${JSON.stringify(marker)},s);console.log(JSON.stringify({paid:true}))})`,
  );
  writeFileSync(
    join(dir, 'plugins', 'bank.yaml'),
    `connector: { kind: shell, name: bank, namespace: acme, version: 1.0.0 }
actions:
  - name: pay
    input_schema: { type: object, properties: { amount: { type: number } }, required: [amount] }
    command: [node, ${JSON.stringify(script)}]
`,
  );
  mkdirSync(join(dir, 'agents'));
  for (const [name, onReject] of [
    ['payer', 'continue'],
    ['strict', 'fail'],
  ]) {
    writeFileSync(
      join(dir, 'agents', `${name}.yaml`),
      `agent:
  namespace: acme
  name: ${name}
  version: 1.0.0
  model: openai-compatible:scripted
  base_url: ${model.url}
  tools:
    - { plugin: bank, action: pay, approval: { approvers: [finance], timeout: 60, on_reject: ${onReject} } }
`,
    );
    writeFileSync(
      join(dir, `${name}.yaml`),
      `workflows:
  - name: pay
    steps:
      - { name: a, type: agent, agent: 'agent:acme/${name}@^1', input: { prompt: Pay 10 } }
    outputs:
      answer: { value: '{{ steps.a.output.text }}' }
`,
    );
  }
});
afterAll(async () => {
  await model.close();
});
beforeEach(() => {
  model.requests.length = 0;
  if (existsSync(marker)) writeFileSync(marker, '');
});

const flags = (name: string) => [
  'workflow',
  'run',
  join(dir, `${name}.yaml`),
  '--agents',
  join(dir, 'agents'),
  '--plugins',
  join(dir, 'plugins'),
  '-o',
  'json',
];

const ran = () => existsSync(marker) && readFileSync(marker, 'utf8') !== '';

describe('weft workflow run with a tool that needs approval', () => {
  it('runs the tool with --approve', async () => {
    const result = await run(...flags('payer'), '--approve');
    expect(result.err).toBe('');
    expect(result.code).toBe(0);
    expect(ran()).toBe(true);
    expect(result.out).toContain('tool said: {\\"paid\\":true}');
  });

  it('asks the terminal, showing the tool and its arguments', async () => {
    const result = await runAnswering(['y'], ...flags('payer'));
    expect(result.code).toBe(0);
    expect(result.asked).toEqual(['approve this call of bank_pay? [y/N] ']);
    expect(result.err).toContain('wants to call tool bank_pay');
    expect(result.err).toContain('"amount": 10');
    expect(ran()).toBe(true);
  });

  it('refuses the call without a terminal: the model is told approval_required', async () => {
    const result = await run(...flags('payer'));
    expect(result.code).toBe(0);
    expect(ran()).toBe(false);
    expect(result.err).toContain('approval_required');
    expect(JSON.stringify(model.requests[1]!.body)).toContain('approval_required');
  });

  it('fails the step (exit 1) without a terminal when on_reject is fail', async () => {
    const result = await run(...flags('strict'));
    expect(result.code).toBe(1);
    expect(ran()).toBe(false);
    expect(result.out + result.err).toContain('FORBIDDEN');
    expect(model.requests).toHaveLength(1);
  });
});
