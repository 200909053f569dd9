import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import {
  NotFoundError,
  systemClock,
  timeOrderedId,
  UnavailableError,
  WeftError,
  type Clock,
  type Principal,
  type TriggerStore,
} from '@weft/core';
import { sendError } from '@weft/http';
import type { Authenticate, StartExecution } from '../start-execution.js';
import { payloadOf, readLimitedBody, tooLarge } from './body.js';
import {
  DEFAULT_MAX_PAYLOAD_SIZE,
  DELIVERY_ID_HEADERS,
  type CompiledWebhook,
} from './compile-webhook.js';
import type { EventRouter } from '../events/event-router.js';
import { clientAddress, compileAddressList, type AddressList } from './ip-allowlist.js';
import { forbidden, rateLimited, type WebhookAuditEntry } from './refusal.js';
import { claimDelivery } from './replay-guard.js';
import { authenticate } from './authenticate.js';
import type { WebhookTable } from './webhook-table.js';
import { traceCarrierOf } from '@weft/telemetry';

/** Options of {@link webhookRoutes}. */
export interface WebhookRoutesOptions {
  table: WebhookTable;
  start: StartExecution;
  /** Replay and rate-limit state. */
  store: TriggerStore;
  /**
   * Brings the table in line with the deployments store (another replica may have just
   * deployed): called on a miss before a 404, so that no refusal rests on a stale table.
   */
  refresh?: () => Promise<void>;
  clock?: Clock;
  /** Proxies whose `X-Forwarded-For` is believed (IPs and CIDRs; `WEFT_TRUSTED_PROXIES`). */
  trustedProxies?: readonly string[];
  /** Receives every refusal (it is also logged at warn level). */
  audit?: (entry: WebhookAuditEntry) => void;
  /** Counts each request to `/hooks/*` once answered (`weft_webhook_requests_total`). */
  onOutcome?: WebhookOutcome;
  /**
   * Event triggers with `source: webhook`: a POST to `/hooks` + their `topic` (a path) that no
   * webhook trigger serves is authenticated with a weft API key and dispatched as an event.
   */
  events?: {
    router: EventRouter;
    authenticate: Authenticate;
    /**
     * Whether a caller's event may start `workflow` (those of its owner; every one for an admin
     * key). A path no workflow it may start listens to answers as an unknown path. Default: all.
     */
    mayStart?: (workflow: string, caller: Principal) => boolean;
  };
}

/**
 * How a webhook request ended: `accepted` (reason `none`), or `refused` with a bounded machine
 * word: the audit reason (`bad_signature`, `rate_limited`...), else `not_found`,
 * `payload_too_large`, `validation` or `error` by the answer's status.
 */
export type WebhookOutcome = (outcome: 'accepted' | 'refused', reason: string) => void;

const STATUS_REASONS: Record<number, string> = {
  400: 'validation',
  401: 'unauthorized',
  403: 'forbidden',
  404: 'not_found',
  409: 'conflict',
  413: 'payload_too_large',
  429: 'rate_limited',
};

interface Matched {
  hook: CompiledWebhook;
  /** Which listening workflows an event of the caller may start (webhook-source events). */
  may?: (workflow: string) => boolean;
  /** The client's address; found when an allowlist or an audit entry needs it (null: none). */
  clientIp?: string | null;
}

const METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'] as const;

/**
 * Serves deployed webhooks at `/hooks/*`. In order, a request is refused when: no webhook has
 * this method and path (404; 503 when one is deployed but its secret is missing here); the caller
 * is outside `ipAllowlist` (403); `Content-Length` or the streamed body passes `maxPayloadSize`
 * (413, before the body is buffered whole); a `whsec_` webhook's `webhook-id` or
 * `webhook-timestamp` is missing, or a timestamp is missing or outside `replayWindow` (401); the
 * signature or token does not verify (401; with a timestamp header the signature covers
 * `<timestamp>.<body>`); the rate limit is spent (429 with Retry-After); the delivery id or the
 * signature was seen within the window (409).
 * Every refusal is logged for audit and starts nothing. An accepted request answers 202 with the
 * pending record of the execution it started, its body as `trigger.payload`.
 */
