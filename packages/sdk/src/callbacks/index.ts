/**
 * `@weft/sdk/callbacks`: how completion callbacks are signed and retried (docs/runtime.md#callbacks),
 * one implementation shared by the server (@weft/runtime) and the SDK's local asynchronous runs.
 * Node only (`node:crypto`): not in @weft/core, which the browser client bundles.
 */
export { generateSigningSecret, signWebhook } from './sign.js';
export { postCallback, type CallbackPost } from './post.js';
export {
  callbackHeaders,
  deliverCallback,
  DEFAULT_CALLBACK_POLICY,
  retryableCallbackStatus,
  type CallbackDelivery,
  type CallbackOutcome,
  type CallbackRetryPolicy,
} from './delivery.js';
