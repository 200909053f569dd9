import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';

const root = fileURLToPath(new URL('../../', import.meta.url));
const bin = `${root}node_modules/.bin/weft`;
const exec = promisify(execFile);

async function weft(...args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  try {
    const { stdout, stderr } = await exec(bin, args, {
      cwd: root,
      env: { ...process.env, NO_COLOR: '1' },
    });
    return { code: 0, stdout, stderr };
  } catch (error) {
    const e = error as { code: number; stdout: string; stderr: string };
    return { code: e.code, stdout: e.stdout, stderr: e.stderr };
  }
}

describe('the installed weft binary', { timeout: 60_000 }, () => {
  it('is linked by npm install and prints its help', async () => {
    expect(existsSync(bin)).toBe(true);
    const result = await weft('--help');
    expect(result.code).toBe(0);
    expect(result.stdout).toContain('Usage: weft');
  });

  it('validates every example and exits 0', async () => {
    const result = await weft(
      'workflow',
      'validate',
      'examples/hello.json',
      'examples/daily-sales-report.yaml',
      'examples/github-issue-triage.yaml',
      'examples/order-fulfilment.yaml',
    );
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    expect(result.stdout.match(/^ok /gm)).toHaveLength(4);
  });

  it('runs a guarded workflow only as the grants declared, and with --approve when stdin is no terminal', async () => {
    const event = JSON.stringify({
      order_id: 'A-1',
      items: [{ sku: 'x', qty: 1 }],
      total: 12.5,
      contacts: [{ email: 'a@b.c' }],
    });
    const args = ['workflow', 'run', 'examples/order-fulfilment.yaml', '-w', 'order-fulfilment'];
    const grants = ['--role', 'fulfilment', '--permission', 'orders:write'];
    const refused = await weft(...args, '--event', event, ...grants);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain(
      'not authorized to run workflow "order-fulfilment": it needs the permissions payments:charge',
    );
    const all = [...grants, '--permission', 'payments:charge'];
    const unapproved = await weft(...args, '--event', event, ...all);
    expect(unapproved.code).toBe(2);
    expect(unapproved.stderr).toContain('requires approval by one of: shift-lead');
    expect(unapproved.stderr).toContain('pass --approve');
    const approved = await weft(...args, '--event', event, ...all, '--approve', '-o', 'json');
    // The example's actions are answered by its dry-run mocks: one line for each, and nothing else.
    expect(
      approved.stderr
        .trim()
        .split('\n')
        .filter((line) => !/^dry run: step \S+ mocked \(/.test(line)),
    ).toEqual([]);
    expect(JSON.parse(approved.stdout).mocked_steps).toContainEqual(
      expect.objectContaining({ step: 'reserve' }),
    );
    expect(approved.code).toBe(0);
    expect(JSON.parse(approved.stdout)).toMatchObject({
      status: 'completed',
      outputs: { tracking_url: 'https://track.example.com/ZX81', payment_id: 'pi_123' },
    });
  });

  it('exits 2 on a broken file with file:line:column errors', async () => {
    const result = await weft('workflow', 'validate', 'examples/broken/typos.yaml');
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/^examples\/broken\/typos\.yaml:\d+:\d+: error: /m);
  });
});