export function webhookRoutes(options: WebhookRoutesOptions) {
  const clock = options.clock ?? systemClock;
  const proxies: AddressList | undefined =
    options.trustedProxies && options.trustedProxies.length > 0
      ? compileAddressList(options.trustedProxies)
      : undefined;
  const matched = new WeakMap<FastifyRequest, Matched>();
  const reasons = new WeakMap<FastifyRequest, string>();
  const addressOf = (request: FastifyRequest) =>
    clientAddress(request.socket.remoteAddress, request.headers['x-forwarded-for'], proxies);

  const refuse = (request: FastifyRequest, m: Matched, error: WeftError): WeftError => {
    const entry: WebhookAuditEntry = {
      event: 'webhook.refused',
      webhook: m.hook.key,
      workflow: m.hook.workflow.name,
      status: error.httpStatus,
      reason: String(error.details['reason'] ?? error.code),
      client_ip: (m.clientIp ??= addressOf(request)?.toString() ?? null),
      delivery_id: deliveryIdOf(request) ?? null,
      at: new Date(clock.now()).toISOString(),
    };
    request.log.warn(entry, `webhook refused: ${entry.reason}`);
    reasons.set(request, entry.reason);
    options.audit?.(entry);
    return error;
  };

  return async function webhooks(app: FastifyInstance): Promise<void> {
    app.setErrorHandler(sendError);
    const { onOutcome } = options;
    if (onOutcome) {
      app.addHook('onResponse', async (request, reply) => {
        const status = reply.statusCode;
        if (status < 300) onOutcome('accepted', 'none');
        else
          onOutcome(
            'refused',
            reasons.get(request) ?? STATUS_REASONS[status] ?? (status >= 500 ? 'error' : 'other'),
          );
      });
    }
    app.removeAllContentTypeParsers();
    app.addContentTypeParser('*', (request, payload, done) => {
      const m = matched.get(request);
      const limit = m?.hook.maxPayloadSize ?? 0;
      readLimitedBody(payload, limit).then(
        (body) => done(null, body),
        (error: unknown) => {
          done((m && error instanceof WeftError ? refuse(request, m, error) : error) as Error);
        },
      );
    });

    app.route({
      method: [...METHODS],
      url: '/hooks/*',
      schema: { hide: true },
      onRequest: async (request) => {
        const query = request.url.indexOf('?');
        const path = request.url.slice('/hooks'.length, query < 0 ? undefined : query);
        let hook = options.table.find(request.method, path);
        if (!hook && options.refresh && !options.events?.router.has('webhook', path)) {
          await options.refresh();
          hook = options.table.find(request.method, path);
        }
        if (!hook && request.method === 'POST' && options.events?.router.has('webhook', path)) {
          const caller = await options.events.authenticate(request.headers.authorization);
          const { mayStart } = options.events;
          const may = mayStart ? (workflow: string) => mayStart(workflow, caller) : () => true;
          // Only another owner's workflows listen here: the same 404 as a path nobody serves.
          if (options.events.router.has('webhook', path, may)) {
            matched.set(request, { hook: eventHook(path), may });
            return;
          }
        }
        if (!hook && options.table.unavailable(request.method, path) !== undefined) {
          reasons.set(request, 'secret_unavailable');
          throw new UnavailableError(
            `the webhook ${request.method} /hooks${path} is deployed but this server cannot verify its requests: its secret is not set here`,
            {
              backend: 'secrets',
              reason: 'secret_unavailable',
              suggestion:
                "the server's operator must set the webhook's secret on every replica; retry later",
            },
          );
        }
        if (!hook) {
          throw new NotFoundError(`no webhook answers ${request.method} /hooks${path}`, {
            method: request.method,
            path: `/hooks${path}`,
          });
        }
        const m: Matched = { hook };
        matched.set(request, m);
        if (hook.allowlist) {
          const address = addressOf(request);
          m.clientIp = address?.toString() ?? null;
          if (!address || !hook.allowlist.contains(address)) {
            throw refuse(request, m, forbidden(m.clientIp ?? undefined));
          }
        }
        const declared = Number(request.headers['content-length'] ?? 0);
        if (declared > hook.maxPayloadSize) {
          throw refuse(request, m, tooLarge(hook.maxPayloadSize, declared));
        }
      },
      handler: async (request: FastifyRequest, reply: FastifyReply) => {
        const m = matched.get(request)!;
        if (m.hook.key === EVENT_HOOK) {
          const body = Buffer.isBuffer(request.body) ? request.body : Buffer.alloc(0);
          const event = payloadOf(body, request.headers['content-type'], {});
          const started = await options.events!.router.dispatch(
            'webhook',
            m.hook.path,
            event,
            m.may,
          );
          return reply.code(202).send({
            status: 'accepted',
            topic: m.hook.path,
            started: started.map((s) => ({
              workflow: s.workflow,
              execution_id: s.record.execution_id,
              poll_url: s.record.poll_url,
            })),
          });
        }
        try {
          return await accept(request, reply, m);
        } catch (error) {
          if (error instanceof WeftError && error.httpStatus < 500 && error.code !== 'VALIDATION') {
            throw refuse(request, m, error);
          }
          throw error;
        }
      },
    });
  };

  async function accept(request: FastifyRequest, reply: FastifyReply, { hook }: Matched) {
    const body = Buffer.isBuffer(request.body) ? request.body : Buffer.alloc(0);
    const now = clock.now();
    const header = (name: string) => single(request.headers[name]);
    const { usesStandard, digest } = authenticate(hook, header, body, now);
    if (hook.bucket) {
      const token = await options.store.takeToken(`webhook:${hook.key}`, hook.bucket, now);
      if (!token.allowed) throw rateLimited(token.retryAfterMs);
    }
    const payload = payloadOf(
      body,
      request.headers['content-type'],
      request.query as object as Record<string, unknown>,
    );
    const windowed = hook.dedupe || usesStandard;
    // Chosen here, so that the claim notes it in the same write (no write after the start).
    const executionId = timeOrderedId();
    const claim = windowed
      ? await claimDelivery(
          options.store,
          hook.key,
          { deliveryId: deliveryIdOf(request), digest },
          now,
          now + hook.replayWindowMs,
          executionId,
        )
      : undefined;
    let pending;
    try {
      const trace = traceCarrierOf(request.headers);
      pending = await options.start({
        workflow: hook.workflow,
        ...(hook.deployment !== undefined ? { deployment: hook.deployment } : {}),
        inputs: {},
        trigger: { type: 'webhook', payload },
        executionId,
        ...(trace ? { trace } : {}),
      });
    } catch (error) {
      await claim?.release();
      throw error;
    }
    await claim?.attach(pending.execution_id);
    return reply.code(202).header('location', pending.poll_url).send(pending);
  }
}

const EVENT_HOOK = '\u0000event';

/** A pseudo-webhook for event triggers with `source: webhook` (default body limit, no auth block). */
function eventHook(path: string): CompiledWebhook {
  return {
    workflow: { name: '(event)' } as CompiledWebhook['workflow'],
    key: EVENT_HOOK,
    method: 'POST',
    path,
    auth: { type: 'none' },
    allowlist: undefined,
    timestampHeader: undefined,
    replayWindowMs: 0,
    dedupe: false,
    bucket: undefined,
    maxPayloadSize: DEFAULT_MAX_PAYLOAD_SIZE,
    warnings: [],
  };
}

function single(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value[0] : value;
}

function deliveryIdOf(request: FastifyRequest): string | undefined {
  for (const name of DELIVERY_ID_HEADERS) {
    const value = single(request.headers[name])?.trim();
    if (value) return value.slice(0, 256);
  }
  return undefined;
}
