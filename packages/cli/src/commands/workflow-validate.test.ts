import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { run } from '../test-support.js';

const examples = fileURLToPath(new URL('../../../../examples/', import.meta.url));
const example = (name: string) => join(examples, name);

describe('weft workflow validate', () => {
  it('prints ok and a one-line summary per workflow, and exits 0', async () => {
    const result = await run('workflow', 'validate', example('order-fulfilment.yaml'));
    expect(result.code).toBe(0);
    expect(result.out).toContain(`ok ${example('order-fulfilment.yaml')}`);
    expect(result.out).toContain(
      '  order-fulfilment 1.0.0: 4 steps, 0 inputs, 2 outputs; triggers: event',
    );
    expect(result.out).toContain(
      '  charge-payment 1.1.4: 1 step, 3 inputs, 2 outputs; triggers: none',
    );
  });

  it('validates several files and fails when one is broken', async () => {
    const result = await run(
      'workflow',
      'validate',
      example('hello.json'),
      example('broken/typos.yaml'),
    );
    expect(result.code).toBe(2);
    expect(result.out).toContain('ok ');
    expect(result.err).toMatch(
      /typos\.yaml:4:5: error: workflows\[0\]\.verison: unknown key "verison" \(did you mean "version"\?\)/,
    );
    expect(result.err).toMatch(/typos\.yaml: \d+ errors/);
    // Every mistake at once, as the file's first line says: the bad cron and time zone too.
    expect(result.err).toContain('triggers[0].cron: invalid cron expression');
    expect(result.err).toContain('triggers[0].timezone: unknown time zone "Europe/Berln"');
  });

  it('reports a missing file as an error with exit 2', async () => {
    const result = await run('workflow', 'validate', 'no/such/file.yaml');
    expect(result.code).toBe(2);
    expect(result.err).toContain('no/such/file.yaml: error: no such file');
  });

  it('refuses files over --max-file-size without reading them', async () => {
    const result = await run(
      'workflow',
      'validate',
      '--max-file-size',
      '100',
      example('hello.json'),
    );
    expect(result.code).toBe(2);
    expect(result.err).toMatch(/over the limit of 100 bytes/);
  });

  it('accepts sizes with units and refuses nonsense sizes as usage errors', async () => {
    expect(
      (await run('workflow', 'validate', '--max-file-size', '2MiB', example('hello.json'))).code,
    ).toBe(0);
    const bad = await run('workflow', 'validate', '--max-file-size', 'lots', example('hello.json'));
    expect(bad.code).toBe(2);
    expect(bad.err).toContain("option '--max-file-size <size>' argument 'lots' is invalid");
  });

  it('prints a machine-readable report with --output json', async () => {
    const result = await run('workflow', 'validate', '-o', 'json', example('broken/typos.yaml'));
    expect(result.code).toBe(2);
    const [report] = JSON.parse(result.out) as {
      ok: boolean;
      diagnostics: { path: string; line: number }[];
    }[];
    expect(report!.ok).toBe(false);
    expect(report!.diagnostics[0]).toMatchObject({
      path: 'workflows[0].verison',
      line: 4,
      column: 5,
    });
  });

  it('validates only the workflow chosen with --workflow', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'weft-cli-'));
    const file = join(dir, 'two.yaml');
    writeFileSync(
      file,
      'workflows:\n  - name: good\n    steps: [{ name: a, plugin: p, action: x }]\n  - name: bad\n    steps: [{ name: a, plugin: p, action: x, timeout: 0 }]\n',
    );
    expect((await run('workflow', 'validate', file)).code).toBe(2);
    const chosen = await run('workflow', 'validate', '--workflow', 'good', file);
    expect(chosen.code).toBe(0);
    expect(chosen.out).toContain('good 1.0.0: 1 step');
  });
});

describe('weft workflow validate: guardrails', () => {
  const write = (text: string): string => {
    const file = join(mkdtempSync(join(tmpdir(), 'weft-cli-')), 'flow.yaml');
    writeFileSync(file, text);
    return file;
  };
  const guarded = [
    'workflows:',
    '  - name: triage',
    '    steps:',
    '      - name: classify',
    '        type: agent',
    '        agent: agent:acme/classifier@1.0.0',
    '        guardrails: { maxTokens: 100, piiDetection: true }',
    '      - name: shape',
    '        type: transform',
    '        input: { x: 1 }',
    '        guardrails: { piiDetection: [email], toxicityThreshold: 0.5, timeLimit: 5 }',
    '',
  ].join('\n');

  it('accepts guardrails without a warning: they are enforced', async () => {
    const file = write(guarded);
    const result = await run('workflow', 'validate', file);
    expect(result.code).toBe(0);
    expect(result.out).toContain(`ok ${file}`);
    expect(result.err).toBe('');
  });

  it('refuses bad guardrail values at their place, with the constraint in the JSON report', async () => {
    const bad = guarded
      .replace('toxicityThreshold: 0.5', 'toxicityThreshold: 2')
      .replace('piiDetection: [email]', 'piiDetection: [email, passport], maxToolCalls: 1');
    const result = await run('workflow', 'validate', '-o', 'json', write(bad));
    expect(result.code).toBe(2);
    const [report] = JSON.parse(result.out) as {
      diagnostics: { code: string; path: string }[];
    }[];
    expect(report!.diagnostics.map((d) => d.path)).toEqual([
      'workflows[0].steps[1].guardrails.piiDetection[1]',
      'workflows[0].steps[1].guardrails.maxToolCalls',
      'workflows[0].steps[1].guardrails.toxicityThreshold',
    ]);
    expect(report!.diagnostics[1]!.code).toBe('agent_only');
  });
});

describe('weft usage', () => {
  it('exits 2 with a message on an unknown command or option', async () => {
    const command = await run('workflow', 'valdate', 'x.yaml');
    expect(command.code).toBe(2);
    expect(command.err).toContain("unknown command 'valdate'");
    const option = await run('workflow', 'validate', '--strict', 'x.yaml');
    expect(option.code).toBe(2);
    expect(option.err).toContain("unknown option '--strict'");
  });

  it('exits 2 when a required argument is missing', async () => {
    const result = await run('workflow', 'list');
    expect(result.code).toBe(2);
    expect(result.err).toContain("missing required argument 'files'");
  });

  it('prints help for every command and exits 0', async () => {
    for (const args of [
      ['--help'],
      ['workflow', '--help'],
      ['workflow', 'validate', '--help'],
      ['workflow', 'list', '--help'],
    ]) {
      const result = await run(...args);
      expect(result.code, args.join(' ')).toBe(0);
      expect(result.out).toContain('Usage: weft');
    }
  });
});
