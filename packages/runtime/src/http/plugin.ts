import type { FastifyInstance, FastifyPluginAsync } from 'fastify';
import {
  AuditEntry,
  AuditPage,
  AuditVerification,
  DamagedAuditEntry,
  ExecutionPage,
  ExecutionRecord,
  ExecutionStatsSchema,
} from '@weft/core';
import { ensureErrorSchema, installDepthCheckedJson, sendError } from '@weft/http';
import type { Runtime } from '../runtime.js';
import { registerAccountRoutes } from './routes-account.js';
import { registerApprovalRoutes } from './routes-approvals.js';
import { registerAuditRoutes } from './routes-audit.js';
import { registerActionRoutes } from './routes-actions.js';
import { registerEventRoutes } from './routes-events.js';
import { registerExecutionRoutes } from './routes-executions.js';
import { registerRerunRoute } from './routes-rerun.js';
import { registerDefinitionRoute } from './routes-definition.js';
import { registerStatsRoutes } from './routes-stats.js';

/**
 * The runtime's HTTP routes as a Fastify plugin: the executions API (docs/design.md#executions), its event
 * stream (SSE and WebSocket), `POST /actions/execute`, `GET /usage`, the callback signing
 * secret and the audit log (`GET /audit`, `GET /audit/verify`). Adds the schemas it refers to when missing, and registers @fastify/websocket on the root instance when nobody did.
 */
export function runtimeRoutes(runtime: Runtime) {
  return async function runtimePlugin(app: FastifyInstance): Promise<void> {
    if (!app.hasDecorator('websocketServer')) await app.register(await loadWebsocket());
    ensureErrorSchema(app);
    if (!app.getSchema('ExecutionRecord')) app.addSchema(ExecutionRecord);
    if (!app.getSchema('ExecutionPage')) app.addSchema({ $id: 'ExecutionPage', ...ExecutionPage });
    if (!app.getSchema('ExecutionStats')) app.addSchema(ExecutionStatsSchema);
    if (!app.getSchema('AuditEntry')) app.addSchema(AuditEntry);
    if (!app.getSchema('DamagedAuditEntry')) app.addSchema(DamagedAuditEntry);
    if (!app.getSchema('AuditPage')) app.addSchema(AuditPage);
    if (!app.getSchema('AuditVerification')) app.addSchema(AuditVerification);
    app.setErrorHandler(sendError);
    installDepthCheckedJson(app);
    registerExecutionRoutes(app, runtime);
    registerRerunRoute(app, runtime);
    registerDefinitionRoute(app, runtime);
    registerApprovalRoutes(app, runtime);
    registerEventRoutes(app, runtime);
    registerActionRoutes(app, runtime);
    registerAccountRoutes(app, runtime);
    registerAuditRoutes(app, runtime);
    registerStatsRoutes(app, runtime);
  };
}

/**
 * @fastify/websocket, imported by a computed name: a static import would bring its type
 * augmentation of Fastify's route methods into the whole package, where it breaks the typing of
 * plain routes' handlers.
 */
async function loadWebsocket(): Promise<FastifyPluginAsync> {
  const name = '@fastify/websocket';
  const module = (await import(name)) as { default: FastifyPluginAsync };
  return module.default;
}
