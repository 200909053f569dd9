import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { run } from '../test-support.js';

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'weft-lock-'));
  mkdirSync(join(dir, 'plugins'));
  mkdirSync(join(dir, 'agents'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

/** A shell connector `name` at `version` whose action `echo` answers `{"from": name}`. */
function connector(name: string, version: string, extra = ''): string {
  const text = `connector:
  type: connector
  kind: shell
  name: ${name}
  namespace: acme
  version: ${version}
  timeout: 10${extra}
actions:
  - name: echo
    description: answers its name
    command: ["echo", '{"from": "${name}"}']
`;
  writeFileSync(join(dir, 'plugins', `${name}.yaml`), text);
  return text;
}

function agent(version: string): void {
  writeFileSync(
    join(dir, 'agents', `helper-${version}.yaml`),
    `agent:
  namespace: acme
  name: helper
  version: ${version}
  model: openai-compatible:test
  base_url: http://127.0.0.1:9/v1
  instructions: Help.
`,
  );
}

const WORKFLOWS = `workflows:
  - name: orders
    version: 1.0.0
    steps:
      - { name: a, plugin: tools, action: echo }
      - { name: b, plugin: mail, action: echo }
      - { name: sub, type: workflow, workflow: helper, version: ^1.0.0 }
    outputs:
      from: { value: "{{ steps.a.output.from }}" }
    testing:
      fixtures:
        - { name: basic, expectedOutputs: { from: tools } }
  - name: helper
    version: 1.2.0
    steps:
      - { name: t, type: transform, input: { ok: true } }
`;

const file = () => join(dir, 'flow.yaml');
const lockFile = () => join(dir, 'weft.lock');
const dirs = () => ['--plugins', join(dir, 'plugins'), '--agents', join(dir, 'agents')];
const lock = (...args: string[]) => run('workflow', 'lock', ...args, ...dirs());
const runOrders = (...args: string[]) =>
  run('workflow', 'run', file(), '-w', 'orders', ...dirs(), ...args);
const sha = (text: string) => `sha256:${createHash('sha256').update(text).digest('hex')}`;
const locked = () => parse(readFileSync(lockFile(), 'utf8'));

function project(): { tools: string; mail: string } {
  writeFileSync(file(), WORKFLOWS);
  return { tools: connector('tools', '1.0.0'), mail: connector('mail', '2.0.0') };
}

describe('weft workflow lock', () => {
  it('writes every reference with its version and the checksum of its file, sorted, with a header', async () => {
    const { tools, mail } = project();
    const result = await lock(file());
    expect(result.err).toBe('');
    expect(result.code).toBe(0);
    const text = readFileSync(lockFile(), 'utf8');
    expect(text.startsWith('# weft.lock: written by `weft workflow lock`')).toBe(true);
    const orders = locked().workflows.orders;
    expect(orders.version).toBe('1.0.0');
    expect(orders.plugins.tools).toMatchObject({ version: '1.0.0', checksum: sha(tools) });
    expect(orders.plugins.mail).toMatchObject({ version: '2.0.0', checksum: sha(mail) });
    expect(Object.keys(orders.plugins)).toEqual(['mail', 'tools']);
    expect(orders.workflows['helper@^1.0.0'].version).toBe('1.2.0');
    expect(Object.keys(locked().workflows)).toEqual(['helper', 'orders']);
    // Locking again changes nothing, byte for byte.
    const again = await lock(file());
    expect(again.out).toBe(`${lockFile()} is up to date\n`);
    expect(readFileSync(lockFile(), 'utf8')).toBe(text);
  });

  it('refuses a run, a test and a new lock when a locked plugin file was changed, naming both checksums', async () => {
    const { tools } = project();
    await lock(file());
    expect((await runOrders()).code).toBe(0);
    const tampered = connector('tools', '1.0.0', '\n  concurrency: 3');
    const refused = await runOrders();
    expect(refused.code).toBe(2);
    expect(refused.err).toContain('plugin tools of workflow orders');
    expect(refused.err).toContain(`locked 1.0.0 ${sha(tools)}`);
    expect(refused.err).toContain(`found 1.0.0 ${sha(tampered)}`);
    expect(refused.out).toBe('');
    const test = await run('workflow', 'test', file(), '--all-fixtures', ...dirs());
    expect(test.code).toBe(2);
    expect(test.err).toContain(`found 1.0.0 ${sha(tampered)}`);
    const before = readFileSync(lockFile(), 'utf8');
    const relock = await lock(file());
    expect(relock.code).toBe(2);
    expect(relock.err).toContain(`found 1.0.0 ${sha(tampered)}`);
    expect(readFileSync(lockFile(), 'utf8')).toBe(before);
  });

  it('--frozen-lockfile refuses a missing lock and a reference that is not locked', async () => {
    project();
    const none = await runOrders('--frozen-lockfile');
    expect(none.code).toBe(2);
    expect(none.err).toContain('there is no');
    await lock(file());
    writeFileSync(
      file(),
      WORKFLOWS.replace(
        '      - { name: sub',
        '      - { name: c, plugin: extra, action: echo }\n      - { name: sub',
      ),
    );
    connector('extra', '0.1.0');
    const frozen = await runOrders('--frozen-lockfile');
    expect(frozen.code).toBe(2);
    expect(frozen.err).toContain('would change');
    expect(frozen.err).toContain('plugin extra of workflow orders is not locked');
    // Without the flag the run goes on, with a note.
    const loose = await runOrders();
    expect(loose.code).toBe(0);
    expect(loose.err).toContain('plugin extra of workflow orders is not locked');
  });

  it('--update moves the one it names and leaves the rest as locked', async () => {
    const { mail } = project();
    await lock(file());
    const tools = connector('tools', '1.1.0');
    connector('mail', '2.1.0');
    const moved = await lock(file(), '--update', 'tools');
    expect(moved.code).toBe(0);
    expect(moved.out).toContain('orders: plugin tools 1.0.0 -> 1.1.0');
    const orders = locked().workflows.orders;
    expect(orders.plugins.tools).toMatchObject({ version: '1.1.0', checksum: sha(tools) });
    expect(orders.plugins.mail).toMatchObject({ version: '2.0.0', checksum: sha(mail) });
    // mail is still locked at 2.0.0: the run is refused for it, not for tools.
    const refused = await runOrders();
    expect(refused.code).toBe(2);
    expect(refused.err).toContain('plugin mail of workflow orders: locked 2.0.0');
    expect(refused.err).not.toContain('plugin tools');
    expect((await lock(file(), '--update', 'nothing-such')).code).toBe(2);
  });

  it('keeps the locked version of a ranged agent reference when a newer one appears', async () => {
    writeFileSync(
      file(),
      `workflows:
  - name: ask
    steps:
      - { name: q, type: agent, agent: "agent:acme/helper@^2.0.0", input: { question: hi } }
`,
    );
    agent('2.0.0');
    await lock(file());
    agent('2.1.0');
    expect((await lock(file())).out).toContain('is up to date');
    expect(locked().workflows.ask.agents['agent:acme/helper@^2.0.0'].version).toBe('2.0.0');
    await lock(file(), '--update', 'acme/helper');
    expect(locked().workflows.ask.agents['agent:acme/helper@^2.0.0'].version).toBe('2.1.0');
  });
});

describe('a hostile weft.lock', () => {
  const cases: [string, string, RegExp][] = [
    ['bad YAML', 'lockfile_version: 1\nworkflows: [\n', /weft\.lock:\d+:\d+: error/],
    [
      'an unknown key',
      'lockfile_version: 1\nworkflows:\n  orders:\n    version: 1.0.0\n    pluginz: {}\n',
      /weft\.lock:5:5: error: workflows\.orders\.pluginz: unknown key "pluginz"/,
    ],
    [
      'a wrong type',
      'lockfile_version: 1\nworkflows:\n  orders:\n    version: [1]\n',
      /weft\.lock:4:14: error: workflows\.orders\.version: must be a string/,
    ],
    [
      'a checksum of another shape',
      'lockfile_version: 1\nworkflows:\n  orders:\n    version: 1.0.0\n    plugins:\n      tools: { version: 1.0.0, checksum: md5:00 }\n',
      /weft\.lock:6:42: error: .*checksum: must be sha256: followed by 64 lowercase hex digits/,
    ],
    [
      'another format version',
      'lockfile_version: 2\nworkflows: {}\n',
      /lockfile_version must be 1/,
    ],
    [
      'an alias bomb',
      `lockfile_version: 1\na: &a [x, x, x, x, x, x, x, x, x, x]\nb: &b [*a, *a, *a, *a, *a, *a, *a, *a, *a, *a]\nc: [*b, *b, *b, *b, *b, *b, *b, *b, *b, *b, *b, *b]\n`,
      /weft\.lock:\d+:\d+: error: .*alias/i,
    ],
    ['a huge file', `lockfile_version: 1\n# ${'x'.repeat(5 * 1024 * 1024)}\n`, /over the limit/],
  ];
  it.each(cases)('refuses %s with its place and rule', async (_what, text, message) => {
    project();
    writeFileSync(lockFile(), text);
    const result = await runOrders();
    expect(result.code).toBe(2);
    expect(result.err).toMatch(message);
    expect(result.out).toBe('');
    // Locking over it is refused too: the file is left as it is.
    expect((await lock(file())).code).toBe(2);
    expect(readFileSync(lockFile(), 'utf8')).toBe(text);
    expect(existsSync(`${lockFile()}.tmp`)).toBe(false);
  });
});
