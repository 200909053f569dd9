import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { AccessPolicy } from '@weft/core';
import { AccessFileWatcher } from './access-file-watcher.js';

const work = mkdtempSync(join(tmpdir(), 'weft-access-file-'));
let watcher: AccessFileWatcher | undefined;
afterEach(() => {
  watcher?.close();
  watcher = undefined;
});

/** A log that keeps its lines. */
function recordingLog() {
  const lines: { level: string; message: string }[] = [];
  return {
    lines,
    info: (_fields: object, message: string) => lines.push({ level: 'info', message }),
    error: (_fields: object, message: string) => lines.push({ level: 'error', message }),
  };
}

const file = (name: string, permissions: string) => {
  const path = join(work, name);
  writeFileSync(path, `roles:\n  finance:\n    permissions: [${permissions}]\n`);
  return path;
};

async function until(condition: () => boolean): Promise<void> {
  const deadline = Date.now() + 5000;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error('condition not met in 5 s');
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

describe('AccessFileWatcher', () => {
  it('applies the file at start and each good version after; a bad one keeps the last good', async () => {
    const path = file('reload.yaml', 'payments:approve');
    const log = recordingLog();
    let policy: AccessPolicy | undefined;
    watcher = AccessFileWatcher.open(path, 10, (p) => (policy = p), log);
    expect(policy?.roles.get('finance')).toEqual(['payments:approve']);

    writeFileSync(path, 'roles:\n  finance:\n    permissions: [Payments]\n');
    await until(() => log.lines.some((line) => line.level === 'error'));
    expect(log.lines.at(-1)?.message).toContain(
      'not reloaded, the last good version stays in force: ',
    );
    expect(log.lines.at(-1)?.message).toContain('roles.finance.permissions[0] "Payments"');
    expect(policy?.roles.get('finance')).toEqual(['payments:approve']);

    file('reload.yaml', 'reports:read, payments:refund');
    await until(() => policy?.roles.get('finance')?.length === 2);
    expect(policy?.roles.get('finance')).toEqual(['payments:refund', 'reports:read']);
    expect(log.lines.at(-1)).toEqual({ level: 'info', message: 'access file reloaded' });
  });

  it('keeps the last good policy when the file disappears', async () => {
    const path = file('gone.yaml', 'a:b');
    const log = recordingLog();
    let policy: AccessPolicy | undefined;
    watcher = AccessFileWatcher.open(path, 10, (p) => (policy = p), log);
    // A change seen first: the watcher has polled the file at least once before it goes.
    file('gone.yaml', 'c:d');
    await until(() => policy?.roles.get('finance')?.[0] === 'c:d');
    rmSync(path);
    await until(() => log.lines.some((line) => line.level === 'error'));
    expect(log.lines.at(-1)?.message).toContain('cannot be read; the last good version stays');
    expect(policy?.roles.get('finance')).toEqual(['c:d']);
  });

  it('refuses to start on a bad or missing file, naming it', () => {
    const bad = join(work, 'bad.yaml');
    writeFileSync(bad, 'roles:\n  finance:\n    permisions: []\n');
    expect(() => AccessFileWatcher.open(bad, 10, () => {}, recordingLog())).toThrow(
      `${bad}: roles.finance.permisions is not a known key`,
    );
    expect(() =>
      AccessFileWatcher.open(join(work, 'none.yaml'), 10, () => {}, recordingLog()),
    ).toThrow(/ENOENT/);
  });
});
