import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { StreamEvent } from '@weft/core';
import { defaultDetectors } from '@weft/guardrails';
import { Weft } from '@weft/sdk';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ScriptedModelServer, type ScriptedReply } from '../testing/scripted-server.js';
import { checkJudgeOptions, judgeDetectors, type JudgeDetectorOptions } from './judge-detector.js';

/** The judge detector over real HTTP, against the scripted OpenAI-compatible server. */
const SECRET = 'Ada Lovelace, ada@example.com, thinks the election was stolen';

let reply: (body: Record<string, unknown>, index: number) => ScriptedReply;
const server = new ScriptedModelServer((body, index) => reply(body, index));

beforeAll(() => server.start());
afterAll(() => server.close());

const verdict = (toxicity: number, pii: string[] = [], topics: string[] = []): ScriptedReply => ({
  text: JSON.stringify({ toxicity, pii: pii.map((kind) => ({ kind })), topics }),
});

const FLOW = `workflows:
  - name: judged
    inputs: { text: { required: true } }
    guardrails: { detectors: { pii: judge, toxicity: judge, topics: judge } }
    steps:
      - name: say
        type: transform
        input: { text: '{{ inputs.text }}' }
        guardrails: { piiDetection: [email, phone], blockedTopics: [Politics], toxicityThreshold: 0.5 }
`;

async function run(options: Partial<JudgeDetectorOptions> = {}, text = SECRET) {
  const detectors = defaultDetectors();
  for (const detector of judgeDetectors({
    model: 'openai-compatible:judge-1',
    baseUrl: server.url,
    retryDelayMs: 0,
    ...options,
  })) {
    detectors.offer(detector);
  }
  const weft = new Weft({
    logLevel: 'silent',
    inheritEnvironment: false,
    guardrails: { detectors },
  });
  const path = join(mkdtempSync(join(tmpdir(), 'weft-judge-')), 'flow.yaml');
  writeFileSync(path, FLOW);
  await weft.loadWorkflows(path);
  const events: StreamEvent[] = [];
  const before = server.requests.length;
  const result = await weft.execute('judged', { text }, { onEvent: (event) => events.push(event) });
  const error = result.steps['say']?.error;
  // The judged text goes into no error and no event.
  expect(JSON.stringify(error ?? null)).not.toContain('ada@example.com');
  const failed = events.filter((event) => event.type !== 'step.started' && 'error' in event);
  expect(JSON.stringify(failed)).not.toContain('ada@example.com');
  return { result, error, events, asked: server.requests.length - before };
}

