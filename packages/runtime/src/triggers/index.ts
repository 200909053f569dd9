/** Triggers: the StartExecution port, webhooks, schedules and events. */
export type {
  StartExecution,
  StartRequest,
  OwnedStartRequest,
  PendingRecord,
  TriggerInfo,
  Authenticate,
} from './start-execution.js';
export type { TriggerLogger } from './logger.js';
export { verifyHmac, verifyBearer, hmacKey, constantTimeEqual } from './webhook/signature.js';
export type { SignatureForm, AuthFailure, StandardHeaders } from './webhook/signature.js';
export { checkTimestamp, parseTimestamp } from './webhook/timestamp.js';
export { compileAddressList, clientAddress, parseAddress } from './webhook/ip-allowlist.js';
export {
  compileWebhook,
  DEFAULT_MAX_PAYLOAD_SIZE,
  DEFAULT_REPLAY_WINDOW_S,
  DELIVERY_ID_HEADERS,
} from './webhook/compile-webhook.js';
export type { CompiledWebhook } from './webhook/compile-webhook.js';
export { WebhookTable } from './webhook/webhook-table.js';
export { webhookRoutes } from './webhook/webhook-plugin.js';
export type { WebhookRoutesOptions } from './webhook/webhook-plugin.js';
export type { WebhookAuditEntry } from './webhook/refusal.js';
export {
  compileSchedule,
  dueFires,
  nextFireAfter,
  DEFAULT_CATCHUP_LIMITS,
} from './schedule/schedule.js';
export type { CompiledSchedule, CatchupLimits, DueFires } from './schedule/schedule.js';
export { Scheduler } from './schedule/scheduler.js';
export type { SchedulerOptions } from './schedule/scheduler.js';
export { EventRouter } from './events/event-router.js';
export type { EventRouterOptions, EventStart } from './events/event-router.js';
export { eventRoutes } from './events/events-plugin.js';
export type { EventRoutesOptions } from './events/events-plugin.js';
export { matchesFilter, valueAt } from './events/filter.js';
export { SnsEventSource } from './events/sns-source.js';
export { verifySnsMessage, snsStringToSign, isSnsUrl } from './events/sns-signature.js';
