import { describe, expect, it } from 'vitest';
import { LocalInvoker } from '../invoker/local-invoker.js';
import { makeContext, pluginCall, rejection } from '../test-support/context.js';

const functionInvoker = (options: ConstructorParameters<typeof LocalInvoker>[0] = {}) => {
  const invoker = new LocalInvoker(options);
  invoker.registerConnector({
    connector: {
      kind: 'function',
      name: 'fn',
      namespace: 't',
      version: '1.0.0',
      runtime: { resources: { memory: '64MB', timeout: 5 } },
    },
    actions: [{ name: 'go' }],
  });
  return invoker.registerHandler('fn.go', () => ({ ran: true }));
};
const call = () => pluginCall('fn', 'go', {}, makeContext());

describe('limits a function action cannot enforce', () => {
  it('refuses a declared memory on a function connector, as nothing confines a handler', async () => {
    const error = await rejection(functionInvoker().invoke(call()));
    expect(error).toMatchObject({
      code: 'VALIDATION',
      details: { field: 'runtime.memory', constraint: 'sandbox', limit: 'memory' },
    });
    expect(error['message']).toMatch(/function handler runs inside this process/);
  });

  it('runs it in best-effort mode and warns once', async () => {
    const warnings: string[] = [];
    const invoker = functionInvoker({
      sandbox: { mode: 'best-effort', warn: (message) => warnings.push(message) },
    });
    expect((await invoker.invoke(call())).output).toEqual({ ran: true });
    expect((await invoker.invoke(call())).output).toEqual({ ran: true });
    expect(warnings).toEqual([
      expect.stringMatching(/t\/fn declares limits a function action does not enforce: memory/),
    ]);
  });

  it('refuses a step memory on an http action, and takes its bandwidth', async () => {
    const invoker = new LocalInvoker();
    invoker.registerConnector({
      connector: {
        kind: 'http',
        name: 'web',
        namespace: 't',
        version: '1.0.0',
        base_url: 'http://127.0.0.1:9',
      },
      actions: [{ name: 'get', request: { method: 'GET', url: '/x' } }],
    });
    const base = pluginCall('web', 'get', {}, makeContext());
    const error = await rejection(
      invoker.invoke({ ...base, runtime: { resources: { memory: '1GB' } } }),
    );
    expect(error).toMatchObject({ code: 'VALIDATION', details: { limit: 'memory' } });
    // Only the bandwidth: no refusal (the closed port then fails the call).
    const open = await rejection(
      invoker.invoke({ ...base, runtime: { network: { bandwidth: '1MB/s' } } }),
    );
    expect(open['code']).not.toBe('VALIDATION');
  });
});
