import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { StreamEvent } from '@weft/core';
import { Weft } from '@weft/sdk';
import { describe, expect, it } from 'vitest';
import { DetectorRegistry } from './detector.js';
import { defaultDetectors } from './defaults.js';
import { needsGuardrails } from './needs.js';

const EMAIL = 'jane.doe@example.com';
const CARD = '4111 1111 1111 1111';

function flowFile(text: string): string {
  const path = join(mkdtempSync(join(tmpdir(), 'weft-guardrails-')), 'flow.yaml');
  writeFileSync(path, text);
  return path;
}

/** A local client with the actions of these tests, and the workflows of `yaml` loaded. */
async function client(yaml: string, options: ConstructorParameters<typeof Weft>[0] = {}) {
  const weft = new Weft({ logLevel: 'silent', inheritEnvironment: false, ...options });
  weft.registerHandler('crm.lookup', (input: { who: string }) => ({
    name: input.who,
    contact: input.who === 'leak' ? `mail ${EMAIL}, card ${CARD}` : 'by post',
  }));
  weft.registerHandler('crm.hang', (_input, context) => {
    return new Promise((_resolve, reject) => {
      context.signal.addEventListener('abort', () => reject(context.signal.reason));
    });
  });
  weft.registerHandler('crm.big', (input: { tail: string; mb: number }) => ({
    text: `${'lorem ipsum '.repeat((input.mb * 1024 * 1024) / 12)}${input.tail}`,
  }));
  weft.registerHandler('crm.deep', () => {
    // As deep as an action's output may be (256 levels; deeper fails the step before any
    // guardrail reads it): the scan walks it without recursion.
    let deep: unknown = { leaf: EMAIL };
    for (let i = 0; i < 250; i++) deep = { next: deep };
    return deep;
  });
  await weft.loadWorkflows(flowFile(yaml));
  return weft;
}

async function run(weft: Weft, name: string, inputs: Record<string, unknown> = {}) {
  const events: StreamEvent[] = [];
  const result = await weft.execute(name, inputs, { onEvent: (event) => events.push(event) });
  return { result, events };
}

const FLOWS = `workflows:
  - name: lookup
    inputs: { who: { required: true } }
    steps:
      - name: find
        plugin: crm
        action: lookup
        input: { who: '{{ inputs.who }}' }
        guardrails: { piiDetection: true }
    outputs: { contact: { value: '{{ steps.find.output.contact }}' } }
  - name: tolerant
    steps:
      - name: find
        plugin: crm
        action: lookup
        input: { who: leak }
        continue_on_error: true
        guardrails: { piiDetection: [email] }
      - name: after
        type: transform
        input: { why: '{{ steps.find.error.details.constraint }}', kinds: '{{ steps.find.error.details.found }}' }
    outputs: { after: { value: '{{ steps.after.output }}' } }
  - name: shaped
    inputs: { text: { required: true } }
    steps:
      - name: answer
        type: transform
        input: { text: '{{ inputs.text }}' }
        guardrails:
          toxicityThreshold: 0.4
          blockedTopics: [gambling, nuclear weapon]
          outputSchema: { type: object, required: [text], properties: { text: { type: string, maxLength: 40 } } }
    outputs: { text: { value: '{{ steps.answer.output.text }}' } }
  - name: each
    inputs: { people: { type: array, default: [ann, leak] } }
    steps:
      - name: find
        plugin: crm
        action: lookup
        for_each: '{{ inputs.people }}'
        input: { who: '{{ item }}' }
        guardrails: { piiDetection: [credit_card] }
  - name: slow
    steps:
      - name: wait
        plugin: crm
        action: hang
        input: {}
        guardrails: { timeLimit: 1 }
  - name: big
    inputs: { tail: { required: true }, mb: { type: number, required: true } }
    steps:
      - { name: make, plugin: crm, action: big, input: { tail: '{{ inputs.tail }}', mb: '{{ inputs.mb }}' }, guardrails: { piiDetection: true, toxicityThreshold: 0.9 } }
  - name: deep
    steps:
      - { name: make, plugin: crm, action: deep, input: {}, guardrails: { piiDetection: true } }
  - name: plain
    steps:
      - { name: find, plugin: crm, action: lookup, input: { who: leak } }
`;

