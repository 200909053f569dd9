import { describe, expect, it } from 'vitest';
import { textLogLine } from './log-text.js';

const at = new Date(2026, 2, 1, 9, 5, 7, 42).getTime();

describe('textLogLine', () => {
  it('writes time, level, message and the fields as key=value on one line', () => {
    const line = JSON.stringify({
      level: 30,
      time: at,
      pid: 1,
      hostname: 'h',
      msg: 'workflow started',
      workflow: 'nightly',
      attempts: 2,
      ok: true,
      note: 'two words',
      data: { a: 1 },
    });
    expect(textLogLine(`${line}\n`)).toBe(
      '09:05:07.042 INFO  workflow started  workflow=nightly attempts=2 ok=true note="two words" data={"a":1}\n',
    );
  });

  it('puts an error’s message in the line and its stack below, indented', () => {
    const line = JSON.stringify({
      level: 50,
      time: at,
      msg: 'request failed',
      err: { message: 'boom', stack: 'Error: boom\n    at f (x.js:1:2)' },
    });
    expect(textLogLine(line)).toBe(
      '09:05:07.042 ERROR request failed  err=boom\n    Error: boom\n    at f (x.js:1:2)\n',
    );
  });

  it('passes a line that is not JSON as it is', () => {
    expect(textLogLine('plain words')).toBe('plain words\n');
  });
});
