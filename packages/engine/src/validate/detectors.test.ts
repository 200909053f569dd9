import { describe, expect, it } from 'vitest';
import { errors, load, withSteps } from '../test-support/load.js';

const STEPS =
  '      - { name: a, type: transform, input: { x: 1 }, guardrails: { toxicityThreshold: 0.5 } }\n';
const choosing = (detectors: string) =>
  withSteps(STEPS, `    guardrails: { detectors: ${detectors} }\n`);

describe('guardrails.detectors of a workflow', () => {
  it('accepts default and the lexical detectors anywhere', () => {
    const result = load(choosing('{ pii: default, toxicity: obscenity, topics: topics }'));
    expect(errors(result)).toEqual([]);
    expect(result.workflows[0]!.guardrails).toEqual({
      detectors: { pii: 'default', toxicity: 'obscenity', topics: 'topics' },
    });
  });

  it('refuses a detector the process does not offer, naming those it does', () => {
    expect(errors(load(choosing('{ toxicity: moderation }')))).toEqual([
      'workflows[0].guardrails.detectors.toxicity: no toxicity detector "moderation" is configured here; the toxicity detectors are: default, obscenity (the server or CLI offers the toxicity detector moderation when WEFT_MODERATION_URL is set, and judge for every check when WEFT_JUDGE_MODEL is set)',
    ]);
    expect(
      errors(load(choosing('{ pii: moderation }'), { detectors: { toxicity: ['moderation'] } })),
    ).toEqual([
      expect.stringContaining(
        'workflows[0].guardrails.detectors.pii: no pii detector "moderation"',
      ),
    ]);
  });

  it('accepts a detector the process offers, and any when another process checks', () => {
    expect(
      errors(
        load(choosing('{ toxicity: moderation }'), { detectors: { toxicity: ['moderation'] } }),
      ),
    ).toEqual([]);
    expect(errors(load(choosing('{ toxicity: moderation }'), { detectors: 'any' }))).toEqual([]);
  });

  it('refuses an unknown check and a malformed name by the schema', () => {
    const result = errors(load(choosing('{ sentiment: default, toxicity: "Not A Name" }')));
    expect(result).toHaveLength(2);
    expect(result.join('\n')).toMatch(/detectors.*sentiment/);
    expect(result.join('\n')).toMatch(/detectors\.toxicity/);
  });
});
