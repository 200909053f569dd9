import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import {
  GENESIS_HASH,
  type AuditDraft,
  type AuditEntry,
  type AuditSeal,
  type AuditStore,
  type Clock,
} from '@weft/core';
import { AuditLog, type AuditEvent, type AuditLogger } from './audit-log.js';
import { auditHash } from './hash.js';
import { MemoryAuditStore } from './memory-audit-store.js';

const clock = (ms: number): Clock => ({ now: () => ms, sleep: async () => {} });

function recordingLogger() {
  const lines: { level: string; object: { audit: AuditEntry }; message: string }[] = [];
  const at =
    (level: string) =>
    (object: object, message: string): void => {
      lines.push({ level, object: object as { audit: AuditEntry }, message });
    };
  const logger: AuditLogger = { info: at('info'), warn: at('warn'), error: at('error') };
  return { logger, lines };
}

const denial: AuditEvent = {
  subject: 'alice',
  credential: 'oidc',
  action: 'execution.start',
  decision: 'deny',
  reason: 'lacks role finance',
  workflow: 'payroll',
  required: { roles: ['finance'], permissions: ['payroll:run'] },
  missing: { roles: ['finance'] },
};

describe('audit hash', () => {
  it('is the SHA-256 of the RFC 8785 canonical JSON of the entry without its hash and owner', () => {
    const entry: AuditEntry = {
      seq: 1,
      id: 'i',
      at: '2026-01-02T00:00:00.000Z',
      subject: 'é',
      credential: 'api_key',
      action: 'workflow.deploy',
      workflow: 'w',
      execution_id: null,
      step: null,
      decision: 'allow',
      reason: 'r',
      required: { roles: [], permissions: ['w:deploy'] },
      missing: { roles: [], permissions: [] },
      prev_hash: GENESIS_HASH,
      hash: 'ignored',
      owner: 'acme',
    };
    // Keys sorted by UTF-16 code units, no whitespace, non-ASCII as is.
    const canonical =
      '{"action":"workflow.deploy","at":"2026-01-02T00:00:00.000Z","credential":"api_key",' +
      '"decision":"allow","execution_id":null,"id":"i",' +
      '"missing":{"permissions":[],"roles":[]},' +
      `"prev_hash":"${GENESIS_HASH}","reason":"r",` +
      '"required":{"permissions":["w:deploy"],"roles":[]},"seq":1,"step":null,"subject":"é",' +
      '"workflow":"w"}';
    expect(auditHash(entry)).toBe(createHash('sha256').update(canonical).digest('hex'));
  });
});

describe('audit log', () => {
  it('stores an entry with the time, defaults and chain filled in', async () => {
    const audit = new AuditLog({ store: new MemoryAuditStore() }, clock(Date.UTC(2026, 0, 2)));
    const entry = await audit.record(denial);
    expect(entry).toMatchObject({
      seq: 1,
      at: '2026-01-02T00:00:00.000Z',
      subject: 'alice',
      credential: 'oidc',
      action: 'execution.start',
      workflow: 'payroll',
      execution_id: null,
      step: null,
      decision: 'deny',
      required: { roles: ['finance'], permissions: ['payroll:run'] },
      missing: { roles: ['finance'], permissions: [] },
      prev_hash: GENESIS_HASH,
    });
    expect(entry.id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-7/);
    expect(entry.hash).toBe(auditHash(entry));
    expect(await audit.read({ afterSeq: 0, limit: 10 })).toEqual([entry]);
  });

  it('logs each stored entry once: info for allows and approvals, warn for refusals', async () => {
    const { logger, lines } = recordingLogger();
    const audit = new AuditLog({ store: new MemoryAuditStore(), logger });
    const decisions = ['allow', 'deny', 'approved', 'rejected', 'expired'] as const;
    const entries = [];
    for (const decision of decisions) entries.push(await audit.record({ ...denial, decision }));
    expect(lines.map((l) => l.level)).toEqual(['info', 'warn', 'info', 'warn', 'warn']);
    expect(lines.map((l) => l.object.audit)).toEqual(entries);
    expect(lines[1]!.message).toBe('audit: deny execution.start');
  });

  it('chains entries recorded at once in the order they were asked for', async () => {
    const appends: number[] = [];
    const memory = new MemoryAuditStore();
    const store: AuditStore = {
      kind: 'counting',
      append: (drafts: readonly AuditDraft[], seal: AuditSeal) => {
        appends.push(drafts.length);
        return memory.append(drafts, seal);
      },
      read: (query) => memory.read(query),
      prune: (before, limit) => memory.prune(before, limit),
      anchor: () => memory.anchor(),
    };
    const audit = new AuditLog({ store });
    const subjects = Array.from({ length: 10 }, (_, i) => `user-${i}`);
    const entries = await Promise.all(
      subjects.map((subject) => audit.record({ ...denial, subject })),
    );
    expect(entries.map((e) => [e.seq, e.subject])).toEqual(subjects.map((s, i) => [i + 1, s]));
    // The first goes alone; the nine asked for while it was stored go together.
    expect(appends).toEqual([1, 9]);
    expect(await audit.verify()).toEqual({
      status: 'ok',
      entries: 10,
      last_hash: entries[9]!.hash,
    });
  });

  it('rejects and logs an error when the entry cannot be stored, then goes on', async () => {
    const { logger, lines } = recordingLogger();
    let fail = true;
    const memory = new MemoryAuditStore();
    const store: AuditStore = {
      kind: 'flaky',
      append: async (drafts, seal) => {
        if (fail) throw new Error('database down');
        return memory.append(drafts, seal);
      },
      read: (query) => memory.read(query),
      prune: (before, limit) => memory.prune(before, limit),
      anchor: () => memory.anchor(),
    };
    const audit = new AuditLog({ store, logger });
    await expect(audit.record(denial)).rejects.toThrow('database down');
    expect(lines).toMatchObject([
      {
        level: 'error',
        message: 'audit entry not stored',
        object: { audit: { subject: 'alice' } },
      },
    ]);
    fail = false;
    expect((await audit.record(denial)).seq).toBe(1);
  });

  it('stores text that UTF-8 or PostgreSQL cannot carry as U+FFFD, so that it still verifies', async () => {
    const audit = new AuditLog({ store: new MemoryAuditStore() });
    const entry = await audit.record({
      ...denial,
      subject: 'a\uD800b',
      workflow: 'nul\u0000',
      missing: { roles: ['\uDC00'] },
    });
    expect(entry).toMatchObject({
      subject: 'a\uFFFDb',
      workflow: 'nul\uFFFD',
      missing: { roles: ['\uFFFD'] },
    });
    expect(await audit.verify()).toMatchObject({ status: 'ok', entries: 1 });
  });
});
