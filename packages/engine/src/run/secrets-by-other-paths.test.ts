import type { StreamEvent } from '@weft/core';
import { describe, expect, it } from 'vitest';
import { TestInvoker } from '../test-support/invoker.js';
import { load } from '../test-support/load.js';
import type { JournaledStep } from './records.js';
import { runWorkflow } from './run-workflow.js';

const workflow = (yaml: string) => {
  const result = load(yaml);
  if (!result.ok) throw new Error(result.diagnostics.map((d) => d.message).join('\n'));
  return result.workflows;
};

const KEY = 'sk-model-key-0123456789';

/** A connector that reads its own credential and tells the run, then echoes it back. */
const leaky = new TestInvoker({
  'api.echo': (_input, context) => {
    context.addSecret?.('API_CREDENTIAL', KEY);
    return { text: `the key is ${KEY}`, b64: Buffer.from(KEY).toString('base64') };
  },
});

describe('a secret read by another path than secrets.*', () => {
  it('is masked in the outputs, later steps, records, events and the journal, not blocked', async () => {
    const [wf] = workflow(`workflows:
  - name: w
    steps:
      - { name: call, plugin: api, action: echo }
      - { name: after, type: transform, input: { seen: '{{ steps.call.output.text }}' } }
    outputs:
      said: { value: '{{ steps.call.output.text }}' }
      encoded: { value: '{{ steps.call.output.b64 }}' }
`);
    const events: StreamEvent[] = [];
    const journal: JournaledStep[] = [];
    const result = await runWorkflow(
      wf!,
      {},
      {
        invoker: leaky,
        onEvent: (e) => events.push(e),
        onStepFinished: (step) => void journal.push(step),
      },
    );
    expect(result.status).toBe('completed');
    expect(result.outputs).toEqual({ said: 'the key is ***', encoded: '***' });
    expect(result.steps['call']!.output).toEqual({ text: 'the key is ***', b64: '***' });
    expect(result.steps['after']!.output).toEqual({ seen: 'the key is ***' });
    for (const text of [JSON.stringify(result), JSON.stringify(events), JSON.stringify(journal)]) {
      expect(text).not.toContain(KEY);
      expect(text).not.toContain(Buffer.from(KEY).toString('base64'));
    }
  });

  it('is masked in the caller of the subworkflow that read it', async () => {
    const workflows = workflow(`workflows:
  - name: outer
    steps:
      - { name: sub, workflow: inner }
      - { name: call, plugin: api, action: plain }
    outputs:
      later: { value: '{{ steps.call.output }}' }
  - name: inner
    steps:
      - { name: call, plugin: api, action: echo }
    outputs:
      said: { value: '{{ steps.call.output.text }}' }
`);
    const invoker = new TestInvoker({
      ...{
        'api.echo': (i, c) =>
          leaky
            .invoke({
              target: { kind: 'plugin', slug: 'api' },
              action: 'echo',
              input: i,
              context: c,
            })
            .then((r) => r.output),
      },
      'api.plain': () => ({ again: KEY }),
    });
    const events: StreamEvent[] = [];
    const result = await runWorkflow(
      workflows[0]!,
      {},
      {
        invoker,
        onEvent: (e) => events.push(e),
        resolveWorkflow: (name) => workflows.find((w) => w.name === name),
      },
    );
    expect(result.status).toBe('completed');
    expect(result.steps['sub']!.outputs).toEqual({ said: 'the key is ***' });
    expect(result.outputs).toEqual({ later: { again: '***' } });
    expect(JSON.stringify([result, events])).not.toContain(KEY);
  });
});

