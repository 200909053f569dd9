import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { run } from '../test-support.js';

const examples = fileURLToPath(new URL('../../../../examples/', import.meta.url));
const example = (name: string) => join(examples, name);

function temp(name: string, text: string): string {
  const path = join(mkdtempSync(join(tmpdir(), 'weft-run-')), name);
  writeFileSync(path, text);
  return path;
}

describe('weft workflow run', () => {
  it('--dry-run says which steps mocks answered, on stderr and as mocked_steps', async () => {
    const file = temp(
      'dry.yaml',
      `workflows:
  - name: pay
    steps:
      - { name: quote, type: transform, input: { amount: 5 } }
      - { name: charge, plugin: bank, action: pay, input: { amount: '{{ steps.quote.output.amount }}' } }
      - { name: receipt, plugin: bank, action: receipt, input: {} }
    testing:
      dryRun:
        mockConnectors: true
        mockData: { bank: { pay: { paid: true }, receipt: { sent: true } } }
`,
    );
    const text = await run('workflow', 'run', file, '--dry-run');
    expect(text.code).toBe(0);
    expect(text.out).toMatch(/^pay completed/);
    expect(text.err).toBe(
      'dry run: step charge mocked (bank pay, from testing.dryRun.mockData)\n' +
        'dry run: step receipt mocked (bank receipt, from testing.dryRun.mockData)\n',
    );
    const json = await run('workflow', 'run', file, '--dry-run', '-o', 'json');
    expect(JSON.parse(json.out)).toMatchObject({
      status: 'completed',
      mocked_steps: [
        { step: 'charge', target: 'bank', action: 'pay' },
        { step: 'receipt', target: 'bank', action: 'receipt' },
      ],
    });
  });

  it('runs a workflow with a shell connector and prints a summary', async () => {
    const result = await run(
      'workflow',
      'run',
      example('hello.json'),
      '--plugins',
      example('connectors'),
      '-i',
      'who=grace hopper',
    );
    expect(result.err).toBe('');
    expect(result.code).toBe(0);
    expect(result.out).toMatch(/^hello completed in \d+ ms/);
    expect(result.out).toContain('greeting: "Hello, Grace Hopper!"');
    expect(result.out).toContain('words: 3');
  });

  it('prints the JSON document with --output json', async () => {
    const result = await run(
      'workflow',
      'run',
      example('daily-sales-report.yaml'),
      '-i',
      'recipients=a@b.c',
      '-i',
      'regions=["emea"]',
      '-o',
      'json',
    );
    expect(result.code).toBe(0);
    const doc = JSON.parse(result.out) as Record<string, unknown>;
    expect(doc).toMatchObject({
      workflow: 'daily-sales-report',
      status: 'completed',
      outputs: { regions: 1, report_id: 'msg-1' },
    });
    expect((doc['steps'] as Record<string, { status: string }>)['totals']!.status).toBe('success');
  });

  it('streams every event as a JSON line with --stream', async () => {
    const result = await run(
      'workflow',
      'run',
      example('github-issue-triage.yaml'),
      '--payload',
      `@${example('payloads/github-issue-opened.json')}`,
      '--role',
      'triager',
      '--permission',
      'issues:write',
      '--permission',
      'slack:post',
      '--stream',
      '-o',
      'json',
    );
    const lines = result.out.split('\n').filter((l) => l.startsWith('{"type"'));
    expect(lines.map((l) => (JSON.parse(l) as { type: string }).type)).toEqual([
      'step.started',
      'step.completed',
      'step.started',
      'step.completed',
      'step.started',
      'step.completed',
      'workflow.completed',
    ]);
  });

  it('exits 1 when the run fails and 2 on a bad input, before any step runs', async () => {
    const failing = temp(
      'f.yaml',
      "workflows:\n  - name: f\n    inputs: { n: { type: number } }\n    steps: [{ name: t, type: transform, input: { x: '{{ inputs.n / 0 }}' } }]\n",
    );
    expect((await run('workflow', 'run', failing, '-i', 'n=1')).code).toBe(1);
    const bad = await run('workflow', 'run', failing, '-i', 'n=abc');
    expect(bad.code).toBe(2);
    expect(bad.err).toContain('input "n" must be a number');
  });

  it('asks which workflow to run when a file has several', async () => {
    const result = await run('workflow', 'run', example('order-fulfilment.yaml'));
    expect(result.code).toBe(2);
    expect(result.err).toContain('pick one with --workflow NAME, or --all');
  });

  it('loads handlers from a --require module', async () => {
    const module = temp(
      'handlers.mjs',
      "export default (weft) => weft.registerHandler('calc.add', (input) => ({ sum: input.a + input.b }));\n",
    );
    const flow = temp(
      'calc.yaml',
      "workflows:\n  - name: calc\n    steps: [{ name: add, plugin: calc, action: add, input: { a: 2, b: 3 } }]\n    outputs: { sum: { value: '{{ steps.add.output.sum }}' } }\n",
    );
    const result = await run('workflow', 'run', flow, '--require', module, '-o', 'json');
    expect(JSON.parse(result.out)).toMatchObject({ status: 'completed', outputs: { sum: 5 } });
  });

  it('refuses a malformed --input', async () => {
    const result = await run('workflow', 'run', example('hello.json'), '-i', 'novalue');
    expect(result.code).toBe(2);
    expect(result.err).toContain('expected key=value');
  });
});

describe('weft workflow test', () => {
  it('passes fixtures whose expected outputs match', async () => {
    const result = await run(
      'workflow',
      'test',
      example('daily-sales-report.yaml'),
      '--all-fixtures',
    );
    expect(result.code).toBe(0);
    expect(result.out).toContain('2 passed, 0 failed');
  });

  it('fails a fixture with a readable diff and exits 1', async () => {
    const flow = temp(
      't.yaml',
      "workflows:\n  - name: t\n    steps: [{ name: s, type: transform, input: { v: 2 } }]\n    outputs: { v: { value: '{{ steps.s.output.v }}' } }\n    testing:\n      fixtures: [{ name: wrong, expectedOutputs: { v: 3 } }]\n",
    );
    const result = await run('workflow', 'test', flow, '--fixture', 'wrong');
    expect(result.code).toBe(1);
    expect(result.out).toContain('FAIL t › wrong');
    expect(result.out).toContain('- expected 3');
    expect(result.out).toContain('+ actual   2');
  });

  it('names the fixtures a file has when one is unknown', async () => {
    const result = await run(
      'workflow',
      'test',
      example('daily-sales-report.yaml'),
      '--fixture',
      'nope',
    );
    expect(result.code).toBe(2);
    expect(result.err).toContain('no fixture named "nope"; the file has two-regions, defaults');
  });

  it('says a file has no fixtures when --all-fixtures finds none', async () => {
    const bare = temp(
      'bare.yaml',
      'workflows:\n  - name: bare\n    steps:\n      - id: s\n        type: transform\n        input: { a: 1 }\n',
    );
    const result = await run('workflow', 'test', bare, '--all-fixtures');
    expect(result.code).toBe(2);
    expect(result.err).toMatch(
      /bare\.yaml has no fixtures to run: add them under testing\.fixtures/,
    );
    expect(result.err).not.toContain('at all');
  });
});
