import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ScriptedModelServer } from '@weft/agents/testing';
import { run } from '../test-support.js';

/**
 * `weft workflow run` holds a workflow's budgets across local runs in a ledger under --data-dir:
 * each model call reserves (request bytes + 1000 output tokens) at $0.001 a token, about $1.3.
 */
let model: ScriptedModelServer;
let dir: string;

beforeAll(async () => {
  model = await new ScriptedModelServer(() => ({
    text: 'ok',
    usage: { prompt_tokens: 5500, completion_tokens: 100 },
  })).start();
  dir = mkdtempSync(join(tmpdir(), 'weft-cli-budgets-'));
  mkdirSync(join(dir, 'agents'));
  writeFileSync(
    join(dir, 'agents', 'helper.yaml'),
    `agent:\n  namespace: acme\n  name: helper\n  version: 1.0.0\n  model: openai-compatible:scripted\n  base_url: ${model.url}\n  max_output_tokens: 1000\n  pricing: { input_per_million: 1000, output_per_million: 1000 }\n`,
  );
  writeFileSync(
    join(dir, 'flow.yaml'),
    `workflows:
  - name: triage
    budgets: { maxCost: 6, period: month }
    steps:
      - { name: a, type: agent, agent: 'agent:acme/helper@^1', input: { prompt: Hi } }
`,
  );
});
afterAll(async () => {
  await model.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('weft workflow run of a workflow with budgets', () => {
  it('counts spend across runs in the ledger under --data-dir and refuses the call past the limit', async () => {
    const args = ['workflow', 'run', join(dir, 'flow.yaml'), '--agents', join(dir, 'agents')];
    const data = ['--data-dir', join(dir, 'state'), '-o', 'json'];
    const first = await run(...args, ...data);
    expect(first.code, first.err).toBe(0);
    expect(model.requests).toHaveLength(1);
    const second = await run(...args, ...data);
    expect(second.code).toBe(1);
    expect(second.out + second.err).toContain('budgets.maxCost');
    expect(model.requests).toHaveLength(1);
    // Another ledger has spent nothing: the budget lives in the data directory.
    const elsewhere = await run(...args, '--data-dir', join(dir, 'other'), '-o', 'json');
    expect(elsewhere.code, elsewhere.err).toBe(0);
    expect(model.requests).toHaveLength(2);
  });
});
