import { pino } from 'pino';
import { afterEach, describe, expect, it } from 'vitest';
import { MAX_NESTING_DEPTH } from '@weft/core';
import { createConnectorService, type ConnectorService } from './service.js';

let service: ConnectorService | undefined;
afterEach(async () => {
  await service?.close();
  service = undefined;
});

/** `{"x":{"x":…{"a":1}…}}` nested `depth` objects deep. */
const deep = (depth: number) => `${'{"x":'.repeat(depth - 1)}{"a":1}${'}'.repeat(depth - 1)}`;

// The nesting of a call's body is checked on its text before anything parses or walks it: a
// handler never receives input deeper than the limit, and the service answers the next call.
describe('a connector service and a deeply nested body', () => {
  it('answers 400 VALIDATION naming the limit, then serves the next call', async () => {
    service = await createConnectorService({
      connector: {
        connector: { kind: 'function', name: 'greet', namespace: 'demo', version: '1.0.0' },
        actions: [{ name: 'hello' }],
      },
      handlers: { hello: () => ({ hi: true }) },
      handleSignals: false,
      logger: pino({ level: 'silent' }),
    });
    const call = (input: string) =>
      fetch(`${service!.url}/execute`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: `{"action":"greet.hello","input":${input}}`,
      });
    const refused = await call(deep(10_000));
    expect(refused.status).toBe(400);
    expect(await refused.json()).toMatchObject({
      status: 'error',
      code: 'VALIDATION',
      details: { field: 'body', constraint: 'too_deep', limit: MAX_NESTING_DEPTH },
    });
    const served = await call(deep(10));
    expect(served.status).toBe(200);
    expect(await served.json()).toMatchObject({ status: 'success' });
  });
});