describe('guardrails in local runs', () => {
  it('lets a clean output through', async () => {
    const { result } = await run(await client(FLOWS), 'lookup', { who: 'ann' });
    expect(result.status).toBe('completed');
    expect(result.outputs).toEqual({ contact: 'by post' });
  });

  it('fails a step whose output carries personal data, naming the kinds and never the data', async () => {
    const { result, events } = await run(await client(FLOWS), 'lookup', { who: 'leak' });
    expect(result.status).toBe('failed');
    expect(result.steps['find']!.error).toMatchObject({
      code: 'VALIDATION',
      details: {
        field: 'guardrails.piiDetection',
        constraint: 'no_pii',
        step: 'find',
        found: { email: 1, credit_card: 1 },
      },
    });
    const everything = JSON.stringify({ result, events });
    expect(everything).not.toContain(EMAIL);
    expect(everything).not.toContain(CARD);
  });

  it('lets the run go on with continue_on_error, the error readable by later steps', async () => {
    const { result } = await run(await client(FLOWS), 'tolerant');
    expect(result.status).toBe('completed');
    expect(result.steps['find']!.status).toBe('failed');
    expect(result.outputs).toEqual({ after: { why: 'no_pii', kinds: { email: 1 } } });
  });

  it('checks transform outputs against the schema, topics and toxicity', async () => {
    const weft = await client(FLOWS);
    const fine = await run(weft, 'shaped', { text: 'the weather is fine' });
    expect(fine.result.status).toBe('completed');
    const cases: [string, Record<string, unknown>][] = [
      [
        'a very long answer that is far over forty characters',
        {
          field: 'guardrails.outputSchema',
          constraint: 'schema',
          errors: [{ path: '/text', keyword: 'maxLength' }],
        },
      ],
      [
        'he gambled on nuclear weapons',
        {
          field: 'guardrails.blockedTopics',
          constraint: 'blocked_topic',
          found: { gambling: 1, 'nuclear weapon': 1 },
        },
      ],
      [
        'what the fuck',
        {
          field: 'guardrails.toxicityThreshold',
          constraint: 'max_toxicity',
          score: 0.5,
          threshold: 0.4,
          found: { profanity: 1 },
        },
      ],
    ];
    for (const [text, details] of cases) {
      const { result } = await run(weft, 'shaped', { text });
      expect(result.steps['answer']!.error, text).toMatchObject({ code: 'VALIDATION', details });
    }
  });

  it('checks the whole output of a for_each step', async () => {
    const { result } = await run(await client(FLOWS), 'each');
    expect(result.steps['find']!.error).toMatchObject({
      details: { field: 'guardrails.piiDetection', found: { credit_card: 1 } },
    });
  });

  it('ends a step that passes its timeLimit with TIMEOUT, aborting the action', async () => {
    const { result } = await run(await client(FLOWS), 'slow');
    expect(result.steps['wait']!.error).toMatchObject({
      code: 'TIMEOUT',
      details: { timeout_ms: 1000, field: 'guardrails.timeLimit' },
    });
  });

  it('counts the checks of the output within the timeLimit', async () => {
    const detectors = defaultDetectors().register({
      name: 'stuck',
      check: 'pii',
      detect: ({ signal }) =>
        new Promise((_resolve, reject) =>
          signal?.addEventListener('abort', () => reject(signal.reason)),
        ),
    });
    const weft = await client(
      `workflows:\n  - name: judged\n    steps:\n      - { name: find, plugin: crm, action: lookup, input: { who: ann }, guardrails: { piiDetection: true, timeLimit: 1 } }\n`,
      { guardrails: { detectors } },
    );
    const { result } = await run(weft, 'judged');
    expect(result.steps['find']!.error).toMatchObject({
      code: 'TIMEOUT',
      details: { field: 'guardrails.timeLimit' },
    });
  });

  it('reads an output to its end', async () => {
    const weft = await client(FLOWS);
    const clean = await run(weft, 'big', { tail: ' end', mb: 0.25 });
    expect(clean.result.status).toBe('completed');
    const { result } = await run(weft, 'big', { tail: ` write to ${EMAIL}`, mb: 0.25 });
    expect(result.steps['make']!.error).toMatchObject({ details: { found: { email: 1 } } });
  });

  it('refuses a 10 MB output at once: more text than the guardrails read (fail closed)', async () => {
    const { result } = await run(await client(FLOWS), 'big', { tail: '', mb: 10 });
    expect(result.steps['make']!.error).toMatchObject({
      code: 'VALIDATION',
      details: {
        field: 'guardrails.piiDetection',
        constraint: 'max_text_size',
        max_chars: 1048576,
      },
    });
  });

  it('reads a deeply nested output', async () => {
    const { result } = await run(await client(FLOWS), 'deep');
    expect(result.steps['make']!.error).toMatchObject({ details: { found: { email: 1 } } });
  });

  it('takes its text limit from the options', async () => {
    const weft = await client(FLOWS, { guardrails: { maxTextChars: 1000 } });
    const { result } = await run(weft, 'big', { tail: '', mb: 0.01 });
    expect(result.steps['make']!.error).toMatchObject({
      details: { constraint: 'max_text_size', max_chars: 1000 },
    });
  });

  it('meets guardrails in dry runs, on mocked answers (workflow test)', async () => {
    const weft = await client(`workflows:
  - name: mocked
    testing:
      dryRun:
        enabled: true
        mockData: { crm: { lookup: { contact: 'call +44 20 7946 0958' } } }
    steps:
      - { name: find, plugin: crm, action: lookup, input: {}, guardrails: { piiDetection: [phone] } }
`);
    const { result } = await run(weft, 'mocked');
    expect(result.steps['find']!.error).toMatchObject({ details: { found: { phone: 1 } } });
  });

  it('uses the detectors it is given in place of the defaults', async () => {
    const seen: string[] = [];
    const detectors = defaultDetectors().register({
      name: 'strict',
      check: 'pii',
      detect: ({ text }) => (
        seen.push(text),
        // eslint-disable-next-line @typescript-eslint/no-unnecessary-type-assertion -- it is needed: without it the empty branch is `{ postal?: undefined }`
        { found: text.includes('post') ? { postal: 1 } : ({} as Record<string, number>) }
      ),
    });
    const weft = await client(FLOWS, { guardrails: { detectors } });
    const { result } = await run(weft, 'lookup', { who: 'ann' });
    expect(result.steps['find']!.error).toMatchObject({ details: { found: { postal: 1 } } });
    expect(seen).toEqual(['name\nann\ncontact\nby post']);
  });

  it('fails closed when no detector serves a guardrail', async () => {
    const weft = await client(FLOWS, { guardrails: { detectors: new DetectorRegistry() } });
    const { result } = await run(weft, 'lookup', { who: 'ann' });
    expect(result.steps['find']!.error).toMatchObject({
      code: 'UNAVAILABLE',
      details: { backend: 'guardrails.pii' },
    });
  });

  it('is needed only by workflows that set guardrails or run agents', async () => {
    const weft = await client(FLOWS);
    const byName = new Map([...weft.workflows()].map((w) => [w.name, w]));
    expect(needsGuardrails([byName.get('plain')!])).toBe(false);
    expect(needsGuardrails([byName.get('lookup')!])).toBe(true);
    const { result } = await run(weft, 'plain');
    expect(result.status).toBe('completed');
  });
});
