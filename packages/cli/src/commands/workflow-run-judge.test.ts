import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ScriptedModelServer } from '@weft/agents/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { run } from '../test-support.js';

/** `--judge-model` of weft workflow run and validate, against the scripted model server. */
const model = new ScriptedModelServer((body) => {
  const user = JSON.stringify(body['messages']);
  return {
    text: JSON.stringify({
      toxicity: user.includes('idiot') ? 0.9 : 0.05,
      pii: user.includes('@example.com') ? [{ kind: 'email' }] : [],
      topics: user.includes('vote') ? ['politics'] : [],
    }),
  };
});
let file: string;

beforeAll(async () => {
  await model.start();
  file = join(mkdtempSync(join(tmpdir(), 'weft-cli-judge-')), 'flow.yaml');
  writeFileSync(
    file,
    [
      'workflows:',
      '  - name: polite',
      '    inputs: { text: { type: string } }',
      '    guardrails: { detectors: { toxicity: judge, pii: judge, topics: judge } }',
      '    steps:',
      "      - { name: answer, type: transform, input: { text: '{{ inputs.text }}' }, guardrails: { toxicityThreshold: 0.5, piiDetection: true, blockedTopics: [politics] } }",
      '',
    ].join('\n'),
  );
});

afterAll(() => model.close());

const judge = () => ['--judge-model', 'openai-compatible:judge-1', '--judge-base-url', model.url];

describe('weft workflow run --judge-model', () => {
  it('validate refuses a workflow choosing judge unless it is configured', async () => {
    const refused = await run('workflow', 'validate', file);
    expect(refused.code).toBe(2);
    expect(refused.out + refused.err).toContain('no pii detector "judge" is configured');
    const accepted = await run('workflow', 'validate', file, ...judge());
    expect(accepted.code, accepted.err).toBe(0);
  });

  it('judges the output with the model, every check', async () => {
    const polite = await run('workflow', 'run', file, '-i', 'text=thanks', ...judge());
    expect(polite.code, polite.err).toBe(0);
    const cases = [
      ['you idiot', 'guardrails.toxicityThreshold'],
      ['write to ada@example.com', 'guardrails.piiDetection'],
      ['go vote', 'guardrails.blockedTopics'],
    ];
    for (const [text, field] of cases) {
      const tripped = await run('workflow', 'run', file, '-i', `text=${text}`, ...judge());
      expect(tripped.code).toBe(1);
      expect(tripped.out + tripped.err).toContain(field);
    }
  });

  it('fails closed, naming the detector, when the model is unreachable', async () => {
    const down = await run(
      'workflow',
      'run',
      file,
      '-i',
      'text=thanks',
      '--judge-model',
      'openai-compatible:judge-1',
      '--judge-base-url',
      'http://127.0.0.1:1/v1',
    );
    expect(down.code).toBe(1);
    expect(down.out + down.err).toContain('pii detector "judge"');
  });

  it('refuses judge settings it cannot use', async () => {
    const noUrl = await run(
      'workflow',
      'run',
      file,
      '-i',
      'text=x',
      '--judge-model',
      'openai-compatible:x',
    );
    expect(noUrl.code).toBe(2);
    expect(noUrl.err).toContain('WEFT_JUDGE_BASE_URL');
    const badModel = await run('workflow', 'validate', file, '--judge-model', 'llama3');
    expect(badModel.code).toBe(2);
    expect(badModel.err).toContain('WEFT_JUDGE_MODEL must be <provider>:<model id>');
  });
});
