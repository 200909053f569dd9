import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { run } from '../test-support.js';

const example = (name: string) =>
  fileURLToPath(new URL(`../../../../examples/${name}`, import.meta.url));

describe('weft workflow list', () => {
  it('prints name, version, triggers, step count and description as a table', async () => {
    const result = await run('workflow', 'list', example('order-fulfilment.yaml'));
    expect(result.code).toBe(0);
    const lines = result.out.trimEnd().split('\n');
    expect(lines[0]).toMatch(/^NAME\s+VERSION\s+TRIGGERS\s+STEPS\s+DESCRIPTION$/);
    expect(lines[1]).toMatch(/^order-fulfilment\s+1\.0\.0\s+event\s+4\s+Reserve stock/);
    expect(lines[2]).toMatch(/^charge-payment\s+1\.1\.4\s+-\s+1\s+Charge a card/);
  });

  it('prints a JSON array with --output json', async () => {
    const result = await run(
      'workflow',
      'list',
      '--output',
      'json',
      example('daily-sales-report.yaml'),
    );
    expect(JSON.parse(result.out)).toEqual([
      {
        name: 'daily-sales-report',
        version: '2.0.1',
        description: "Totals yesterday's orders per region and mails the report.",
        triggers: ['schedule', 'manual'],
        steps: 7,
        inputs: ['regions', 'currency', 'recipients', 'include_refunds'],
        outputs: ['report_id', 'regions'],
      },
    ]);
  });

  it('prints the errors of a broken file and exits 2', async () => {
    const result = await run('workflow', 'list', example('broken/typos.yaml'));
    expect(result.code).toBe(2);
    expect(result.out).toBe('');
    expect(result.err).toContain('error:');
  });

  it('lists several files like validate: a FILE column, a file key in JSON, broken ones skipped', async () => {
    const files = [example('hello.json'), example('daily-sales-report.yaml')];
    const table = await run('workflow', 'list', ...files);
    expect(table.code).toBe(0);
    expect(table.out).toMatch(/^FILE +NAME +VERSION/);
    expect(table.out).toMatch(/hello\.json +hello +1\.0\.0/);
    const json = await run('workflow', 'list', '-o', 'json', ...files);
    expect(
      JSON.parse(json.out).map((s: { file: string; name: string }) => [s.file, s.name]),
    ).toEqual([
      [files[0], 'hello'],
      [files[1], 'daily-sales-report'],
    ]);
    const broken = await run('workflow', 'list', example('broken/typos.yaml'), files[0]!);
    expect(broken.code).toBe(2);
    expect(broken.out).toMatch(/hello\.json +hello/);
    expect(broken.err).toMatch(/typos\.yaml: \d+ errors/);
  });

  it('refuses an unknown output format', async () => {
    const result = await run('workflow', 'list', '-o', 'yaml', example('hello.json'));
    expect(result.code).toBe(2);
    expect(result.err).toContain('Allowed choices are text, json');
  });
});
