import { Type, type Static } from '@weft/core/typebox';

/** `prev_hash` of the first entry of an audit chain: 64 zeros. */
export const GENESIS_HASH = '0'.repeat(64);

/** How the subject of an audit entry authenticated. */
export const AuditCredential = Type.Union(
  [
    Type.Literal('api_key'),
    Type.Literal('oidc'),
    Type.Literal('local'),
    Type.Literal('deployment'),
  ],
  {
    description:
      'api_key, oidc (a verified identity-provider token), local (the CLI on its own data) or deployment (a trigger of a deployed workflow)',
  },
);
export type AuditCredential = Static<typeof AuditCredential>;

/** What was asked for. */
export const AuditAction = Type.Union(
  [
    Type.Literal('execution.start'),
    Type.Literal('workflow.deploy'),
    Type.Literal('workflow.delete'),
    Type.Literal('step.run'),
    Type.Literal('execution.approve'),
    Type.Literal('execution.reject'),
    Type.Literal('approval.expire'),
    Type.Literal('budget.set'),
    Type.Literal('budget.delete'),
    Type.Literal('tool_call.edit'),
  ],
  { description: 'The action that was authorized or refused' },
);
export type AuditAction = Static<typeof AuditAction>;

/** What was decided: an authorization check (`allow`, `deny`) or an approval's outcome. */
export const AuditDecision = Type.Union(
  [
    Type.Literal('allow'),
    Type.Literal('deny'),
    Type.Literal('approved'),
    Type.Literal('rejected'),
    Type.Literal('expired'),
  ],
  { description: 'allow or deny (authorization), approved, rejected or expired (approvals)' },
);
export type AuditDecision = Static<typeof AuditDecision>;

/** Roles and permissions, as an authorization block requires them or a subject lacks them. */
export const AuditRequirement = Type.Object({
  roles: Type.Array(Type.String()),
  permissions: Type.Array(Type.String()),
});
export type AuditRequirement = Static<typeof AuditRequirement>;

const Hash = Type.String({ pattern: '^[0-9a-f]{64}$' });

/**
 * One entry of the audit log (docs/authorization.md): an authorization decision or an approval outcome.
 * Entries are hash-chained: `hash` is the SHA-256 (hex) of the RFC 8785 canonical JSON of the
 * entry without `hash`, and `prev_hash` is the `hash` of the entry before (64 zeros for the
 * first), so that a deleted or edited entry shows.
 */
export const AuditEntry = Type.Object(
  {
    seq: Type.Integer({
      minimum: 1,
      description: 'Position in the chain: 1, 2, 3, … without gaps',
    }),
    id: Type.String({ description: 'Unique id of the entry (UUID v7)' }),
    at: Type.String({ format: 'date-time', description: 'When it was decided (UTC)' }),
    subject: Type.String({ description: 'Who asked: the identity’s subject or key owner' }),
    credential: AuditCredential,
    action: AuditAction,
    workflow: Type.Union([Type.String(), Type.Null()]),
    execution_id: Type.Union([Type.String(), Type.Null()]),
    step: Type.Union([Type.String(), Type.Null()], {
      description: 'Path of the step (step-level checks and approvals); null otherwise',
    }),
    decision: AuditDecision,
    reason: Type.String({ description: 'Why, in words' }),
    required: Type.Object(AuditRequirement.properties, {
      description: 'What the authorization block requires',
    }),
    missing: Type.Object(AuditRequirement.properties, {
      description: 'What the subject lacked (empty unless refused)',
    }),
    prev_hash: Hash,
    hash: Hash,
    owner: Type.Union([Type.String(), Type.Null()], {
      description:
        'The workspace (owner) the entry belongs to, whose auditors may read it; null when none was known. Not part of what `hash` covers: moving a workspace re-owns entries without rewriting the chain',
    }),
  },
  { $id: 'AuditEntry' },
);
export type AuditEntry = Static<typeof AuditEntry>;

/**
 * An entry whose stored row cannot be read whole (a column that is not valid JSON, a value out
 * of its set): listed with `damaged: true` and the reason, the fields that could be read, and
 * without the others. The chain is broken at it (`GET /audit/verify`).
 */
export const DamagedAuditEntry = Type.Object(
  {
    seq: AuditEntry.properties.seq,
    damaged: Type.Literal(true),
    damage: Type.String({ description: 'What could not be read, e.g. "required: not JSON"' }),
    ...Type.Partial(Type.Omit(AuditEntry, ['seq'])).properties,
  },
  { $id: 'DamagedAuditEntry' },
);
export type DamagedAuditEntry = Static<typeof DamagedAuditEntry>;

/** An entry as read back: whole, or damaged. */
export type ReadAuditEntry = AuditEntry | DamagedAuditEntry;

/** True for an entry whose row could not be read whole. */
export function isDamagedAuditEntry(entry: ReadAuditEntry): entry is DamagedAuditEntry {
  return 'damaged' in entry && entry.damaged === true;
}

/** `GET /audit`: one page of entries, oldest first. */
export const AuditPage = Type.Object(
  {
    entries: Type.Array(Type.Union([Type.Ref('AuditEntry'), Type.Ref('DamagedAuditEntry')])),
    next_cursor: Type.Union([Type.String(), Type.Null()], {
      description: 'Pass as `cursor` for the next page; null when this page reached the end',
    }),
  },
  { $id: 'AuditPage' },
);
export interface AuditPage {
  entries: ReadAuditEntry[];
  next_cursor: string | null;
}

/** `GET /audit/verify`: the chain is whole… */
export const AuditChainOk = Type.Object({
  status: Type.Literal('ok'),
  entries: Type.Integer({ description: 'Entries checked' }),
  last_hash: Type.String({ description: 'Hash of the last entry (64 zeros when empty)' }),
  first_seq: Type.Optional(
    Type.Integer({
      description:
        'The first entry kept, when retention deleted older ones: the chain is checked from it (its prev_hash is the anchor)',
    }),
  ),
});
export type AuditChainOk = Static<typeof AuditChainOk>;

/** …or broken at an entry. */
export const AuditChainBroken = Type.Object({
  status: Type.Literal('broken'),
  at_seq: Type.Integer({
    description: 'The first seq that is missing (gap) or whose entry does not check',
  }),
  reason: Type.Union(
    [
      Type.Literal('hash_mismatch'),
      Type.Literal('prev_mismatch'),
      Type.Literal('gap'),
      Type.Literal('damaged'),
    ],
    {
      description:
        'hash_mismatch: the entry was edited; prev_mismatch: it does not follow the entry before; gap: an entry is missing; damaged: its row cannot be read',
    },
  ),
});
export type AuditChainBroken = Static<typeof AuditChainBroken>;

/**
 * What a workspace auditor (not an admin) learns of the whole chain: whether it is whole, nothing
 * about other workspaces' entries (neither how many there are nor where a break is).
 */
export const AuditChainStatus = Type.Object({
  status: Type.Union([Type.Literal('ok'), Type.Literal('broken')]),
  scope: Type.Literal('workspace', {
    description: 'Answered to a workspace auditor: the status of the whole chain only',
  }),
});
export type AuditChainStatus = Static<typeof AuditChainStatus>;

/** What verifying the audit chain found, as an admin (first two) or a workspace auditor sees it. */
export const AuditVerification = Type.Union([AuditChainOk, AuditChainBroken, AuditChainStatus], {
  $id: 'AuditVerification',
});
export type AuditVerification = Static<typeof AuditVerification>;
