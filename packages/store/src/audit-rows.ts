import type { Selectable } from 'kysely';
import {
  AuditAction,
  AuditCredential,
  AuditDecision,
  type AuditEntry,
  type AuditRequirement,
  type ReadAuditEntry,
} from '@weft/core';
import type { AuditEntriesTable } from './audit-migration.js';

/** The values of a union of literals, read off its schema (so new actions need no change here). */
const literals = (union: { anyOf: { const: unknown }[] }) =>
  new Set(union.anyOf.map((member) => String(member.const)));
const CREDENTIALS = literals(AuditCredential);
const ACTIONS = literals(AuditAction);
const DECISIONS = literals(AuditDecision);
const HASH = /^[0-9a-f]{64}$/;

/** The row of an entry as stored: JSON columns as text. */
export function auditRow(entry: AuditEntry): Selectable<AuditEntriesTable> {
  return {
    seq: entry.seq,
    id: entry.id,
    at: entry.at,
    subject: entry.subject,
    credential: entry.credential,
    action: entry.action,
    workflow: entry.workflow,
    execution_id: entry.execution_id,
    step: entry.step,
    decision: entry.decision,
    reason: entry.reason,
    required: JSON.stringify(entry.required),
    missing: JSON.stringify(entry.missing),
    prev_hash: entry.prev_hash,
    hash: entry.hash,
    owner: entry.owner,
  };
}

/**
 * The entry of a stored row. A row someone or something damaged (a JSON column that does not
 * parse or is not `{roles, permissions}` of strings, a value outside its set, a column of the
 * wrong type) still comes back, marked `damaged` with what could not be read and without those
 * fields: one bad row must not make the whole log unreadable, and the chain check reports it.
 */
export function auditEntryOf(row: Selectable<AuditEntriesTable>): ReadAuditEntry {
  const problems: string[] = [];
  const fields: Record<string, unknown> = {};
  const take = (name: string, value: unknown, ok: boolean, why: string) => {
    if (ok) fields[name] = value;
    else problems.push(`${name}: ${why}`);
  };
  const text = (name: keyof AuditEntriesTable, nullable = false) => {
    const value = row[name];
    take(
      name,
      value,
      typeof value === 'string' || (nullable && value === null),
      nullable ? 'not text or null' : 'not text',
    );
  };
  const oneOf = (name: keyof AuditEntriesTable, allowed: Set<string>) => {
    const value = row[name];
    take(name, value, typeof value === 'string' && allowed.has(value), 'not a known value');
  };
  text('id');
  text('at');
  text('subject');
  oneOf('credential', CREDENTIALS);
  oneOf('action', ACTIONS);
  text('workflow', true);
  text('execution_id', true);
  text('step', true);
  oneOf('decision', DECISIONS);
  text('reason');
  for (const name of ['required', 'missing'] as const) {
    const parsed = requirement(row[name]);
    take(name, parsed.value, parsed.why === undefined, parsed.why ?? '');
  }
  for (const name of ['prev_hash', 'hash'] as const) {
    const value = row[name];
    take(name, value, typeof value === 'string' && HASH.test(value), 'not a SHA-256 hex digest');
  }
  text('owner', true);
  const seq = Number(row.seq);
  if (problems.length === 0) return { seq, ...fields } as AuditEntry;
  return { seq, damaged: true, damage: problems.join('; '), ...fields };
}

/** `{roles, permissions}` from its JSON text, or why it is not one. */
function requirement(text: unknown): { value?: AuditRequirement; why?: string } {
  if (typeof text !== 'string') return { why: 'not text' };
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return { why: 'not JSON' };
  }
  const strings = (list: unknown) =>
    Array.isArray(list) && list.every((item) => typeof item === 'string');
  if (
    typeof value !== 'object' ||
    value === null ||
    !strings((value as AuditRequirement).roles) ||
    !strings((value as AuditRequirement).permissions)
  ) {
    return { why: 'not {roles, permissions} lists of strings' };
  }
  const { roles, permissions } = value as AuditRequirement;
  return { value: { roles, permissions } };
}
