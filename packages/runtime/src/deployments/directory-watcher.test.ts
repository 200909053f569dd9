import { mkdirSync, mkdtempSync, rmSync, unlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { EnvironmentSecretsProvider, keyPrincipal } from '@weft/core';
import { openTestTriggerStores, type TestTriggerStores } from '@weft/store';
import { RecordingStarter } from '../triggers/test-support.js';
import { createTriggers, type Triggers } from './create-triggers.js';
import { watchWorkflowDirectory } from './directory-watcher.js';

const flow = (name: string, extra: Record<string, unknown> = {}) => ({
  name,
  steps: [{ name: 'noop', type: 'transform', input: { ok: true } }],
  ...extra,
});
const file = (...workflows: unknown[]) => JSON.stringify({ workflows });

let dir: string;
let stores: TestTriggerStores;
let triggers: Triggers;

/** A server's triggers on the shared SQLite store (a restart is a new one). */
async function server(defaultOwner?: string): Promise<Triggers> {
  const made = createTriggers({
    ...(defaultOwner !== undefined ? { defaultOwner } : {}),
    start: new RecordingStarter().start,
    authenticate: async () => keyPrincipal({ keyId: 'k', owner: 'acme' }),
    triggerStore: stores.triggers,
    deploymentStore: stores.deployments,
    secrets: new EnvironmentSecretsProvider({}),
    reconcileIntervalMs: 0,
  });
  await made.start();
  return made;
}

/** Stops the running server and starts a new one on the same store. */
async function restart(): Promise<void> {
  await triggers.close();
  triggers = await server();
}

beforeEach(async () => {
  dir = mkdtempSync(join(tmpdir(), 'weft-watch-'));
  stores = await openTestTriggerStores('sqlite', join(dir, 'data'));
  triggers = await server();
});
afterEach(async () => {
  await triggers.close();
  await stores.dispose();
  rmSync(dir, { recursive: true, force: true });
});

const names = async () => (await stores.deployments.list()).map((r) => r.name);

describe('the workflows directory at start', () => {
  it('undeploys the workflows of a file deleted while no server ran', async () => {
    const flows = join(dir, 'flows');
    mkdirSync(flows);
    writeFileSync(join(flows, 'a.yaml'), file(flow('a'), flow('a2')));
    writeFileSync(join(flows, 'b.json'), file(flow('b')));
    await watchWorkflowDirectory(flows, triggers.service, { once: true });
    // Another directory's workflow and an API deployment are not this directory's business.
    await triggers.service.deploy(flow('api'), 'api', 'acme');
    await triggers.service.deploy(flow('elsewhere'), `file:${join(dir, 'a.yaml')}`, null);
    await triggers.close();
    unlinkSync(join(flows, 'a.yaml'));
    triggers = await server();
    expect(triggers.service.workflowOf('a', 'local')).toBeDefined();
    await watchWorkflowDirectory(flows, triggers.service, { once: true });
    expect(await names()).toEqual(['api', 'b', 'elsewhere']);
    expect(triggers.service.workflowOf('a', 'local')).toBeUndefined();
  });

  it('moves a file’s workflows to a new directory owner, the old owner’s stopping', async () => {
    writeFileSync(join(dir, 'a.yaml'), file(flow('a')));
    await watchWorkflowDirectory(dir, triggers.service, { once: true });
    await triggers.close();
    triggers = await server('ops');
    await watchWorkflowDirectory(dir, triggers.service, { once: true });
    expect((await stores.deployments.list()).map((r) => `${r.owner}/${r.name}`)).toEqual(['ops/a']);
    expect(triggers.service.workflowOf('a', 'local')).toBeUndefined();
    expect(triggers.service.workflowOf('a', 'ops')).toBeDefined();
  });

  it('adds no revision when a file is deployed again unchanged, as on every restart', async () => {
    writeFileSync(join(dir, 'a.yaml'), file(flow('a')));
    await watchWorkflowDirectory(dir, triggers.service, { once: true });
    await restart();
    await watchWorkflowDirectory(dir, triggers.service, { once: true });
    expect((await stores.deployments.history('local', 'a')).map((r) => r.revision)).toEqual([1]);
    writeFileSync(join(dir, 'a.yaml'), file(flow('a', { version: '1.1.0' })));
    await watchWorkflowDirectory(dir, triggers.service, { once: true });
    expect((await stores.deployments.history('local', 'a')).map((r) => r.revision)).toEqual([2, 1]);
  });
});

describe('a workflow file with several workflows', () => {
  it('deploys none of them when one fails, leaving the previous ones serving', async () => {
    const path = join(dir, 'pair.yaml');
    writeFileSync(path, file(flow('first'), flow('second')));
    const watched = await watchWorkflowDirectory(dir, triggers.service, { once: true });
    writeFileSync(
      path,
      file(flow('first', { version: '2.0.0' }), flow('second', { steps: 'not a list' })),
    );
    await watched.sync('pair.yaml');
    const stored = await stores.deployments.list();
    expect(stored.map((r) => `${r.name}@${r.version}#${r.revision}`)).toEqual([
      'first@1.0.0#1',
      'second@1.0.0#1',
    ]);
    expect(triggers.service.workflowOf('first', 'local')?.version).toBe('1.0.0');
  });
});

describe('a workflow file that does not deploy', () => {
  it('logs one line per problem as file:line:column, and keeps what was deployed', async () => {
    const lines: { level: string; message: string; fields: object }[] = [];
    const at =
      (level: string) =>
      (fields: object, message: string): void =>
        void lines.push({ level, message, fields });
    const logger = { info: at('info'), warn: at('warn'), error: at('error') };
    const path = join(dir, 'bad.yaml');
    writeFileSync(path, file(flow('bad')));
    await watchWorkflowDirectory(dir, triggers.service, { once: true, logger });
    expect(await names()).toEqual(['bad']);

    writeFileSync(
      path,
      [
        'workflows:',
        '  - name: bad',
        '    steps:',
        '      - name: s',
        '        type: transform',
        "        input: { x: '{{ inputs.nope }}' }",
        '      - name: t',
        '        type: transfrom',
        '',
      ].join('\n'),
    );
    lines.length = 0;
    await watchWorkflowDirectory(dir, triggers.service, { once: true, logger });
    expect(lines.filter((l) => l.level === 'error').map((l) => l.message)).toEqual([
      `could not deploy ${path} (3 problems; what it deployed before keeps serving):`,
      `${path}:6:25: error: workflows[0].steps[0].input.x: unknown input "nope" (the workflow declares no inputs)`,
      expect.stringMatching(
        new RegExp(`^${path}:7:9: error: workflows\\[0\\]\\.steps\\[1\\]: the step does nothing`),
      ),
      expect.stringMatching(
        new RegExp(`^${path}:8:15: error: workflows\\[0\\]\\.steps\\[1\\]\\.type: expected one of`),
      ),
    ]);
    // No line carries the whole error object.
    expect(JSON.stringify(lines)).not.toContain('"diagnostics"');
    expect(await names()).toEqual(['bad']);
  });

  it('names the line and column of a YAML syntax error', async () => {
    const lines: string[] = [];
    const logger = {
      info: () => {},
      warn: () => {},
      error: (_fields: object, message: string) => void lines.push(message),
    };
    const path = join(dir, 'broken.yaml');
    writeFileSync(path, 'workflows:\n  - name: x\n    steps: [\n');
    await watchWorkflowDirectory(dir, triggers.service, { once: true, logger });
    expect(lines[0]).toMatch(/^could not deploy .*broken\.yaml \(1 problem;/);
    expect(lines[1]).toMatch(new RegExp(`^${path}:\\d+:\\d+: error: `));
  });
});
