import { EventEmitter } from 'node:events';
import { describe, expect, it } from 'vitest';
import type { ExecutionRecord, StreamEvent } from '@weft/core';
import { RunInterrupts } from './run-interrupt.js';

/** A RunInterrupts on a fake signal source, with stderr and exits recorded. */
function watch(mode: 'local' | 'cloud', server?: string) {
  const signals = new EventEmitter();
  const errors: string[] = [];
  const exits: number[] = [];
  const interrupts = new RunInterrupts(
    { out: () => undefined, err: (text) => errors.push(text), color: false },
    {
      mode,
      ...(server ? { server } : {}),
      graceMs: 60_000,
      exit: (code) => exits.push(code),
      signals: signals as unknown as Pick<NodeJS.Process, 'on' | 'off'>,
    },
  );
  return { signals, errors, exits, interrupts };
}

const event = (type: StreamEvent['type'], step: string): StreamEvent => ({
  type,
  timestamp: '2026-03-01T12:00:00.000Z',
  workflow_id: 'run-1',
  step_name: step,
  data: {},
});

describe('RunInterrupts', () => {
  it('cancels a local run on SIGINT, naming the steps running, and exits at once on a second one', () => {
    const { signals, errors, exits, interrupts } = watch('local');
    interrupts.begin('report');
    interrupts.onEvent(event('step.started', 'fetch'));
    interrupts.onEvent(event('step.started', 'render'));
    interrupts.onEvent(event('step.completed', 'fetch'));
    interrupts.onEvent(event('step.started', 'send'));
    signals.emit('SIGINT', 'SIGINT');
    expect(interrupts.signal.aborted).toBe(true);
    expect(interrupts.signal.reason).toMatchObject({ code: 'CANCELED' });
    expect(errors).toEqual([
      'weft: interrupted by SIGINT: canceling workflow "report"; interrupted steps: render, send\n',
    ]);
    expect(interrupts.exitCode).toBe(130);
    expect(exits).toEqual([]);
    signals.emit('SIGINT', 'SIGINT');
    expect(exits).toEqual([130]);
    interrupts.dispose();
    expect(signals.listenerCount('SIGINT')).toBe(0);
  });

  it('leaves a --cloud run running and prints its id with the commands to follow or cancel it', () => {
    const { signals, errors, exits, interrupts } = watch('cloud', 'http://127.0.0.1:8080');
    interrupts.begin('report');
    interrupts.onStarted({ execution_id: 'ex-1' } as ExecutionRecord);
    signals.emit('SIGTERM', 'SIGTERM');
    expect(interrupts.signal.aborted).toBe(false);
    expect(exits).toEqual([143]);
    expect(errors.join('')).toBe(
      'weft: interrupted by SIGTERM: execution ex-1 of workflow "report" runs on at http://127.0.0.1:8080 (it was not canceled)\n' +
        '  follow it: weft execution wait ex-1 --server http://127.0.0.1:8080\n' +
        '  cancel it: weft execution cancel ex-1 --server http://127.0.0.1:8080\n',
    );
    interrupts.dispose();
  });

  it('says so when a --cloud run is interrupted before the server answered', () => {
    const { signals, errors, exits, interrupts } = watch('cloud', 'http://127.0.0.1:8080');
    interrupts.begin('report');
    signals.emit('SIGINT', 'SIGINT');
    expect(exits).toEqual([130]);
    expect(errors.join('')).toContain(
      'interrupted by SIGINT before http://127.0.0.1:8080 answered',
    );
    interrupts.dispose();
  });
});
