import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { EnvironmentSecretsProvider, UnauthorizedError } from '@weft/core';
import { MemoryDeploymentStore, MemoryTriggerStore } from '@weft/store/memory';
import { RecordingStarter } from '../triggers/test-support.js';
import { createTriggers, type Triggers } from './create-triggers.js';
import { watchWorkflowDirectory } from './directory-watcher.js';

// The deployment service's check of agent steps through the `checkAgent` port (the server fills
// it with its agent runner): here a fixed set of agents this "server" can run.
const KNOWN = new Set(['agent:acme/helper@^1', 'agent:acme/helper@1.1.0']);

const ask = (name: string, agent: string) => ({
  name,
  type: 'agent',
  agent,
  input: { prompt: 'hi' },
});

let triggers: Triggers;
let store: MemoryDeploymentStore;
let checked: string[];

beforeEach(async () => {
  store = new MemoryDeploymentStore();
  checked = [];
  triggers = createTriggers({
    start: new RecordingStarter().start,
    authenticate: async () => {
      throw new UnauthorizedError('no keys here', { reason: 'invalid' });
    },
    triggerStore: new MemoryTriggerStore(),
    deploymentStore: store,
    secrets: new EnvironmentSecretsProvider({}),
    reconcileIntervalMs: 0,
    checkAgent: async (ref) => {
      checked.push(ref);
      return KNOWN.has(ref) ? undefined : `unknown agent ${ref}`;
    },
    // acme-helper is an agent with versions 1.0.0 and 1.1.0 published.
    resolveAgentVersions: async (slug) =>
      slug === 'acme-helper'
        ? (range) => (range === '1.0.0' || range === '1.1.0' ? range : '1.1.0')
        : undefined,
  });
  await triggers.start();
});
afterEach(async () => {
  await triggers.close();
});

describe('deploying agent steps', () => {
  it('warns once per agent step the server cannot run, naming the step and the reference', async () => {
    const deployed = await triggers.service.deploy(
      {
        name: 'support',
        steps: [
          ask('fine', 'agent:acme/helper@^1'),
          ask('first', 'agent:acme/missing@^2'),
          {
            name: 'both',
            type: 'parallel',
            parallel: [
              ask('second', 'agent:acme/missing@^2'),
              ask('pinned', 'agent:acme/helper@1.1.0'),
            ],
          },
        ],
      },
      'api',
      'acme',
    );
    expect(deployed.warnings).toEqual([
      'agent step "first" references agent:acme/missing@^2, which this server cannot run: runs of "support" fail with VALIDATION until it can (unknown agent agent:acme/missing@^2)',
      'agent step "second" references agent:acme/missing@^2, which this server cannot run: runs of "support" fail with VALIDATION until it can (unknown agent agent:acme/missing@^2)',
    ]);
    // Each distinct reference is asked once.
    expect(checked.sort()).toEqual([
      'agent:acme/helper@1.1.0',
      'agent:acme/helper@^1',
      'agent:acme/missing@^2',
    ]);
    expect((await store.get('acme', 'support'))?.revision).toBe(1);
  });

  it('checks the agent steps of the workflows a subworkflow step calls', async () => {
    const [, caller] = await triggers.service.deployAll(
      [
        { name: 'inner', steps: [ask('deep', 'agent:acme/gone@1.0.0')] },
        { name: 'outer', steps: [{ name: 'call', type: 'workflow', workflow: 'inner' }] },
      ],
      'api',
      'acme',
    );
    expect(caller!.warnings).toEqual([
      'agent step "deep" of workflow "inner" (which "outer" calls) references agent:acme/gone@1.0.0, which this server cannot run: runs of "outer" fail with VALIDATION until it can (unknown agent agent:acme/gone@1.0.0)',
    ]);
  });

  it('with strict, refuses (VALIDATION) and deploys nothing; a dry run stores nothing', async () => {
    const definition = { name: 'strict-one', steps: [ask('ask', 'agent:acme/missing@^2')] };
    const refusal = await triggers.service
      .deploy(definition, 'api', 'acme', undefined, { strict: true })
      .then(
        () => undefined,
        (error: unknown) => error,
      );
    expect(refusal).toMatchObject({
      code: 'VALIDATION',
      details: {
        field: 'workflow',
        constraint: 'strict',
        workflow: 'strict-one',
        warnings: [expect.stringContaining('agent step "ask" references agent:acme/missing@^2')],
      },
    });
    const dry = await triggers.service.deploy(definition, 'api', 'acme', undefined, {
      dryRun: true,
    });
    expect(dry.warnings).toHaveLength(1);
    expect(await store.get('acme', 'strict-one')).toBeUndefined();
    expect(triggers.service.workflowOf('strict-one', 'acme')).toBeUndefined();
  });

  it('counts agent steps in the unpublish "in use" check (DeploymentService.usage)', async () => {
    await triggers.service.deployAll(
      [
        { name: 'ranged', steps: [ask('ask', 'agent:acme/helper@^1')] },
        { name: 'pinned', steps: [ask('ask', 'agent:acme/helper@1.0.0')] },
      ],
      'api',
      'acme',
    );
    expect(await triggers.service.usage.activeWorkflows('acme-helper', '1.1.0')).toEqual([
      'ranged',
    ]);
    expect(await triggers.service.usage.activeWorkflows('acme-helper', '1.0.0')).toEqual([
      'pinned',
    ]);
    expect(await triggers.service.usage.activeWorkflows('acme-other', '1.0.0')).toEqual([]);
  });

  it('logs the warnings of the workflows directory, which deploys them', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'weft-agent-refs-'));
    const warned: string[] = [];
    const logger = {
      info() {},
      error() {},
      warn: (_: object, message: string) => warned.push(message),
    };
    try {
      const path = join(dir, 'support.json');
      writeFileSync(
        path,
        JSON.stringify({
          workflows: [{ name: 'filed', steps: [ask('ask', 'agent:acme/nope@1')] }],
        }),
      );
      await watchWorkflowDirectory(dir, triggers.service, { logger, once: true });
      expect(warned).toEqual([
        `${path}: agent step "ask" references agent:acme/nope@1, which this server cannot run: runs of "filed" fail with VALIDATION until it can (unknown agent agent:acme/nope@1)`,
      ]);
      expect((await store.get('local', 'filed'))?.source).toBe(`file:${path}`);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
