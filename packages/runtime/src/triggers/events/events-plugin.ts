import type { FastifyInstance } from 'fastify';
import { Type } from '@weft/core/typebox';
import {
  EventAccepted,
  ForbiddenError,
  systemClock,
  UnauthorizedError,
  ValidationError,
  type Clock,
  type Principal,
  assertJsonTextDepth,
  errorResponses,
} from '@weft/core';
import { ensureErrorSchema, sendError } from '@weft/http';
import { principalOf, requirePrincipal } from '@weft/identity';
import { silentLogger, type TriggerLogger } from '../logger.js';
import type { Authenticate } from '../start-execution.js';
import type { EventRouter } from './event-router.js';
import {
  cachingCertificateFetcher,
  isSnsUrl,
  parseSnsMessage,
  verifySnsMessage,
} from './sns-signature.js';

/** Options of {@link eventRoutes}. */
export interface EventRoutesOptions {
  router: EventRouter;
  /** Checks the bearer key of `POST /events/{topic}`. */
  authenticate: Authenticate;
  /**
   * Whether a caller's custom event may start `workflow` (the deployments: those of its owner,
   * every one for an admin key). Default: every workflow listening.
   */
  mayStart?: (workflow: string, caller: Principal) => boolean;
  /** Largest event body, bytes. Default 1 MiB. */
  bodyLimit?: number;
  clock?: Clock;
  logger?: TriggerLogger;
  /** SNS: where certificates come from (default: HTTPS, cached) and how a subscription is confirmed. */
  sns?: {
    fetchCertificate?: (url: string) => Promise<string>;
    confirm?: (subscribeUrl: string) => Promise<void>;
    /** Accept certificates from any URL (tests only). */
    trustAnyCertUrl?: boolean;
  };
}

const errors = errorResponses(400, 401, 403, 413);

/**
 * Event entry points over HTTP: `POST /events/{topic}` (a `custom` event, bearer key; the SDK's
 * `weft.emit`) and `POST /sns` (an SNS subscription endpoint: confirms subscriptions to topics a
 * workflow listens to and verifies every message's signature before dispatching it).
 */
export function eventRoutes(options: EventRoutesOptions) {
  const clock = options.clock ?? systemClock;
  const logger = options.logger ?? silentLogger;
  const fetchCertificate = options.sns?.fetchCertificate ?? cachingCertificateFetcher();
  const confirm =
    options.sns?.confirm ??
    (async (url: string) => {
      const response = await fetch(url, { signal: AbortSignal.timeout(5000) });
      if (!response.ok) throw new Error(`SubscribeURL answered ${response.status}`);
    });

  return async function events(app: FastifyInstance): Promise<void> {
    ensureErrorSchema(app);
    app.setErrorHandler(sendError);
    app.removeAllContentTypeParsers();
    app.addContentTypeParser(
      '*',
      { parseAs: 'string', bodyLimit: options.bodyLimit ?? 1024 * 1024 },
      (_r, body, done) => {
        try {
          if (body !== '') assertJsonTextDepth(body as string);
          done(null, body === '' ? {} : JSON.parse(body as string));
        } catch (error) {
          if (error instanceof ValidationError) {
            done(error, undefined);
            return;
          }
          done(
            new ValidationError(`the body is not valid JSON: ${(error as Error).message}`, {
              field: 'body',
              constraint: 'json',
            }),
            undefined,
          );
        }
      },
    );

    app.post<{ Params: { topic: string }; Body: unknown }>(
      '/events/:topic',
      {
        onRequest: requirePrincipal(options.authenticate),
        schema: {
          summary: 'Emit a custom event: starts every workflow with an event trigger on this topic',
          tags: ['triggers'],
          security: [{ bearerAuth: [] }],
          params: Type.Object({ topic: Type.String({ minLength: 1, maxLength: 512 }) }),
          response: { 202: EventAccepted, ...errors },
        },
      },
      async (request, reply) => {
        const { topic } = request.params;
        const caller = principalOf(request);
        const { mayStart } = options;
        const started = await options.router.dispatch(
          'custom',
          topic,
          request.body,
          mayStart ? (workflow) => mayStart(workflow, caller) : undefined,
        );
        return reply.code(202).send({
          status: 'accepted',
          topic,
          started: started.map((s) => ({
            workflow: s.workflow,
            execution_id: s.record.execution_id,
            poll_url: s.record.poll_url,
          })),
        });
      },
    );

    app.post(
      '/sns',
      {
        schema: {
          summary: 'SNS HTTPS subscription endpoint (signed by SNS)',
          tags: ['triggers'],
          response: { 200: Type.Object({ status: Type.String() }), ...errors },
        },
      },
      async (request, reply) => {
        const message = parseSnsMessage(request.body);
        if (!message)
          throw new ValidationError('the body is not an SNS message', {
            field: 'body',
            constraint: 'sns_message',
          });
        const failure = await verifySnsMessage(message, fetchCertificate, clock.now(), {
          trustAnyCertUrl: options.sns?.trustAnyCertUrl ?? false,
        });
        if (failure) {
          logger.warn(
            { event: 'sns.refused', reason: failure, topic_arn: message.TopicArn },
            `sns message refused: ${failure}`,
          );
          throw new UnauthorizedError(`SNS message refused: ${failure.replaceAll('_', ' ')}`, {
            reason: failure,
          });
        }
        const topic = topicOf(options.router, message.TopicArn);
        if (topic === undefined) {
          throw new ForbiddenError(`no workflow listens to the SNS topic ${message.TopicArn}`, {
            reason: 'unknown_topic',
            topic_arn: message.TopicArn,
          });
        }
        if (message.Type === 'SubscriptionConfirmation') {
          if (!options.sns?.trustAnyCertUrl && !isSnsUrl(message.SubscribeURL!)) {
            throw new UnauthorizedError('SNS SubscribeURL is not an SNS address', {
              reason: 'untrusted_subscribe_url',
            });
          }
          await confirm(message.SubscribeURL!);
          logger.info({ topic_arn: message.TopicArn }, 'sns: subscription confirmed');
          return reply.send({ status: 'confirmed' });
        }
        if (message.Type === 'UnsubscribeConfirmation') return reply.send({ status: 'ignored' });
        const event = parseMaybeJson(message.Message);
        await options.router.dispatch('sns', topic, event);
        return reply.send({ status: 'accepted' });
      },
    );
  };
}

/** The topic a workflow subscribed with: the whole ARN, or its last segment (the topic name). */
function topicOf(router: EventRouter, arn: string): string | undefined {
  if (router.has('sns', arn)) return arn;
  const name = arn.split(':').at(-1) ?? '';
  return router.has('sns', name) ? name : undefined;
}

function parseMaybeJson(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return text;
  }
}
