import { describe, expect, it } from 'vitest';
import { ValidationError } from '@weft/core';
import { parseTaskMessage, parseTaskResultMessage, taskSubject } from './messages.js';

const task = {
  workflow_id: 'exec-1',
  plugin: 'slack',
  action: 'send_message',
  input: { channel: '#ops' },
  timestamp: '2026-11-23T10:00:00.000Z',
};

function fieldOf(fn: () => unknown): string | undefined {
  try {
    fn();
  } catch (error) {
    expect(error).toBeInstanceOf(ValidationError);
    return (error as ValidationError).details.field;
  }
  return undefined;
}

describe('task messages (docs/protocol.md#broker-tasks)', () => {
  it('parses a task message with exactly the spec fields', () => {
    expect(parseTaskMessage(JSON.stringify(task))).toEqual(task);
  });

  it.each([
    ['workflow_id', { ...task, workflow_id: '' }],
    ['plugin', { ...task, plugin: 'Not A Slug' }],
    ['action', { ...task, action: undefined }],
    ['input', { ...task, input: [1] }],
    ['timestamp', { ...task, timestamp: '23 Nov 2026' }],
    ['timestamp', { ...task, timestamp: '2026-11-23T10:00:00+01:00' }],
    ['extra', { ...task, extra: 1 }],
  ])('rejects a task whose %s is wrong, naming it', (field, value) => {
    expect(fieldOf(() => parseTaskMessage(JSON.stringify(value)))).toBe(field);
  });

  it('rejects text that is not JSON', () => {
    expect(() => parseTaskMessage('{"workflow_id":')).toThrow(/not JSON/);
  });

  it('parses success and error results', () => {
    const base = {
      workflow_id: 'e',
      step: 's',
      idempotency_key: 'e/s',
      plugin: 'slack',
      action: 'a',
      timestamp: task.timestamp,
    };
    expect(
      parseTaskResultMessage(JSON.stringify({ ...base, status: 'success', output: 1 })),
    ).toMatchObject({ output: 1 });
    const error = { status: 'error', code: 'TIMEOUT', message: 'slow', details: {} };
    expect(
      parseTaskResultMessage(JSON.stringify({ ...base, status: 'error', error })).error,
    ).toEqual(error);
    expect(fieldOf(() => parseTaskResultMessage(JSON.stringify({ ...base, status: 'done' })))).toBe(
      'status',
    );
  });

  it('names topics platform.workflow.<plugin_slug> and refuses slugs that cannot be topics', () => {
    expect(taskSubject('slack')).toBe('platform.workflow.slack');
    expect(fieldOf(() => taskSubject('results'))).toBe('plugin');
    expect(fieldOf(() => taskSubject('a.b'))).toBe('plugin');
    expect(fieldOf(() => taskSubject('x'.repeat(65)))).toBe('plugin');
  });
});
