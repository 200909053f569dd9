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

describe('the installed weft binary', () => {
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
    // Only the warnings about authorization and guardrails, which are not enforced yet.
    const warnings = result.stderr.trim().split('\n');
    expect(warnings).toHaveLength(4);
    for (const line of warnings)
      expect(line).toMatch(/: warning: .*validated but not enforced yet/);
    expect(result.code).toBe(0);
    expect(result.stdout.match(/^ok /gm)).toHaveLength(4);
  });

  it('exits 2 on a broken file with file:line:column errors', async () => {
    const result = await weft('workflow', 'validate', 'examples/broken/typos.yaml');
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/^examples\/broken\/typos\.yaml:\d+:\d+: error: /m);
  });
});
