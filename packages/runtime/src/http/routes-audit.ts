import { Type } from '@sinclair/typebox';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { ForbiddenError, ValidationError, type AuditPage } from '@weft/core';
import { decodeAuditCursor, encodeAuditCursor } from '../audit/cursor.js';
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

/** An `onRequest` hook after {@link requirePrincipal}: only admin keys read the audit log. */
async function requireAdmin(request: FastifyRequest): Promise<void> {
  if (!principalOf(request).admin) {
    throw new ForbiddenError('the audit log is for admin keys only', { reason: 'not_admin' });
  }
}

/** `GET /audit` and `GET /audit/verify` (issue 16), for admin keys. */
export function registerAuditRoutes(app: FastifyInstance, runtime: Runtime): void {
  const onRequest = [requirePrincipal(runtime.options.authenticate), requireAdmin];
  app.get(
    '/audit',
    {
      onRequest,
      preValidation: strictQuery,
      schema: {
        tags: TAGS,
        security: SECURITY,
        summary: 'Authorization decisions and approvals, oldest first (admin keys)',
        querystring: AuditQuerystring,
        response: { 200: Type.Ref('AuditPage'), ...RESPONSES },
      },
    },
    async (request): Promise<AuditPage> => {
      const query = request.query as { since?: string; limit?: number; cursor?: string };
      const limit = query.limit ?? 100;
      const entries = await runtime.options.audit.read({
        afterSeq: query.cursor === undefined ? 0 : decodeAuditCursor(query.cursor),
        ...(query.since !== undefined ? { since: new Date(query.since).toISOString() } : {}),
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

  app.get(
    '/audit/verify',
    {
      onRequest,
      schema: {
        tags: TAGS,
        security: SECURITY,
        summary: 'Check the hash chain of the audit log: ok, or where it is broken (admin keys)',
        response: { 200: Type.Ref('AuditVerification'), ...RESPONSES },
      },
    },
    async () => runtime.options.audit.verify(),
  );
}
