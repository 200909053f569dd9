import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { StreamEvent } from '@weft/core';
import { describe, expect, it } from 'vitest';
import type { Io } from '../io.js';
import { run } from '../test-support.js';
import { runProgress } from './run-progress.js';

function terminal(): { io: Io; text: () => string } {
  let text = '';
  return {
    io: { out: () => {}, err: (t) => void (text += t), color: false, live: true },
    text: () => text,
  };
}

const event = (type: string, step?: string, data: Record<string, unknown> = {}): StreamEvent =>
  ({
    type,
    workflow_id: 'e-1',
    ...(step !== undefined ? { step_name: step } : {}),
    timestamp: '2026-01-01T00:00:00Z',
    data,
  }) as unknown as StreamEvent;

describe('live progress of a text-mode run', () => {
  it('is off when stderr is no terminal', () => {
    expect(runProgress({ out: () => {}, err: () => {}, color: false }, 'w')).toBeUndefined();
  });

  it('names the execution, then shows each step start, replaced in place by its end', () => {
    const { io, text } = terminal();
    const progress = runProgress(io, 'flow')!;
    progress.onEvent(event('step.started', 'a'));
    progress.onEvent(
      event('step.completed', 'a', { status: 'success', duration_ms: 12, attempts: 1 }),
    );
    progress.onEvent(event('step.started', 'b'));
    progress.onEvent(event('step.started', 'c'));
    progress.onEvent(
      event('step.failed', 'b', {
        duration_ms: 5,
        attempts: 2,
        error: { code: 'BACKEND_ERROR', message: 'disk full' },
      }),
    );
    expect(text()).toBe(
      'running flow (execution e-1)\n' +
        '  … a\n\x1b[1A\x1b[2K  ✓ a  12 ms\n' +
        '  … b\n  … c\n' +
        // b ended after c started: its line is printed anew, the error under it.
        '  ✗ b  5 ms (2 calls)\n      BACKEND_ERROR: disk full\n',
    );
    expect(progress.showedSteps()).toBe(true);
  });
});

describe('weft workflow run, text output', () => {
  it('prints the execution id, and a failed step error once (no log block, no repeat)', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'weft-progress-'));
    mkdirSync(join(dir, 'plugins'));
    writeFileSync(
      join(dir, 'plugins', 'failer.yaml'),
      'connector: { kind: shell, name: failer, namespace: t, version: 1.0.0 }\n' +
        'actions:\n  - name: boom\n    command: [node, -e, "console.error(\'disk full\'); process.exit(3)"]\n',
    );
    const flow = join(dir, 'flow.yaml');
    writeFileSync(
      flow,
      'workflows:\n  - name: flow\n    steps:\n      - { id: second, plugin: failer, action: boom }\n',
    );
    const result = await run('workflow', 'run', flow, '--plugins', join(dir, 'plugins'));
    expect(result.code).toBe(1);
    expect(result.out).toMatch(/^flow failed in \d+ ms \(execution [0-9a-f-]{36}\)\n/);
    const all = result.out + result.err;
    expect(all.match(/disk full/g)).toHaveLength(1);
    expect(result.err).toBe('');
  });
});