describe('a secret whose value is JSON', () => {
  const DBCRED = JSON.stringify({ user: 'svc', password: 's3cr3t-pass-123', port: 5432 });
  const [wf] = workflow(`workflows:
  - name: w
    steps:
      - { name: connect, plugin: db, action: connect, input: { cred: '{{ secrets.DBCRED }}' } }
    outputs:
      user: { value: '{{ steps.connect.output.user }}' }
`);
  const parses = new TestInvoker({
    'db.connect': (input) => {
      const { user, password } = JSON.parse(String(input['cred'])) as Record<string, string>;
      return { user, password, note: `connected as ${user} with ${password}` };
    },
  });

  it('masks each string leaf of 8 characters or more in records and events', async () => {
    const events: StreamEvent[] = [];
    const result = await runWorkflow(
      wf!,
      {},
      { invoker: parses, environment: { DBCRED }, onEvent: (e) => events.push(e) },
    );
    expect(result.status).toBe('completed');
    // "svc" is shorter than 8 characters: a user name is not masked everywhere it appears.
    expect(result.outputs).toEqual({ user: 'svc' });
    expect(result.steps['connect']!.output).toEqual({
      user: 'svc',
      password: '***',
      note: 'connected as svc with ***',
    });
    expect(JSON.stringify([result, events])).not.toContain('s3cr3t-pass-123');
  });

  it('blocks an output that carries a leaf, naming the secret', async () => {
    const [leaking] = workflow(`workflows:
  - name: w
    steps:
      - { name: connect, plugin: db, action: connect, input: { cred: '{{ secrets.DBCRED }}' } }
    outputs:
      password: { value: '{{ steps.connect.output.password }}' }
`);
    const result = await runWorkflow(leaking!, {}, { invoker: parses, environment: { DBCRED } });
    expect(result.status).toBe('failed');
    expect(result.error).toMatchObject({
      code: 'VALIDATION',
      message: 'output "password" would expose the secret DBCRED; the run is blocked',
      details: { field: 'outputs.password', constraint: 'no_secrets' },
    });
    expect(JSON.stringify(result)).not.toContain('s3cr3t-pass-123');
  });
});

describe('an error carrying an upstream body', () => {
  it('is masked, then cut to 1,024 characters in the record and the events', async () => {
    const body = `{"error":"upstream failed","echo":"Bearer ${KEY}"}` + 'x'.repeat(50_000);
    const [wf] = workflow(`workflows:
  - name: w
    steps:
      - { name: call, plugin: api, action: fail, input: { key: '{{ secrets.API_KEY }}' } }
`);
    const invoker = new TestInvoker({
      'api.fail': () => {
        throw new Error(`HTTP 500: ${body}`);
      },
    });
    const events: StreamEvent[] = [];
    const result = await runWorkflow(
      wf!,
      {},
      { invoker, environment: { API_KEY: KEY }, onEvent: (e) => events.push(e) },
    );
    expect(result.status).toBe('failed');
    const error = result.steps['call']!.error!;
    expect(error.message.length).toBeLessThanOrEqual(1024);
    expect(error.message).toMatch(
      /^api failed: HTTP 500: \{"error":"upstream failed","echo":"Bearer \*\*\*"\}x+… \(\d+ more characters\)$/,
    );
    const original = error.details['original_error'] as string;
    expect(original.length).toBeLessThanOrEqual(1024);
    expect(original).toMatch(/… \(\d+ more characters\)$/);
    expect(result.error!.message.length).toBeLessThanOrEqual(1024);
    const failed = events.find((e) => e.type === 'step.failed')!;
    expect(failed.data['error']).toEqual(error);
    expect(JSON.stringify([result, events])).not.toContain(KEY);
    expect(JSON.stringify([result, events]).length).toBeLessThan(20_000);
  });
});

describe('an input declared secret: true', () => {
  it('reaches the action as given, and is masked in step inputs, outputs and events', async () => {
    const PIN = 'pin-4242-do-not-show';
    const seen: unknown[] = [];
    const invoker = new TestInvoker({
      'bank.pay': (input) => {
        seen.push(input['pin']);
        return { ok: true, echo: `paid with ${String(input['pin'])}` };
      },
    });
    const [wf] = workflow(`workflows:
  - name: w
    inputs:
      amount: { type: number, required: true }
      pin: { type: string, secret: true }
    steps:
      - { name: pay, plugin: bank, action: pay, input: { amount: '{{ inputs.amount }}', pin: '{{ inputs.pin }}' } }
    outputs:
      said: { value: '{{ steps.pay.output.echo }}' }
`);
    const events: StreamEvent[] = [];
    const result = await runWorkflow(
      wf!,
      { amount: 50000, pin: PIN },
      { invoker, onEvent: (e) => events.push(e) },
    );
    expect(result.status).toBe('completed');
    expect(seen).toEqual([PIN]);
    expect(result.steps['pay']!.input).toEqual({ amount: 50000, pin: '***' });
    expect(result.outputs).toEqual({ said: 'paid with ***' });
    expect(JSON.stringify(events)).not.toContain(PIN);
  });
});
