import { describe, expect, it } from 'vitest';
import type { ExecutionEvent } from '@weft/sdk/client';
import { MASK, formatMs, maskSecrets } from '../src/format.js';
import { stepsFromEvents } from '../src/timeline.js';

let id = 0;
const event = (
  type: ExecutionEvent['type'],
  step_name: string,
  data: Record<string, unknown> = {},
): ExecutionEvent => ({
  id: String(++id),
  type,
  step_name,
  data,
  workflow_id: 'w',
  timestamp: `2026-11-25T12:00:0${id % 10}.000Z`,
});

describe('the run page timeline', () => {
  it('says canceled for a step a cancellation stopped, failed for one that failed', () => {
    const steps = stepsFromEvents([
      event('step.started', 'slow'),
      event('step.failed', 'slow', { error: { code: 'CANCELED', message: 'canceled' } }),
      event('step.started', 'bad'),
      event('step.failed', 'bad', { error: { code: 'BACKEND_ERROR', message: 'no' } }),
    ]);
    expect(steps.map((s) => [s.name, s.status])).toEqual([
      ['slow', 'canceled'],
      ['bad', 'failed'],
    ]);
  });

  it('gives each step its status, attempts, duration, output and error, in start order', () => {
    const steps = stepsFromEvents([
      event('step.started', 'fetch'),
      event('step.completed', 'fetch', {
        status: 'success',
        output: { n: 1 },
        attempts: 2,
        duration_ms: 40,
      }),
      event('step.started', 'charge'),
      event('step.failed', 'charge', {
        error: { code: 'TIMEOUT', message: 'too slow' },
        attempts: 3,
        duration_ms: 900,
      }),
      event('step.started', 'later'),
      event('workflow.completed', ''),
    ]);
    expect(steps).toEqual([
      expect.objectContaining({ name: 'fetch', status: 'success', attempts: 2, durationMs: 40 }),
      expect.objectContaining({
        name: 'charge',
        status: 'failed',
        attempts: 3,
        error: { code: 'TIMEOUT', message: 'too slow' },
      }),
      expect.objectContaining({ name: 'later', status: 'running' }),
    ]);
    expect(steps[0]!.output).toEqual({ n: 1 });
  });

  it('shows for_each iterations as rows of their own and nests parallel branches by path', () => {
    const steps = stepsFromEvents([
      event('step.started', 'each'),
      event('step.started', 'each'),
      event('step.completed', 'each', { status: 'success', output: 1 }),
      event('step.started', 'group/left'),
      event('step.completed', 'each', { status: 'success', output: 2 }),
      event('step.completed', 'group/left', { status: 'skipped', output: null }),
    ]);
    expect(steps.map((s) => [s.name, s.status, s.depth, s.output])).toEqual([
      ['each', 'success', 0, 1],
      ['each [2]', 'success', 0, 2],
      ['group/left', 'skipped', 1, null],
    ]);
  });
});

describe('what the console prints', () => {
  it('masks values of secret-looking keys at any depth, and only those', () => {
    expect(
      maskSecrets({
        user: 'ann',
        api_key: 'k-123',
        nested: [{ Password: 'p', note: 'token-free text' }],
        headers: { Authorization: 'Bearer x' },
        refresh_token: null,
      }),
    ).toEqual({
      user: 'ann',
      api_key: MASK,
      nested: [{ Password: MASK, note: 'token-free text' }],
      headers: { Authorization: MASK },
      refresh_token: null,
    });
  });

  it('prints durations in the unit that reads best', () => {
    expect([350, 4_200, 185_000, 7_440_000].map(formatMs)).toEqual([
      '350 ms',
      '4.2 s',
      '3 min 5 s',
      '2 h 4 min',
    ]);
  });
});
