import { randomBytes } from 'node:crypto';
import { lookup } from 'node:dns';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { TimeoutError } from '@weft/core';
import { ManualClock } from '@weft/core/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { LocalInvokerOptions } from '../invoker/options.js';
import { invokerWith, rejection, run } from '../test-support/context.js';

const BLOB = randomBytes(2_250_000).toString('base64'); // 3,000,000 characters
const ANSWER = JSON.stringify({ blob: BLOB });
let server: Server;
let base = '';
/** What the server saw of the last upload. */
let upload = { bytes: 0, length: '', chunked: false };
/** Called when an upload's first bytes arrive, or the answer's first bytes left. */
let onFirstBytes = () => {};

beforeAll(async () => {
  server = createServer((req, res) => {
    if (req.url === '/blob') return void res.end(ANSWER);
    if (req.url === '/slow-blob') {
      res.write(ANSWER.slice(0, 100_000), () => onFirstBytes());
      return void res.end(ANSWER.slice(100_000));
    }
    upload = {
      bytes: 0,
      length: req.headers['content-length'] ?? '',
      chunked: req.headers['transfer-encoding'] === 'chunked',
    };
    req.once('data', () => onFirstBytes());
    req.on('data', (chunk: Buffer) => (upload.bytes += chunk.byteLength));
    req.on('end', () => res.end(JSON.stringify({ received: upload.bytes })));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

const api = (bandwidth: string | undefined, options: LocalInvokerOptions) =>
  invokerWith(
    {
      connector: {
        kind: 'http',
        name: 'api',
        namespace: 't',
        version: '1.0.0',
        base_url: base,
        ...(bandwidth ? { runtime: { network: { bandwidth } } } : {}),
      },
      actions: [
        { name: 'get', request: { url: '/blob' } },
        { name: 'slow', request: { url: '/slow-blob' } },
        {
          name: 'put',
          request: { method: 'POST', url: '/sink', body: { blob: '{{ inputs.b }}' } },
        },
      ],
    },
    { maxOutputBytes: 8 * 2 ** 20, ...options },
  );

const slept = (clock: ManualClock) => clock.sleeps.reduce((a, b) => a + b, 0);

/** An egress policy that allows everything, to send through undici's dispatcher path. */
const openEgress = { refusal: () => Promise.resolve(undefined), lookup };

describe('network.bandwidth of http actions', () => {
  it('reads a 3 MB answer at 1MB/s: 2.9 s of waits on the clock, every byte intact', async () => {
    const clock = new ManualClock();
    const output = await run(api('1MB/s', { clock }), 'api.get');
    expect((output as { blob: string }).blob === BLOB).toBe(true);
    expect(slept(clock)).toBeGreaterThanOrEqual(2900);
    expect(slept(clock)).toBeLessThan(3100);
  });

  it('reads at the default 10MB/s when the connector sets no bandwidth', async () => {
    const clock = new ManualClock();
    const output = await run(api(undefined, { clock }), 'api.get');
    expect((output as { blob: string }).blob === BLOB).toBe(true);
    // 3 MB less the 1 MB burst, at 10 MB a second.
    expect(slept(clock)).toBeGreaterThanOrEqual(200);
    expect(slept(clock)).toBeLessThan(300);
  });

  it.each([
    ['Node fetch', {}],
    ["undici's fetch (egress policy)", { httpEgress: openEgress }],
  ])(
    'sends a 1 MB request body paced at 1MB/s with its content-length, through %s',
    async (_name, options: LocalInvokerOptions) => {
      const clock = new ManualClock();
      const b = 'y'.repeat(1_000_000);
      const output = await run(api('1MB/s', { ...options, clock }), 'api.put', { b });
      const sent = JSON.stringify({ blob: b }).length;
      expect(output).toEqual({ received: sent });
      expect(upload).toEqual({ bytes: sent, length: String(sent), chunked: false });
      expect(slept(clock)).toBeGreaterThanOrEqual(900);
    },
  );

  it('sends a small body as it is, without waiting', async () => {
    const clock = new ManualClock();
    await run(api('1MB/s', { clock }), 'api.put', { b: 'small' });
    expect(upload).toMatchObject({ chunked: false, length: '16' });
    expect(clock.sleeps).toEqual([]);
  });

  it('ends a throttled download with TIMEOUT as soon as the attempt times out', async () => {
    const controller = new AbortController();
    onFirstBytes = () => controller.abort(new TimeoutError('timed out', timing));
    const error = await rejection(
      run(api('1KB/s', {}), 'api.slow', {}, { signal: controller.signal }),
    );
    expect(error).toMatchObject({ code: 'TIMEOUT', details: timing });
  });

  it('ends a throttled upload with CANCELED as soon as the call is canceled', async () => {
    const controller = new AbortController();
    onFirstBytes = () => controller.abort();
    const b = 'z'.repeat(500_000);
    const error = await rejection(
      run(api('1KB/s', {}), 'api.put', { b }, { signal: controller.signal }),
    );
    expect(error['code']).toBe('CANCELED');
  });
});

const timing = { timeout_ms: 1000, elapsed_ms: 1000 };
