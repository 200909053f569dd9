import type { FastifyInstance, FastifyReply, FastifyRequest, RouteOptions } from 'fastify';
import type { WebSocket } from 'ws';
import { Type } from '@weft/core/typebox';
import { ValidationError, WeftError, type EventRow } from '@weft/core';
import { followEvents } from '../executions/stream.js';
import type { Runtime } from '../runtime.js';
import { principalOf, requirePrincipal } from '@weft/identity';
import { ERROR_RESPONSES, ExecutionParams } from './schemas.js';

/** Seconds between SSE keep-alive comments. */
const HEARTBEAT_MS = 15_000;

const EventsQuery = Type.Object(
  {
    last_event_id: Type.Optional(
      Type.String({ description: 'Resume after this event id (as the Last-Event-ID header)' }),
    ),
    follow: Type.Optional(
      Type.Boolean({
        description:
          'false: send the events stored so far and close, even while the execution runs (default true)',
      }),
    ),
  },
  { additionalProperties: false },
);

/**
 * `GET /workflows/executions/{id}/events`: the events (docs/protocol.md#stream-events) as server-sent events (`id:` is the
 * event's sequence number, `event:` its type; `Last-Event-ID` resumes), or as WebSocket messages
 * (the event with its `id`) on upgrade of the same path. Finished executions replay and close;
 * `?follow=false` closes after the events stored so far.
 */
export function registerEventRoutes(app: FastifyInstance, runtime: Runtime): void {
  const route: RouteOptions & {
    wsHandler: (socket: WebSocket, request: FastifyRequest) => void;
  } = {
    method: 'GET',
    url: '/workflows/executions/:id/events',
    onRequest: requirePrincipal(runtime.options.authenticate),
    schema: {
      tags: ['executions'],
      security: [{ bearerAuth: [] }],
      summary: 'Stream the events of an execution (SSE, or WebSocket on upgrade)',
      params: ExecutionParams,
      querystring: EventsQuery,
      headers: Type.Object({ 'last-event-id': Type.Optional(Type.String()) }),
      response: {
        200: Type.String({ description: 'text/event-stream' }),
        ...ERROR_RESPONSES,
      },
    },
    handler: async (request, reply) => {
      const { id, after, follow } = await target(runtime, request);
      serveSse(runtime, id, after, follow, request, reply);
    },
    // @fastify/websocket (registered by the runtime plugin) serves upgrades of this route here.
    wsHandler: (socket: WebSocket, request: FastifyRequest) => {
      void serveWebSocket(runtime, socket, request);
    },
  };
  app.route(route);
}

async function target(
  runtime: Runtime,
  request: FastifyRequest,
): Promise<{ id: string; after: number; follow: boolean }> {
  const { id } = request.params as { id: string };
  const principal = principalOf(request);
  // Read like `GET /workflows/executions/{id}`: the caller's owner's, or any for an admin key.
  await runtime.get(id, principal.admin ? undefined : principal.owner);
  const query = request.query as { last_event_id?: string; follow?: boolean | string };
  const follow = query.follow !== false && query.follow !== 'false';
  const header = request.headers['last-event-id'];
  const given = (Array.isArray(header) ? header[0] : header) ?? query.last_event_id;
  if (given === undefined || given.trim() === '') return { id, after: 0, follow };
  if (!/^\d{1,15}$/.test(given.trim())) {
    throw new ValidationError('Last-Event-ID must be an event id this stream sent', {
      field: 'last-event-id',
      constraint: 'format',
    });
  }
  return { id, after: Number(given.trim()), follow };
}

function serveSse(
  runtime: Runtime,
  id: string,
  after: number,
  follow: boolean,
  request: FastifyRequest,
  reply: FastifyReply,
): void {
  reply.hijack();
  const raw = reply.raw;
  raw.writeHead(200, {
    'content-type': 'text/event-stream; charset=utf-8',
    'cache-control': 'no-cache, no-transform',
    connection: 'keep-alive',
    'x-accel-buffering': 'no',
  });
  raw.write(': weft execution events\nretry: 1000\n\n');
  const closed = new AbortController();
  raw.on('close', () => closed.abort());
  const heartbeat = setInterval(() => raw.write(': keep-alive\n\n'), HEARTBEAT_MS);
  const send = (row: EventRow): void | Promise<void> => {
    if (raw.write(`id: ${row.seq}\nevent: ${row.type}\ndata: ${row.json}\n\n`)) return;
    return new Promise((resolve) => {
      const done = () => {
        raw.off('drain', done);
        closed.signal.removeEventListener('abort', done);
        resolve();
      };
      raw.once('drain', done);
      closed.signal.addEventListener('abort', done, { once: true });
    });
  };
  followEvents(runtime, id, after, send, closed.signal, follow)
    .catch((error: unknown) => request.log.error({ err: error }, 'event stream failed'))
    .finally(() => {
      clearInterval(heartbeat);
      raw.end();
    });
}

async function serveWebSocket(
  runtime: Runtime,
  socket: WebSocket,
  request: FastifyRequest,
): Promise<void> {
  const closed = new AbortController();
  socket.on('close', () => closed.abort());
  try {
    const { id, after, follow } = await target(runtime, request);
    await followEvents(
      runtime,
      id,
      after,
      (row) =>
        new Promise<void>((resolve) => {
          const message = `{"id":"${row.seq}",${row.json.slice(1)}`;
          socket.send(message, () => resolve());
        }),
      closed.signal,
      follow,
    );
    socket.close(1000, follow ? 'execution ended' : 'events sent');
  } catch (error) {
    // Close codes 4000 + the HTTP status of the error: 4404 for an unknown execution.
    const code = error instanceof WeftError ? 4000 + error.httpStatus : 1011;
    if (code === 1011) request.log.error({ err: error }, 'event socket failed');
    socket.close(code, error instanceof Error ? error.message.slice(0, 120) : 'error');
  }
}
