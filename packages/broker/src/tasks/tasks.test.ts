/**
 * The task protocol (docs/protocol.md#broker-tasks) (`consumeTasks`, `TaskDispatcher`) over real brokers:
 * in-memory always, NATS JetStream when WEFT_TEST_NATS_URL is set.
 */
import { DEAD_LETTER_HEADERS, TimeoutError, ValidationError, type Broker } from '@weft/core';
import { afterAll, describe, expect, it } from 'vitest';
import { waitFor } from '../broker.contract.js';
import { openTestBroker, type TestBroker } from '../test-brokers.js';
import { TaskDispatcher } from './dispatcher.js';
import { RESULTS_SUBJECT, type TaskMessage, type TaskResultMessage } from './messages.js';
import { consumeTasks, type TaskContext } from './worker.js';

const backends: TestBroker[] = [openTestBroker('memory')];
const natsUrl = process.env['WEFT_TEST_NATS_URL'];
// Plugin topics are fixed by the broker task protocol (docs/protocol.md#broker-tasks); the test namespace keeps this run apart from others.
if (natsUrl !== undefined) backends.push(openTestBroker('nats', natsUrl));

let plugins = 0;
const pluginSlug = () => `p${Date.now().toString(36)}-${++plugins}`;

describe.each(backends)('task protocol on $kind', (backend) => {
  const opened: Broker[] = [];
  const open = async () => {
    const broker = await backend.connect();
    opened.push(broker);
    return broker;
  };
  const stops: (() => Promise<void>)[] = [];
  afterAll(async () => {
    for (const stop of stops) await stop().catch(() => undefined);
    for (const broker of opened) await broker.close();
    await backend.dispose();
  });
  const dispatcher = async (broker: Broker, onResult?: (r: TaskResultMessage) => void) => {
    const started = await TaskDispatcher.start({
      broker,
      group: `runtime-${pluginSlug()}`,
      onResult: (result) => onResult?.(result),
    });
    stops.push(() => started.stop());
    return started;
  };

  it('runs a dispatched task and returns its result keyed by workflow_id and step', async () => {
    const broker = await open();
    const slug = pluginSlug();
    const seen: [TaskMessage, TaskContext][] = [];
    const worker = await consumeTasks({
      broker,
      pluginSlug: slug,
      handle: (task, context) => {
        seen.push([task, context]);
        return { echoed: task.input['text'] };
      },
    });
    stops.push(() => worker.stop());
    const runtime = await dispatcher(broker);
    const request = {
      workflowId: 'exec-1',
      plugin: slug,
      action: 'echo',
      step: 'say',
      input: { text: 'hi' },
    };
    // Extra headers (the W3C trace context) ride on the message; the body stays (docs/protocol.md#broker-tasks) as it is.
    const traceparent = '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01';
    const result = await runtime.dispatch(request, { timeoutMs: 10_000, headers: { traceparent } });
    expect(result).toMatchObject({
      workflow_id: 'exec-1',
      step: 'say',
      idempotency_key: 'exec-1/say',
      plugin: slug,
      action: 'echo',
      status: 'success',
      output: { echoed: 'hi' },
    });
    const [task, context] = seen[0]!;
    expect(Object.keys(task).sort()).toEqual([
      'action',
      'input',
      'plugin',
      'timestamp',
      'workflow_id',
    ]);
    expect(context).toMatchObject({ step: 'say', idempotencyKey: 'exec-1/say', deliveryCount: 1 });
    expect(context.headers).toMatchObject({ traceparent, 'weft-step': 'say' });
  });

  it('returns the error object a failing action threw', async () => {
    const broker = await open();
    const slug = pluginSlug();
    const worker = await consumeTasks({
      broker,
      pluginSlug: slug,
      handle: () => {
        throw new ValidationError('text is required', { field: 'text', constraint: 'required' });
      },
    });
    stops.push(() => worker.stop());
    const runtime = await dispatcher(broker);
    const result = await runtime.dispatch(
      { workflowId: 'exec-2', plugin: slug, action: 'echo', step: 's', input: {} },
      { timeoutMs: 10_000 },
    );
    expect(result.status).toBe('error');
    expect(result.error).toEqual({
      status: 'error',
      code: 'VALIDATION',
      message: 'text is required',
      details: { field: 'text', constraint: 'required' },
    });
  });

  it('dead-letters unparsable and malformed tasks and keeps serving', async () => {
    const broker = await open();
    const slug = pluginSlug();
    const subject = `platform.workflow.${slug}`;
    const dead: string[] = [];
    const deadSub = await broker.consume(`${subject}.dead-letter`, { group: 'ops' }, (m) => {
      dead.push(m.headers[DEAD_LETTER_HEADERS.reason] ?? '');
    });
    stops.push(() => deadSub.stop());
    let handled = 0;
    const worker = await consumeTasks({ broker, pluginSlug: slug, handle: () => void handled++ });
    stops.push(() => worker.stop());
    await broker.publish(subject, '{"workflow_id": ');
    const noAction = {
      workflow_id: 'w',
      plugin: slug,
      input: {},
      timestamp: new Date().toISOString(),
    };
    await broker.publish(subject, JSON.stringify(noAction));
    const runtime = await dispatcher(broker);
    const result = await runtime.dispatch(
      { workflowId: 'exec-3', plugin: slug, action: 'a', step: 's', input: {} },
      { timeoutMs: 10_000 },
    );
    expect(result.status).toBe('success');
    await waitFor(() => dead.length === 2);
    expect(dead.find((r) => r.includes('not JSON'))).toBeDefined();
    expect(dead.find((r) => r.includes('action'))).toBeDefined();
    expect(handled).toBe(1);
  });

  it('redelivers a task whose service died before acking; the duplicate result is dropped', async () => {
    const [doomed, survivor, runtimeBroker] = [await open(), await open(), await open()];
    const slug = pluginSlug();
    const keys: (string | null)[] = [];
    const results: TaskResultMessage[] = [];
    const runtime = await dispatcher(runtimeBroker, (r) => void results.push(r));
    // The doomed service does the work and publishes its result, then dies before acking.
    await doomed.consume(
      `platform.workflow.${slug}`,
      { group: `plugin.${slug}`, ackTimeoutMs: backend.ackTimeoutMs },
      async (m) => {
        await doomed.publish(
          RESULTS_SUBJECT,
          JSON.stringify({
            ...JSON.parse(m.text()),
            input: undefined,
            timestamp: new Date().toISOString(),
            step: m.headers['weft-step'],
            idempotency_key: m.headers['idempotency-key'],
            status: 'success',
            output: { by: 'doomed' },
          }),
          { headers: m.headers },
        );
        await new Promise(() => undefined);
      },
    );
    const pending = runtime.dispatch(
      { workflowId: 'exec-4', plugin: slug, action: 'a', step: 'loop[0].s', input: {} },
      { timeoutMs: 20_000 },
    );
    const first = await pending;
    expect(first.output).toEqual({ by: 'doomed' });
    await doomed.close();
    const worker = await consumeTasks({
      broker: survivor,
      pluginSlug: slug,
      ackTimeoutMs: backend.ackTimeoutMs,
      handle: (_task, context) => {
        keys.push(context.idempotencyKey);
        return { by: 'survivor', delivery: context.deliveryCount };
      },
    });
    stops.push(() => worker.stop());
    await waitFor(() => keys.length === 1 && runtime.duplicates === 1, 20_000, 'redelivery');
    expect(keys).toEqual(['exec-4/loop[0].s']);
    expect(results.map((r) => r.output)).toEqual([{ by: 'doomed' }]);
  });

  it('answers with an error result when a task is dead-lettered after its last delivery', async () => {
    const [doomed, survivor, runtimeBroker] = [await open(), await open(), await open()];
    const slug = pluginSlug();
    const runtime = await dispatcher(runtimeBroker);
    let taken = false;
    await doomed.consume(
      `platform.workflow.${slug}`,
      { group: `plugin.${slug}`, ackTimeoutMs: backend.ackTimeoutMs },
      async () => {
        taken = true;
        await new Promise(() => undefined); // crashes on this task every time
      },
    );
    const result = runtime.dispatch(
      { workflowId: 'exec-5', plugin: slug, action: 'a', step: 's', input: {} },
      { timeoutMs: 20_000 },
    );
    await waitFor(() => taken);
    await doomed.close();
    let handled = 0;
    const worker = await consumeTasks({
      broker: survivor,
      pluginSlug: slug,
      maxDeliveries: 1,
      ackTimeoutMs: backend.ackTimeoutMs,
      handle: () => void handled++,
    });
    stops.push(() => worker.stop());
    const answer = await result;
    expect(answer.status).toBe('error');
    expect(answer.error?.message).toContain('dead-lettered after 2 deliveries');
    expect(handled).toBe(0);
  });

  it('times out a dispatch nobody serves', async () => {
    const broker = await open();
    const runtime = await dispatcher(broker);
    const error = await runtime
      .dispatch(
        { workflowId: 'e', plugin: pluginSlug(), action: 'a', step: 's', input: {} },
        { timeoutMs: 100 },
      )
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(TimeoutError);
    expect(runtime.waiting).toBe(0);
  });

  it('refuses a task for an invalid plugin slug', async () => {
    const broker = await open();
    const runtime = await dispatcher(broker);
    for (const plugin of ['results', 'Bad.Slug']) {
      const error = await runtime
        .dispatch({ workflowId: 'e', plugin, action: 'a', step: 's', input: {} })
        .catch((e: unknown) => e);
      expect(error).toBeInstanceOf(ValidationError);
      expect((error as ValidationError).details.field).toBe('plugin');
    }
    expect(runtime.waiting).toBe(0);
  });
});
