import { Type } from '@weft/core/typebox';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import {
  ForbiddenError,
  OWNER_PATTERN,
  ValidationError,
  type AuditPage,
  type AuditVerification,
  type Principal,
} from '@weft/core';
import { decodeAuditCursor, encodeAuditCursor } from '../audit/cursor.js';
import { typed } from '@weft/http';
import type { Runtime } from '../runtime.js';
import { principalOf, requirePrincipal } from '@weft/identity';
import { ERROR_RESPONSES } from './schemas.js';

const TAGS = ['audit'];
const SECURITY = [{ bearerAuth: [] }];
const RESPONSES = { ...ERROR_RESPONSES, 403: Type.Ref('ErrorObject') };

const AuditQuerystring = Type.Object(
  {
    since: Type.Optional(
      Type.String({
        maxLength: 40,
        description:
          'Only entries decided at or after this instant: an ISO 8601 date or date-time (2026-01-02, 2026-01-02T10:00:00Z, …+02:00)',
      }),
    ),
    limit: Type.Optional(
      Type.Integer({ minimum: 1, maximum: 1000, default: 100, description: 'Entries per page' }),
    ),
    cursor: Type.Optional(
      Type.String({ minLength: 1, maxLength: 64, description: 'next_cursor of the page before' }),
    ),
    owner: Type.Optional(
      Type.String({
        pattern: OWNER_PATTERN,
        description:
          'Only entries of this workspace (admin keys; a workspace auditor always reads their own)',
      }),
    ),
  },
  { additionalProperties: false },
);

/** A date, or a date-time with seconds optional and a zone (`Z` or an offset). */
const ISO_8601 =
  /^\d{4}-\d{2}-\d{2}(?:T\d{2}:\d{2}(?::\d{2}(?:\.\d{1,9})?)?(?:Z|[+-]\d{2}:\d{2}))?$/;

/**
 * `since` must be an ISO 8601 instant and `limit` plain decimal digits (the schema validator
 * alone would also take what JavaScript turns into a number: `0x10`, `1e3`, ` 5`).
 */
async function strictQuery(request: FastifyRequest): Promise<void> {
  const query = request.query as Record<string, unknown>;
  const limit = query['limit'];
  if (limit !== undefined && (typeof limit !== 'string' || !/^[0-9]{1,7}$/.test(limit))) {
    throw new ValidationError('limit must be a whole number written in digits', {
      field: 'limit',
      constraint: 'integer',
    });
  }
  const since = query['since'];
  if (since !== undefined && (typeof since !== 'string' || !isInstant(since))) {
    throw new ValidationError(
      'since must be an ISO 8601 date or date-time with a zone, e.g. 2026-01-02T10:00:00Z',
      { field: 'since', constraint: 'format' },
    );
  }
}

function isInstant(text: string): boolean {
  if (!ISO_8601.test(text)) return false;
  const ms = Date.parse(text);
  // Date.parse rolls 2026-02-31 over to March: the date as written must survive the round trip.
  return !Number.isNaN(ms) && dayOf(text) === dayAt(ms, text);
}

const dayOf = (text: string) => text.slice(0, 10);

/** The calendar day of `ms` in the zone `text` was written in. */
function dayAt(ms: number, text: string): string {
  const zone = /([+-])(\d{2}):(\d{2})$/.exec(text);
  const offset = zone ? (zone[1] === '-' ? -1 : 1) * (Number(zone[2]) * 60 + Number(zone[3])) : 0;
  return new Date(ms + offset * 60_000).toISOString().slice(0, 10);
}

/**
 * Who reads which entries: an admin key every entry (or one workspace's with `?owner=`), the
 * holder of an auditor role (a token's or a key's role alike) the entries of their own workspace,
 * anyone else nothing (403).
 */
function readerScope(principal: Principal, auditorRoles: readonly string[]): 'all' | 'workspace' {
  if (principal.admin) return 'all';
  if (principal.roles.some((role) => auditorRoles.includes(role))) return 'workspace';
  throw new ForbiddenError(
    auditorRoles.length === 0
      ? 'the audit log is for admin keys only (no auditor roles are configured: WEFT_OIDC_AUDITOR_ROLES)'
      : `the audit log is for admin keys and holders of an auditor role (${auditorRoles.join(', ')})`,
    { reason: auditorRoles.length === 0 ? 'not_admin' : 'not_auditor' },
  );
}

/**
 * `GET /audit` and `GET /audit/verify`: for admin keys, and for workspace auditors (holders of
 * a role of `audit.auditorRoles`) limited to their workspace.
 */
export function registerAuditRoutes(app: FastifyInstance, runtime: Runtime): void {
  const api = typed(app);
  const audit = runtime.options.audit;
  const onRequest = [requirePrincipal(runtime.options.authenticate)];
  api.get(
    '/audit',
    {
      onRequest,
      preValidation: strictQuery,
      schema: {
        tags: TAGS,
        security: SECURITY,
        summary:
          'Authorization decisions and approvals, oldest first (admin keys: all; workspace auditors: their workspace)',
        querystring: AuditQuerystring,
        response: { 200: Type.Ref('AuditPage'), ...RESPONSES },
      },
    },
    async (request): Promise<AuditPage> => {
      const query = request.query;
      const principal = principalOf(request);
      // An auditor's own workspace whatever `owner` says: it never widens what they read.
      const owner =
        readerScope(principal, audit.auditorRoles) === 'all' ? query.owner : principal.owner;
      const limit = query.limit ?? 100;
      const entries = await audit.read({
        afterSeq: query.cursor === undefined ? 0 : decodeAuditCursor(query.cursor),
        ...(query.since !== undefined ? { since: new Date(query.since).toISOString() } : {}),
        ...(owner !== undefined ? { owner } : {}),
        limit: limit + 1,
      });
      const page = entries.slice(0, limit);
      const last = page.at(-1);
      return {
        entries: page,
        next_cursor: entries.length > limit && last ? encodeAuditCursor(last.seq) : null,
      };
    },
  );

  api.get(
    '/audit/verify',
    {
      onRequest,
      schema: {
        tags: TAGS,
        security: SECURITY,
        summary:
          'Check the hash chain of the audit log: ok, or where it is broken (admin keys); a workspace auditor gets the status alone',
        response: { 200: Type.Ref('AuditVerification'), ...RESPONSES },
      },
    },
    async (request): Promise<AuditVerification> => {
      const scope = readerScope(principalOf(request), audit.auditorRoles);
      const found = await audit.verify();
      // The chain is one for all workspaces: its length and where it breaks would tell an
      // auditor about other workspaces' entries, so they learn whether it is whole, no more.
      return scope === 'all' ? found : { status: found.status, scope: 'workspace' };
    },
  );
}
