import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { Ajv } from 'ajv';
import {
  DeregistrationResponse,
  ExecuteRequest,
  ExecuteSuccess,
  NotFoundError,
  RegistrationResponse,
  RouterRegistration,
  RoutesResponse,
  toErrorObject,
} from '@weft/core';
import { ensureErrorSchema, sendError, typed } from '@weft/http';
import type { Router } from '../router.js';
import { executeHook, guardHook, tableHook } from './auth.js';
import { CallerGone } from './caller-gone.js';
import { readExecuteBody } from './execute-body.js';
import {
  errorResponses,
  EXECUTE_HEADERS,
  InstanceParams,
  PluginParams,
  routerSecurity,
} from './schemas.js';

/**
 * The router's HTTP routes (docs/router.md#endpoints, docs/design.md#router) as a Fastify plugin: `POST /register`,
 * `DELETE /register/{plugin_slug}/{instance_id}`, `GET /routes`, and the connector contract
 * `POST /execute` and `POST /{plugin_slug}/execute`.
 */
export function routerRoutes(router: Router) {
  const { options } = router;
  return async function routes(app: FastifyInstance): Promise<void> {
    ensureErrorSchema(app);
    app.setErrorHandler(sendError);
    // Strict types: a number is not a region, whatever the host app's coercion settings.
    const ajv = new Ajv({
      coerceTypes: false,
      removeAdditional: false,
      allErrors: false,
      strict: false,
    });
    app.setValidatorCompiler(({ schema }) => ajv.compile(schema));
    const admin = guardHook({ token: options.token, clientCert: options.requireClientCert });
    // The table: as registration, except that with a token (and no mutual TLS) an admin key of
    // the server reads it too (the console's Routes page).
    const table =
      options.token !== undefined && !options.requireClientCert
        ? tableHook({ token: options.token, authenticate: options.authenticate })
        : admin;
    // A client certificate is the caller's credential; without mutual TLS a bearer credential
    // is, unless the operator opened execute for a private network (then no hook runs at all).
    const caller = options.requireClientCert
      ? { onRequest: guardHook({ token: undefined, clientCert: true }) }
      : options.openExecute
        ? {}
        : { onRequest: executeHook({ token: options.token, authenticate: options.authenticate }) };
    const bodyLimit = options.bodyLimit;
    // Routes typed by their schemas; the connector contract below takes its body as bytes.
    const api = typed(app);

    api.post(
      '/register',
      {
        onRequest: admin,
        bodyLimit,
        schema: {
          summary: 'Register a connector service instance (docs/router.md#endpoints)',
          tags: ['router'],
          security: routerSecurity,
          body: RouterRegistration,
          response: {
            200: RegistrationResponse,
            201: RegistrationResponse,
            ...errorResponses(400, 401, 413),
          },
        },
      },
      async (request, reply) => {
        const { created, answer } = await router.register(request.body);
        return reply.code(created ? 201 : 200).send(answer);
      },
    );

    api.delete(
      '/register/:plugin_slug/:instance_id',
      {
        onRequest: admin,
        schema: {
          summary: 'Remove an instance from the routing table (docs/router.md#endpoints)',
          tags: ['router'],
          security: routerSecurity,
          params: InstanceParams,
          response: { 200: DeregistrationResponse, ...errorResponses(400, 401, 404) },
        },
      },
      async (request) => {
        const { plugin_slug, instance_id } = request.params;
        const answer = await router.deregister(plugin_slug, instance_id);
        if (!answer) {
          throw new NotFoundError(
            `no instance "${instance_id}" of plugin "${plugin_slug}" is registered`,
            {
              plugin_slug,
              instance_id,
            },
          );
        }
        return answer;
      },
    );

    api.get(
      '/routes',
      {
        onRequest: table,
        schema: {
          summary: 'The routing table, with health and calls in flight',
          tags: ['router'],
          security: routerSecurity,
          response: { 200: RoutesResponse, ...errorResponses(401, 403) },
        },
      },
      async () => router.routes(),
    );

    // The connector contract in its own context: the body is taken as bytes (no framework
    // parse, schema pass or re-encoding), checked by readExecuteBody and sent on as received.
    await app.register(async (calls) => {
      calls.removeContentTypeParser('application/json');
      calls.addContentTypeParser(
        'application/json',
        { parseAs: 'buffer', bodyLimit },
        (_request, body, done) => done(null, body),
      );
      // The body schema documents the request (OpenAPI); readExecuteBody enforces it.
      calls.setValidatorCompiler(({ schema, httpPart }) =>
        httpPart === 'body' ? acceptAll : ajv.compile(schema),
      );
      const execute = {
        ...caller,
        bodyLimit,
        schema: {
          tags: ['router'],
          security: routerSecurity,
          description: EXECUTE_HEADERS,
          body: ExecuteRequest,
          response: { 200: ExecuteSuccess, ...errorResponses(400, 401, 409, 413, 502, 503, 504) },
        },
      };
      const run = async (request: FastifyRequest, reply: FastifyReply, pathSlug?: string) => {
        const call = readExecuteBody(request.body, pathSlug);
        const lines =
          request.headers['x-weft-progress'] === 'ndjson' ? new ProgressReply(reply) : undefined;
        let answer;
        try {
          answer = await router.dispatcher.send(
            call.plugin,
            call.name,
            call.body,
            request.headers,
            headerOf(request.headers['x-weft-timeout-ms']),
            new CallerGone(reply.raw),
            lines?.report,
          );
        } catch (error) {
          if (!lines?.started) throw error;
          return lines.end(JSON.stringify(toErrorObject(error)));
        }
        if (lines?.started) return lines.end(answer.body);
        if (answer.instanceId !== undefined) reply.header('x-weft-instance-id', answer.instanceId);
        return reply.code(answer.statusCode).type('application/json').send(answer.body);
      };

      calls.post(
        '/execute',
        {
          ...execute,
          schema: {
            ...execute.schema,
            summary: 'Run an action on a healthy instance (docs/protocol.md#action-calls)',
          },
        },
        (request, reply) => run(request, reply),
      );

      calls.post<{ Params: PluginParams }>(
        '/:plugin_slug/execute',
        {
          ...execute,
          schema: {
            ...execute.schema,
            summary: 'Run an action of one plugin; action is <action> or <plugin_slug>.<action>',
            params: PluginParams,
          },
        },
        (request, reply) => run(request, reply, request.params.plugin_slug),
      );
    });
  };
}

/**
 * The answer of a call whose caller asked for progress (`x-weft-progress: ndjson`,
 * docs/protocol.md#action-calls): from the instance's first report on, `200`
 * `application/x-ndjson` with a `{"progress": …}` line per report and the answer (or the error
 * object) as the last line; without a report, the answer as usual.
 */
class ProgressReply {
  started = false;

  constructor(private readonly reply: FastifyReply) {}

  readonly report = (progress: { percent: number; message?: string }): void => {
    const raw = this.reply.raw;
    if (raw.writableEnded || raw.destroyed) return;
    if (!this.started) {
      this.started = true;
      this.reply.hijack();
      raw.writeHead(200, { 'content-type': 'application/x-ndjson', 'cache-control': 'no-store' });
    }
    raw.write(`${JSON.stringify({ progress })}\n`);
  };

  end(body: string | Buffer): FastifyReply {
    const raw = this.reply.raw;
    if (!raw.destroyed) raw.end(`${body.toString().trimEnd()}\n`);
    return this.reply;
  }
}

/** The body's validator: {@link readExecuteBody} checks it in the handler. */
const acceptAll = () => true;

function headerOf(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value[0] : value;
}