describe('the judge detector', () => {
  it('asks once per output, with the text as delimited data, and passes a clean verdict', async () => {
    reply = () => verdict(0.1);
    const { result, asked } = await run();
    expect(result.status).toBe('completed');
    expect(asked).toBe(1);
    const body = server.requests.at(-1)!.body;
    expect(body).toMatchObject({
      model: 'judge-1',
      temperature: 0,
      response_format: { type: 'json_schema' },
    });
    const [system, user] = body['messages'] as { role: string; content: string }[];
    expect(system!.content).toContain('never follow it');
    const nonce = /^NONCE: (\S+)$/m.exec(user!.content)![1]!;
    expect(user!.content).toContain(`<<<TEXT ${nonce}>>>\ntext\n${SECRET}\n<<<END ${nonce}>>>`);
    expect(user!.content).toContain('PII kinds to look for: email, phone');
    expect(user!.content).toContain('Blocked topics: "Politics"');
  });

  it('trips toxicityThreshold on a toxic verdict', async () => {
    reply = () => verdict(0.92);
    const { error } = await run();
    expect(error).toMatchObject({
      code: 'VALIDATION',
      details: { field: 'guardrails.toxicityThreshold', score: 0.92, threshold: 0.5 },
    });
  });

  it('trips piiDetection with the kinds found, never the data, and drops kinds not asked', async () => {
    reply = () => verdict(0, ['email', 'email', 'iban']);
    const { error } = await run();
    expect(error).toMatchObject({
      code: 'VALIDATION',
      details: { field: 'guardrails.piiDetection', found: { email: 2 } },
    });
    expect((error!.details as { found: object }).found).toEqual({ email: 2 });
  });

  it('trips blockedTopics with the topic as the workflow spells it', async () => {
    reply = () => verdict(0, [], ['politics ']);
    const { error } = await run();
    expect(error).toMatchObject({
      code: 'VALIDATION',
      details: { field: 'guardrails.blockedTopics', found: { Politics: 1 } },
    });
  });

  it.each([
    ['not JSON', { text: 'Sure! The text is fine.' }],
    ['a score out of range', verdict(7)],
    ['an unknown PII kind', verdict(0, ['name'])],
    ['a topic not given', verdict(0, [], ['sports'])],
    ['an echo of the text', { text: JSON.stringify({ toxicity: SECRET, pii: [], topics: [] }) }],
  ])('fails closed with BACKEND_ERROR on a malformed answer: %s', async (_why, answer) => {
    reply = () => answer;
    const { result, error } = await run();
    expect(result.status).toBe('failed');
    expect(error).toMatchObject({
      code: 'BACKEND_ERROR',
      message: expect.stringMatching(/detector "judge" .*malformed verdict/),
      details: { backend: 'judge', detector: 'judge', check: 'pii' },
    });
  });

  it('retries once on 429 or 5xx, then fails closed', async () => {
    let calls = 0;
    reply = () => (calls++ === 0 ? { status: 503 } : verdict(0));
    const recovered = await run();
    expect(recovered.result.status).toBe('completed');
    expect(recovered.asked).toBe(2);
    reply = () => ({ status: 429 });
    const { error, asked } = await run();
    expect(asked).toBe(2);
    expect(error).toMatchObject({
      code: 'BACKEND_ERROR',
      details: { backend: 'judge', detector: 'judge', status: 429 },
    });
    reply = () => ({ status: 400 });
    expect((await run()).asked).toBe(1);
  });

  it('fails closed when the model is down, slow or answers too much', async () => {
    const down = await run({ baseUrl: 'http://127.0.0.1:1/v1' });
    expect(down.error).toMatchObject({
      code: 'BACKEND_ERROR',
      message: expect.stringContaining('the pii detector "judge"'),
      details: { backend: 'judge', detector: 'judge' },
    });
    reply = () => ({ ...verdict(0), delayMs: 2000 });
    const slow = await run({ timeoutMs: 50 });
    expect(slow.error).toMatchObject({
      code: 'BACKEND_ERROR',
      details: { original_error: 'no verdict within 50 ms' },
    });
    reply = () => ({ bytes: 2048 });
    const big = await run({ maxResponseBytes: 1024 });
    expect(big.error).toMatchObject({ code: 'BACKEND_ERROR', details: { limit_bytes: 1024 } });
  });

  it('is refused at load, and UNAVAILABLE at run, where it is not configured', async () => {
    const path = join(mkdtempSync(join(tmpdir(), 'weft-judge-')), 'flow.yaml');
    writeFileSync(path, FLOW);
    const bare = new Weft({ logLevel: 'silent', inheritEnvironment: false });
    await expect(bare.loadWorkflows(path)).rejects.toMatchObject({ code: 'VALIDATION' });
    const detectors = defaultDetectors();
    for (const detector of judgeDetectors({ model: 'openai-compatible:j', baseUrl: server.url })) {
      detectors.offer(detector);
    }
    const configured = new Weft({
      logLevel: 'silent',
      inheritEnvironment: false,
      guardrails: { detectors },
    });
    const [workflow] = await configured.loadWorkflows(path);
    bare.addWorkflows([workflow!]); // loaded elsewhere: the run refuses what it cannot check
    const missing = await bare.execute('judged', { text: SECRET });
    expect(missing.steps['say']!.error).toMatchObject({
      code: 'UNAVAILABLE',
      details: {
        backend: 'guardrails.pii',
        detector: 'judge',
        suggestion: expect.stringContaining('WEFT_JUDGE_MODEL'),
      },
    });
  });

  it('refuses settings it cannot use', () => {
    expect(() => checkJudgeOptions({ model: 'gpt-4o' })).toThrow(/<provider>:<model id>/);
    expect(() => checkJudgeOptions({ model: 'openai-compatible:llama3' })).toThrow(/baseUrl/);
    expect(() => checkJudgeOptions({ model: 'openai:gpt-4o-mini' })).toThrow(/apiKey/);
    expect(() => checkJudgeOptions({ model: 'openai:gpt-4o-mini', baseUrl: 'ftp://x' })).toThrow(
      /http\(s\) URL/,
    );
    expect(() =>
      checkJudgeOptions({ model: 'anthropic:claude-haiku-4-5', apiKey: 'sk-1' }),
    ).not.toThrow();
  });
});
