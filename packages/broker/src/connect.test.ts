import { ValidationError } from '@weft/core';
import { describe, expect, it } from 'vitest';
import { connectBroker, parseBrokerUrl } from './connect.js';
import { MemoryBroker } from './memory/memory-broker.js';

describe('broker addresses', () => {
  it('opens the in-memory broker by default', async () => {
    const broker = await connectBroker();
    expect(broker).toBeInstanceOf(MemoryBroker);
    await broker.close();
    expect(parseBrokerUrl('')).toEqual({ kind: 'memory', hosts: [], params: {} });
    expect(parseBrokerUrl('memory').kind).toBe('memory');
  });

  it('parses NATS and Kafka addresses with several hosts and parameters', () => {
    expect(
      parseBrokerUrl('nats://127.0.0.1:4222,nats2:4223?namespace=prod&storage=memory'),
    ).toEqual({
      kind: 'nats',
      hosts: ['127.0.0.1:4222', 'nats2:4223'],
      params: { namespace: 'prod', storage: 'memory' },
    });
    expect(parseBrokerUrl('kafka://k1:9092,k2:9092?partitions=12')).toEqual({
      kind: 'kafka',
      hosts: ['k1:9092', 'k2:9092'],
      params: { partitions: '12' },
    });
  });

  it.each([
    ['redis://127.0.0.1:6379', 'unknown scheme'],
    ['nats://', 'no host'],
    ['nats://bad host:4222', 'bad host'],
    ['nats://h:4222?storage=disk', 'storage'],
    ['nats://h:4222?partitions=3', 'unknown parameter partitions'],
    ['kafka://h:9092?partitions=0', 'partitions'],
    ['kafka://h:9092?namespace=a.b', 'namespace'],
  ])('rejects %s naming the problem', (url, problem) => {
    let error: unknown;
    try {
      parseBrokerUrl(url);
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(ValidationError);
    expect((error as ValidationError).details.field).toBe('broker');
    expect((error as ValidationError).message).toContain(problem);
  });

  it('answers an unreachable NATS server with UNAVAILABLE', async () => {
    const error = await connectBroker('nats://127.0.0.1:1').catch((e: unknown) => e);
    expect(error).toMatchObject({ code: 'UNAVAILABLE', details: { backend: 'nats' } });
  });
});
