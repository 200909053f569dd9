import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApiKey } from '@weft/identity';
import { dropTestSchema, testSchemaName } from '@weft/store';
import type { ServerOptions } from './config.js';
import { startServer, type RunningServer } from './start.js';
import { pluginDefinition } from './test-support/harness.js';

const databaseUrl = process.env['WEFT_TEST_DATABASE_URL'];

/** A guarded workflow whose runs wait for a lead's approval before their first step. */
const guarded = (name: string, steps: object[], extra: Record<string, unknown> = {}) => ({
  name,
  authorization: {
    enabled: true,
    roles: ['finance'],
    approval: { required: true, approvers: ['lead'], timeout: 600 },
  },
  steps,
  ...extra,
});
const transform = (name: string, value: string) => ({
  name,
  type: 'transform',
  input: { value },
});

describe.each([
  { name: 'SQLite', kind: 'sqlite' as const, skip: false },
  {
    name: 'PostgreSQL (set WEFT_TEST_DATABASE_URL to run)',
    kind: 'postgres' as const,
    skip: !databaseUrl,
  },
])('the impact check before a deploy on $name, over HTTP', ({ kind, skip }) => {
  const schema = testSchemaName();
  const dataDir = mkdtempSync(join(tmpdir(), 'weft-deploy-impact-'));
  let server: RunningServer;
  const keys: Record<string, string> = {};

  beforeAll(async () => {
    if (skip) return;
    const options: ServerOptions = {
      port: 0,
      dataDir,
      logLevel: 'silent',
      ...(kind === 'postgres' ? { databaseUrl, databaseSchema: schema } : {}),
    };
    server = await startServer(options, { logger: false });
    const at = new Date().toISOString();
    const make = async (name: string, grants: object) =>
      (keys[name] = (await createApiKey(server.store, { name, ...grants }, at)).key);
    await make('clerk', { owner: 'acme', roles: ['finance'] });
    await make('lead', { owner: 'acme', roles: ['lead'] });
    await make('root', { owner: 'ops', admin: true });
  }, 30_000);

  afterAll(async () => {
    if (skip) return;
    await server.close();
    rmSync(dataDir, { recursive: true, force: true });
    if (kind === 'postgres') {
      await dropTestSchema(databaseUrl!, schema);
    }
  });

  const call = async (method: string, path: string, key: string | undefined, body?: unknown) => {
    const response = await fetch(`${server.url}${path}`, {
      method,
      headers: {
        ...(key ? { authorization: `Bearer ${key}` } : {}),
        ...(body !== undefined ? { 'content-type': 'application/json' } : {}),
      },
      ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
    });
    const text = await response.text();
    return { status: response.status, json: text ? JSON.parse(text) : undefined };
  };
  const settled = async (id: string) => {
    for (let i = 0; i < 500; i++) {
      const { json } = await call('GET', `/workflows/executions/${id}`, keys['clerk']);
      if (!['pending', 'running'].includes(json.status)) return json;
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    throw new Error(`execution ${id} did not settle`);
  };
  const deployAudit = async () =>
    (await call('GET', '/audit?limit=500', keys['root'])).json.entries.filter(
      (e: { action: string }) => e.action === 'workflow.deploy',
    );
  /** Deploys `v1` and starts a run of it, which waits for approval; answers its id. */
  const waitingRunOf = async (v1: { name: string }, inputs: object = {}) => {
    expect((await call('PUT', `/workflows/${v1.name}`, keys['clerk'], v1)).status).toBe(201);
    const started = await call('POST', `/workflows/${v1.name}/executions`, keys['clerk'], {
      inputs,
    });
    expect(started.status).toBe(202);
    const id: string = started.json.execution_id;
    expect(await settled(id)).toMatchObject({
      status: 'waiting',
      waiting_for: { kind: 'approval' },
    });
    return id;
  };

  it.skipIf(skip)(
    'a step renamed under a run waiting for approval: reported, refused without force, forced and audited, and the run ends on its own revision',
    async () => {
      const v1 = guarded('payout', [transform('check', 'v1'), transform('pay', 'v1')], {
        outputs: { paid: { value: '{{ steps.pay.output.value }}' } },
      });
      const id = await waitingRunOf(v1);
      const v2 = {
        ...v1,
        version: '2.0.0',
        steps: [transform('check', 'v2'), transform('payment', 'v2')],
        outputs: { paid: { value: '{{ steps.payment.output.value }}' } },
      };
      const audited = (await deployAudit()).length;

      const checked = await call('PUT', '/workflows/payout?dry_run=true', keys['clerk'], v2);
      expect(checked.status).toBe(200);
      expect(checked.json).toMatchObject({
        status: 'checked',
        revision: 2,
        impact: {
          first_deploy: false,
          previous_revision: 1,
          pinned: true,
          breaking: true,
          steps: [{ change: 'renamed', step: 'pay', to: 'payment' }],
          executions: {
            waiting: 1,
            running: 0,
            capped: false,
            affected: [
              {
                execution_id: id,
                status: 'waiting',
                waiting_for: 'approval',
                workflow_version: '1.0.0',
                next_step: 'check',
                changes: [{ change: 'step_renamed', step: 'pay', introduced: true }],
              },
            ],
          },
        },
      });
      // A dry run writes nothing and audits no change.
      expect((await call('GET', '/workflows/payout', keys['clerk'])).json.revision).toBe(1);
      expect((await deployAudit()).length).toBe(audited);

      const refused = await call('PUT', '/workflows/payout', keys['clerk'], v2);
      expect(refused.status).toBe(409);
      expect(refused.json).toMatchObject({
        status: 'error',
        code: 'CONFLICT',
        details: {
          reason: 'breaking_impact',
          field: 'force',
          executions: [{ execution_id: id, changes: [{ change: 'step_renamed' }] }],
        },
      });
      expect(refused.json.message).toContain(id);
      expect((await call('GET', '/workflows/payout', keys['clerk'])).json.revision).toBe(1);
      expect((await deployAudit()).length).toBe(audited);

      const forced = await call('PUT', '/workflows/payout?force=true', keys['clerk'], v2);
      expect(forced.status).toBe(200);
      expect(forced.json).toMatchObject({ status: 'deployed', revision: 2 });
      const entries = (await deployAudit()).slice(audited);
      expect(entries).toMatchObject([
        { decision: 'allow', workflow: 'payout', credential: 'api_key' },
        { decision: 'allow', workflow: 'payout' },
      ]);
      expect(entries[1].reason).toMatch(/^revision 2 deployed/);
      expect(entries[0].reason).toContain('forced (force=true)');
      expect(entries[0].reason).toContain(id);
      expect(entries[0].reason).toContain('step "pay" is renamed "payment"');

      // What a forced deploy brought is not refused again: redeploying it passes.
      const again = await call('PUT', '/workflows/payout?dry_run=true', keys['clerk'], v2);
      expect(again.json.impact).toMatchObject({
        breaking: false,
        executions: {
          affected: [
            { execution_id: id, changes: [{ change: 'step_renamed', introduced: false }] },
          ],
        },
      });
      expect((await call('PUT', '/workflows/payout', keys['clerk'], v2)).status).toBe(200);

      // Pinned: approved after the new revision is deployed, it runs the one it started on.
      const approved = await call('POST', `/workflows/executions/${id}/approve`, keys['lead'], {});
      expect(approved.status).toBe(200);
      const done = await settled(id);
      expect(done).toMatchObject({ status: 'completed', result: { outputs: { paid: 'v1' } } });
      expect(Object.keys(done.result.steps).sort()).toEqual(['check', 'pay']);
      // A new run takes the new revision.
      const next = await call('POST', '/workflows/payout/executions', keys['clerk'], {});
      await call(
        'POST',
        `/workflows/executions/${next.json.execution_id}/approve`,
        keys['lead'],
        {},
      );
      expect((await settled(next.json.execution_id)).result.outputs).toEqual({ paid: 'v2' });
    },
  );

  it.skipIf(skip)('a step removed after the waiting position is reported', async () => {
    const v1 = guarded('ship', [transform('pack', 'a'), transform('notify', 'b')]);
    const id = await waitingRunOf(v1);
    const v2 = { ...v1, steps: [transform('pack', 'a')] };
    const checked = await call('PUT', '/workflows/ship?dry_run=true', keys['clerk'], v2);
    expect(checked.json.impact).toMatchObject({
      breaking: true,
      steps: [{ change: 'removed', step: 'notify' }],
      executions: {
        affected: [
          {
            execution_id: id,
            next_step: 'pack',
            changes: [
              { change: 'step_removed', step: 'notify', detail: 'step "notify" is removed' },
            ],
          },
        ],
      },
    });
    // Moving a step is a change of the definition, not of a run that has not started.
    const moved = { ...v1, steps: [transform('notify', 'b'), transform('pack', 'a')] };
    const again = await call('PUT', '/workflows/ship?dry_run=true', keys['clerk'], moved);
    expect(again.json.impact).toMatchObject({
      breaking: false,
      steps: [{ change: 'moved' }],
      executions: { waiting: 1, affected: [] },
    });
  });

  it.skipIf(skip)('an input narrowed: made required, enum narrowed', async () => {
    const v1 = guarded('quote', [transform('price', 'x')], {
      inputs: {
        region: { type: 'string', enum: ['eu', 'us', 'apac'] },
        note: { type: 'string' },
      },
    });
    const id = await waitingRunOf(v1, { region: 'apac' });
    const v2 = {
      ...v1,
      inputs: {
        region: { type: 'string', enum: ['eu', 'us'] },
        note: { type: 'string', required: true },
      },
    };
    const checked = await call('PUT', '/workflows/quote?dry_run=true', keys['clerk'], v2);
    expect(checked.json.impact.inputs).toEqual([
      { input: 'region', change: 'enum lost "apac"', breaking: true },
      { input: 'note', change: 'made required (was optional)', breaking: true },
    ]);
    expect(checked.json.impact.steps).toEqual([]);
    expect(checked.json.impact.executions.affected).toMatchObject([
      {
        execution_id: id,
        changes: [
          { change: 'input_narrowed', input: 'region' },
          { change: 'input_narrowed', input: 'note' },
        ],
      },
    ]);
    expect((await call('PUT', '/workflows/quote', keys['clerk'], v2)).status).toBe(409);
  });

  it.skipIf(skip)('a trigger removed, with the next schedule fires before and after', async () => {
    const v1 = {
      name: 'nightly',
      triggers: [{ type: 'schedule', cron: '0 9 * * *' }, { type: 'manual' }],
      steps: [transform('t', 'x')],
    };
    expect((await call('PUT', '/workflows/nightly', keys['clerk'], v1)).status).toBe(201);
    const v2 = { ...v1, triggers: [{ type: 'manual' }, { type: 'schedule', cron: '30 6 * * 1' }] };
    const checked = await call('PUT', '/workflows/nightly?dry_run=true', keys['clerk'], v2);
    const impact = checked.json.impact;
    expect(impact).toMatchObject({
      breaking: false,
      triggers: { added: ['schedule 30 6 * * 1 UTC'], removed: ['schedule 0 9 * * * UTC'] },
      executions: { pending: 0, running: 0, waiting: 0, affected: [] },
    });
    expect(impact.summary).toBe('no execution in progress: nothing to change');
    expect(impact.next_fires.before).toMatchObject([{ trigger: 0, cron: '0 9 * * *' }]);
    expect(impact.next_fires.after).toMatchObject([{ trigger: 1, cron: '30 6 * * 1' }]);
    expect(new Date(impact.next_fires.before[0].at[0]).getUTCHours()).toBe(9);
    expect(new Date(impact.next_fires.after[0].at[0]).getUTCDay()).toBe(1);
  });

  it.skipIf(skip)(
    'a plugin upgrade whose schema diff is breaking, by the registry’s rules',
    async () => {
      const publish = async (version: string, input: object) => {
        const definition = pluginDefinition('crm', version, {
          actions: [{ name: 'send', description: 'Sends', input_schema: input }],
        });
        const [method, path] = version === '1.0.0' ? ['POST', '/plugins'] : ['PUT', '/plugins/crm'];
        const answer = await call(method, path, keys['clerk'], definition);
        expect(answer.json).toMatchObject({ version });
      };
      await publish('1.0.0', { type: 'object', properties: { text: { type: 'string' } } });
      await publish('2.0.0', {
        type: 'object',
        properties: { text: { type: 'string' }, to: { type: 'string' } },
        required: ['to'],
      });
      const step = (version: string) => ({
        name: 'send',
        connector: `connector:acme/crm@${version}`,
        action: 'send',
        input: { text: 'hi' },
      });
      const v1 = guarded('mailer', [step('1.0.0')]);
      const id = await waitingRunOf(v1);
      const v2 = { ...v1, steps: [step('2.0.0')] };
      const checked = await call('PUT', '/workflows/mailer?dry_run=true', keys['clerk'], v2);
      expect(checked.json.impact).toMatchObject({
        breaking: true,
        upgrades: [
          {
            kind: 'plugin',
            slug: 'crm',
            from: '1.0.0',
            to: '2.0.0',
            breaking: true,
            compared: true,
            breaks: [{ action: 'send', path: 'input.properties.to', change: 'added as required' }],
          },
        ],
        executions: {
          affected: [{ execution_id: id, changes: [{ change: 'plugin_breaking', step: 'send' }] }],
        },
      });
    },
  );

  it.skipIf(skip)('an agent upgrade whose output schema loses a promised field', async () => {
    const agent = (version: string, output: object) => ({
      agent: {
        namespace: 'acme',
        name: 'helper',
        version,
        description: 'Answers tickets',
        model: 'openai-compatible:m',
        base_url: 'http://127.0.0.1:9/v1',
        output_schema: output,
      },
    });
    const answer = {
      type: 'object',
      properties: { answer: { type: 'string' } },
      required: ['answer'],
    };
    const first = await call('POST', '/plugins', keys['clerk'], agent('1.0.0', answer));
    expect(first.status, JSON.stringify(first.json)).toBe(201);
    const bare = { type: 'object', properties: { text: { type: 'string' } } };
    const second = await call('PUT', '/plugins/acme-helper', keys['clerk'], agent('2.0.0', bare));
    expect(second.status, JSON.stringify(second.json)).toBe(200);
    const ask = (range: string) => ({
      name: 'ask',
      type: 'agent',
      agent: `agent:acme/helper@${range}`,
      input: { prompt: 'hi' },
    });
    const v1 = guarded('helpdesk', [ask('^1')]);
    const id = await waitingRunOf(v1);
    const checked = await call('PUT', '/workflows/helpdesk?dry_run=true', keys['clerk'], {
      ...v1,
      steps: [ask('^2')],
    });
    expect(checked.json.impact).toMatchObject({
      breaking: true,
      upgrades: [
        {
          kind: 'agent',
          slug: 'acme-helper',
          from: '1.0.0',
          to: '2.0.0',
          breaking: true,
          breaks: [{ action: 'acme-helper', path: 'output.properties.answer', change: 'removed' }],
        },
      ],
      executions: {
        affected: [{ execution_id: id, changes: [{ change: 'plugin_breaking', step: 'ask' }] }],
      },
    });
  });

  it.skipIf(skip)('refuses bad dry_run and force values naming the field', async () => {
    const body = { name: 'odd', steps: [transform('t', 'x')] };
    for (const query of ['dry_run=maybe', 'force=yes', 'dry_run=']) {
      const answer = await call('PUT', `/workflows/odd?${query}`, keys['clerk'], body);
      expect(answer.status).toBe(400);
      expect(answer.json).toMatchObject({
        code: 'VALIDATION',
        details: { field: query.split('=')[0] },
      });
    }
    expect((await call('GET', '/workflows/odd', keys['clerk'])).status).toBe(404);
  });

  it.skipIf(skip)('a dry run of an unknown workflow says it is a first deploy', async () => {
    const body = { name: 'fresh', steps: [transform('t', 'x')] };
    const checked = await call('PUT', '/workflows/fresh?dry_run=true', keys['clerk'], body);
    expect(checked.status).toBe(200);
    expect(checked.json).toMatchObject({
      status: 'checked',
      revision: 1,
      impact: {
        first_deploy: true,
        breaking: false,
        previous_revision: null,
        summary: 'first deploy of "fresh": no work in progress to change',
      },
    });
    expect((await call('GET', '/workflows/fresh', keys['clerk'])).status).toBe(404);
  });
});
