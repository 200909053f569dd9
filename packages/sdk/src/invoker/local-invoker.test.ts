import { BackendError, ValidationError, type ExecutionContext } from '@weft/core';
import { describe, expect, it } from 'vitest';
import { invokerWith, makeContext, rejection, run, thrown } from '../test-support/context.js';
import { LocalInvoker } from './local-invoker.js';

const SLACK = {
  connector: {
    type: 'connector',
    kind: 'function',
    name: 'slack',
    namespace: 'acme',
    version: '1.2.0',
  },
  actions: [
    {
      name: 'send',
      input_schema: {
        type: 'object',
        required: ['channel'],
        properties: { channel: { type: 'string' }, count: { type: 'integer' } },
      },
      output_schema: { type: 'object', required: ['ok'], properties: { ok: { type: 'boolean' } } },
    },
    { name: 'slow', timeout: 7 },
  ],
};

describe('function connectors', () => {
  it('calls the registered handler with the input and the execution context', async () => {
    const invoker = invokerWith(SLACK);
    let seen: { input: unknown; context: ExecutionContext } | undefined;
    invoker.registerHandler('slack.send', (input, context) => {
      seen = { input, context };
      return { ok: true };
    });
    expect(await run(invoker, 'slack.send', { channel: '#a' })).toEqual({ ok: true });
    expect(seen?.input).toEqual({ channel: '#a' });
    expect(seen?.context.workflowId).toBe('wf-1');
  });

  it('refuses a bad input with VALIDATION naming input.<field> before the handler runs', async () => {
    const invoker = invokerWith(SLACK);
    let calls = 0;
    invoker.registerHandler('slack.send', () => ({ ok: !!calls++ }));
    const missing = await rejection(run(invoker, 'slack.send', {}));
    expect(missing).toBeInstanceOf(ValidationError);
    expect(missing['details']).toEqual({ field: 'input.channel', constraint: 'required' });
    const wrong = await rejection(run(invoker, 'slack.send', { channel: '#a', count: 1.5 }));
    expect(wrong['details']).toEqual({ field: 'input.count', constraint: 'type' });
    expect(calls).toBe(0);
  });

  it('reports an output that breaks output_schema as BACKEND_ERROR of the connector', async () => {
    const invoker = invokerWith(SLACK).registerHandler('slack.send', () => ({ ok: 'yes' }));
    const error = await rejection(run(invoker, 'slack.send', { channel: '#a' }));
    expect(error['code']).toBe('BACKEND_ERROR');
    expect(error['details']).toMatchObject({ backend: 'slack' });
    expect(String((error['details'] as Record<string, unknown>)['original_error'])).toContain(
      'output.ok must be boolean',
    );
  });

  it('keeps the code of a WeftError a handler throws', async () => {
    const invoker = invokerWith(SLACK).registerHandler('slack.send', () => {
      throw new ValidationError('bad channel', { field: 'channel', constraint: 'exists' });
    });
    const error = await rejection(run(invoker, 'slack.send', { channel: '#a' }));
    expect(error).toMatchObject({ code: 'VALIDATION', message: 'bad channel' });
  });

  it('turns any other exception into BACKEND_ERROR {backend, original_error}', async () => {
    const invoker = invokerWith(SLACK).registerHandler('slack.send', async () => {
      throw new TypeError('boom');
    });
    const error = await rejection(run(invoker, 'slack.send', { channel: '#a' }));
    expect(error).toBeInstanceOf(BackendError);
    expect(error['details']).toEqual({ backend: 'slack', original_error: 'boom' });
  });

  it('serves a plugin made only of registered handlers', async () => {
    const invoker = new LocalInvoker().registerHandler('math.double', (input: { n: number }) => ({
      n: input.n * 2,
    }));
    expect(await run(invoker, 'math.double', { n: 21 })).toEqual({ n: 42 });
  });

  it('refuses a malformed handler key', () => {
    expect(thrown(() => new LocalInvoker().registerHandler('nodot', () => 1))['code']).toBe(
      'VALIDATION',
    );
  });
});

