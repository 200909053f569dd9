import {
  assertNever,
  systemClock,
  timeOrderedId,
  type AuditAction,
  type AuditCredential,
  type AuditDecision,
  type AuditDraft,
  type AuditEntry,
  type AuditChainBroken,
  type AuditChainOk,
  type AuditQuery,
  type AuditStore,
  type ReadAuditEntry,
  type Clock,
} from '@weft/core';
import { auditHash } from './hash.js';
import { verifyAuditChain } from './verify.js';

/** The logging the audit log needs: pino and Fastify's `app.log` fit. */
export interface AuditLogger {
  info(object: object, message: string): void;
  warn(object: object, message: string): void;
  error(object: object, message: string): void;
}

/** One decision to record: who asked for what, what was decided and why. */
export interface AuditEvent {
  /** Who asked: the identity's subject (OIDC `sub`, or the API key's owner/name). */
  subject: string;
  credential: AuditCredential;
  action: AuditAction;
  decision: AuditDecision;
  /** Why, in words (`lacks role finance`, `approved by bob`). */
  reason: string;
  workflow?: string | null;
  executionId?: string | null;
  /** Path of the step (step-level checks, approvals). */
  step?: string | null;
  /** What the authorization block requires. Default: nothing. */
  required?: { roles?: readonly string[]; permissions?: readonly string[] };
  /** What the subject lacked. Default: nothing. */
  missing?: { roles?: readonly string[]; permissions?: readonly string[] };
  /**
   * The workspace the entry belongs to (the execution's or the caller's owner): its auditors
   * read it. Default: none (admin keys alone read it).
   */
  owner?: string | null;
}

/** Where the audit log is kept and where its lines go. */
export interface AuditOptions {
  store: AuditStore;
  /** Gets one line per stored entry (info, or warn for refusals). Default: none. */
  logger?: AuditLogger;
  /**
   * Holders of one of these roles (tokens and API keys alike) read their own workspace's
   * entries (`GET /audit`). Default: none, admin keys only.
   */
  auditorRoles?: readonly string[];
}

interface Pending {
  draft: AuditDraft;
  resolve(entry: AuditEntry): void;
  reject(error: unknown): void;
}

/** Most entries appended in one transaction. */
const MAX_BATCH = 256;

const silent: AuditLogger = { info() {}, warn() {}, error() {} };

/**
 * The audit log of authorization decisions (docs/authorization.md): {@link record} writes an entry durably
 * and hash-chained, then logs it as one structured line. Entries asked for while an append is
 * in flight go together in the next one (one transaction, one lock), so a burst costs a few
 * commits rather than one each.
 */
export class AuditLog {
  readonly store: AuditStore;
  /** Roles whose holders read their own workspace's entries (sorted). */
  readonly auditorRoles: readonly string[];
  private readonly logger: AuditLogger;
  private queue: Pending[] = [];
  private flushing = false;

  constructor(
    options: AuditOptions,
    private readonly clock: Clock = systemClock,
  ) {
    this.store = options.store;
    this.logger = options.logger ?? silent;
    this.auditorRoles = [...(options.auditorRoles ?? [])].sort();
  }

  /**
   * Stores one entry and logs it; resolves with it once it is stored. Rejects when it could not
   * be stored (logged at error level with the entry): a caller that allows something should then
   * fail the request rather than allow it unrecorded.
   */
  record(event: AuditEvent): Promise<AuditEntry> {
    const draft = toDraft(event, this.clock.now());
    return new Promise<AuditEntry>((resolve, reject) => {
      this.queue.push({ draft, resolve, reject });
      if (!this.flushing) void this.flush();
    });
  }

  /** Entries after a seq (and since an instant, of an owner), oldest first; damaged ones marked. */
  read(query: AuditQuery): Promise<ReadAuditEntry[]> {
    return this.store.read(query);
  }

  /** Walks the whole chain (see {@link verifyAuditChain}). */
  verify(): Promise<AuditChainOk | AuditChainBroken> {
    return verifyAuditChain(this.store);
  }

  private async flush(): Promise<void> {
    this.flushing = true;
    try {
      while (this.queue.length > 0) {
        const batch = this.queue.splice(0, MAX_BATCH);
        let entries: AuditEntry[];
        try {
          entries = await this.store.append(
            batch.map((p) => p.draft),
            auditHash,
          );
        } catch (error) {
          for (const pending of batch) {
            this.logger.error({ audit: pending.draft, err: error }, 'audit entry not stored');
            pending.reject(error);
          }
          continue;
        }
        batch.forEach((pending, i) => pending.resolve(entries[i]!));
        for (const entry of entries) this.log(entry);
      }
    } finally {
      this.flushing = false;
    }
  }

  private log(entry: AuditEntry): void {
    try {
      this.logLine(entry);
    } catch {
      // A failing logger must not fail what is already stored.
    }
  }

  private logLine(entry: AuditEntry): void {
    const message = `audit: ${entry.decision} ${entry.action}`;
    switch (entry.decision) {
      case 'allow':
      case 'approved':
        return this.logger.info({ audit: entry }, message);
      case 'deny':
      case 'rejected':
      case 'expired':
        return this.logger.warn({ audit: entry }, message);
      default:
        return assertNever(entry.decision);
    }
  }
}

/**
 * Text as it can be stored and hashed alike: a lone UTF-16 surrogate (which UTF-8 cannot carry,
 * and RFC 8785 refuses) and NUL (which PostgreSQL text refuses) become U+FFFD.
 */
function storable(text: string): string {
  return text.replace(/\p{Cs}/gu, '\uFFFD').replaceAll('\u0000', '\uFFFD');
}

const storableOrNull = (text: string | null | undefined) =>
  text === undefined || text === null ? null : storable(text);

const list = (values: readonly string[] | undefined) => (values ?? []).map(storable);

function toDraft(event: AuditEvent, now: number): AuditDraft {
  return {
    id: timeOrderedId(now),
    at: new Date(now).toISOString(),
    subject: storable(event.subject),
    credential: event.credential,
    action: event.action,
    workflow: storableOrNull(event.workflow),
    execution_id: storableOrNull(event.executionId),
    step: storableOrNull(event.step),
    decision: event.decision,
    reason: storable(event.reason),
    required: {
      roles: list(event.required?.roles),
      permissions: list(event.required?.permissions),
    },
    missing: { roles: list(event.missing?.roles), permissions: list(event.missing?.permissions) },
    owner: storableOrNull(event.owner),
  };
}