describe('resolution and check', () => {
  const invoker = invokerWith(SLACK).registerHandler('slack.send', () => ({ ok: true }));

  it('resolves plugin: <name> and connector:<namespace>/<name>@<version>', () => {
    invoker.check({ kind: 'plugin', slug: 'slack' }, 'send');
    invoker.check({ kind: 'connector', ref: 'connector:acme/slack@1.2.0' }, 'send');
  });

  it('names an unknown plugin with a did-you-mean', () => {
    const error = thrown(() => invoker.check({ kind: 'plugin', slug: 'slak' }, 'send'));
    expect(error['message']).toContain('unknown plugin "slak" (did you mean "slack"?)');
    expect(error['details']).toEqual({ field: 'plugin', constraint: 'unknown_plugin' });
  });

  it('requires namespace, name and version of a connector reference to all match', () => {
    for (const ref of ['connector:acme/slack@2.0.0', 'connector:other/slack@1.2.0']) {
      const error = thrown(() => invoker.check({ kind: 'connector', ref }, 'send'));
      expect(error['message']).toContain(
        `unknown connector "${ref}" (loaded: connector:acme/slack@1.2.0)`,
      );
    }
  });

  it('names an unknown action with a did-you-mean, and an action without handler', () => {
    const unknown = thrown(() => invoker.check({ kind: 'plugin', slug: 'slack' }, 'sned'));
    expect(unknown['message']).toContain('slack has no action "sned" (did you mean "send"?)');
    const unhandled = thrown(() => invoker.check({ kind: 'plugin', slug: 'slack' }, 'slow'));
    expect(unhandled['details']).toEqual({ field: 'action', constraint: 'no_handler' });
  });

  it('rejects invoke of an unknown plugin with the same VALIDATION error', async () => {
    const error = await rejection(run(invoker, 'nope.send'));
    expect(error['details']).toMatchObject({ constraint: 'unknown_plugin' });
  });

  it('gives the effective timeout: action, connector, default', () => {
    const custom = new LocalInvoker({ defaultTimeout: 30 });
    custom.registerConnector({ ...SLACK, connector: { ...SLACK.connector, timeout: 9 } });
    custom.registerConnector({ ...SLACK, connector: { ...SLACK.connector, name: 'plain' } });
    expect(custom.timeoutFor({ kind: 'plugin', slug: 'slack' }, 'slow')).toBe(7000);
    expect(custom.timeoutFor({ kind: 'plugin', slug: 'slack' }, 'send')).toBe(9000);
    expect(custom.timeoutFor({ kind: 'plugin', slug: 'plain' }, 'send')).toBe(30_000);
    expect(
      new LocalInvoker()
        .registerHandler('a.b', () => 1)
        .timeoutFor({ kind: 'plugin', slug: 'a' }, 'b'),
    ).toBe(120_000);
  });

  it('refuses two connectors of the same name', () => {
    expect(thrown(() => invokerWith(SLACK).registerConnector(SLACK))['details']).toMatchObject({
      constraint: 'duplicate',
    });
  });

  it('refuses timeouts and concurrency over the limits (docs/protocol.md#limits)', () => {
    const over = { ...SLACK, connector: { ...SLACK.connector, timeout: 601, concurrency: 101 } };
    const error = thrown(() => invokerWith(over));
    expect(error['message']).toContain('connector.timeout');
    expect(error['message']).toContain('connector.concurrency');
  });
});

describe('concurrency', () => {
  async function maxInFlight(invoker: LocalInvoker, calls: number): Promise<number> {
    let inFlight = 0;
    let max = 0;
    invoker.registerHandler('slack.send', async () => {
      inFlight++;
      max = Math.max(max, inFlight);
      await new Promise((resolve) => setTimeout(resolve, 5));
      inFlight--;
      return { ok: true };
    });
    await Promise.all(
      Array.from({ length: calls }, () => run(invoker, 'slack.send', { channel: '#a' })),
    );
    return max;
  }

  it('caps in-flight calls per connector at 10 by default', async () => {
    expect(await maxInFlight(invokerWith(SLACK), 40)).toBe(10);
  });

  it('caps them at connector.concurrency when given', async () => {
    const three = { ...SLACK, connector: { ...SLACK.connector, concurrency: 3 } };
    expect(await maxInFlight(invokerWith(three), 20)).toBe(3);
  });

  it('does not start a queued call whose signal was aborted meanwhile', async () => {
    const one = { ...SLACK, connector: { ...SLACK.connector, concurrency: 1 } };
    const invoker = invokerWith(one);
    let started = 0;
    invoker.registerHandler('slack.send', async () => {
      started++;
      await new Promise((resolve) => setTimeout(resolve, 20));
      return { ok: true };
    });
    const controller = new AbortController();
    const first = run(invoker, 'slack.send', { channel: '#a' });
    const second = run(invoker, 'slack.send', { channel: '#a' }, { signal: controller.signal });
    controller.abort();
    await first;
    expect((await rejection(second))['code']).toBe('CANCELED');
    expect(started).toBe(1);
  });

  it('passes the context signal to handlers', async () => {
    const invoker = new LocalInvoker().registerHandler(
      'x.y',
      (_input, context) => context.signal.aborted,
    );
    expect(
      await invoker.invoke({
        target: { kind: 'plugin', slug: 'x' },
        action: 'y',
        input: {},
        context: makeContext(),
      }),
    ).toEqual({ output: false });
  });
});
