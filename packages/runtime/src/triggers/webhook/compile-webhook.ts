import {
  ValidationError,
  type BucketSpec,
  type SecretsProvider,
  type WebhookTrigger,
} from '@weft/core';
import type { WorkflowDefinition } from '@weft/engine';
import { compileAddressList, type AddressList } from './ip-allowlist.js';
import { hmacKey } from './signature.js';

/** Default replay window: 300 s (docs/triggers.md), the 5 minutes Stripe and Standard Webhooks use. */
export const DEFAULT_REPLAY_WINDOW_S = 300;
/** Default largest webhook body when `maxPayloadSize` is not set: 1 MiB. */
export const DEFAULT_MAX_PAYLOAD_SIZE = 1024 * 1024;
/** Headers whose value identifies one delivery, checked in this order. */
export const DELIVERY_ID_HEADERS = ['webhook-id', 'x-github-delivery', 'x-delivery-id'] as const;

/** Below this many bytes a webhook secret deploys with a warning (HMAC-SHA256 wants 32). */
export const MIN_SECRET_BYTES = 16;

/** How a webhook authenticates its callers. */
export type CompiledAuth =
  | {
      type: 'hmac';
      header: string;
      key: Buffer;
      /** A `whsec_` secret: only the Standard Webhooks form, with its id and timestamp headers. */
      standard: boolean;
    }
  | { type: 'bearer'; token: Buffer }
  | { type: 'none' };

/** A webhook trigger ready to serve: secrets resolved, lists parsed, limits filled in. */
export interface CompiledWebhook {
  workflow: WorkflowDefinition;
  /**
   * The key (`owner/name`) of the deployment serving it, set by `WebhookTable.replace`:
   * webhook paths are one namespace across owners, the deployments serving them are not.
   */
  deployment?: string;
  /** `POST /github`: the route within `/hooks`, also the scope of its replay and rate state. */
  key: string;
  method: string;
  /** The path as configured (without `/hooks`). */
  path: string;
  auth: CompiledAuth;
  allowlist: AddressList | undefined;
  /** Lower-case header name, when requests must carry a fresh timestamp. */
  timestampHeader: string | undefined;
  /** Replay window in ms; deliveries are deduplicated when replay protection is configured. */
  replayWindowMs: number;
  dedupe: boolean;
  bucket: BucketSpec | undefined;
  maxPayloadSize: number;
  /** Deployment warnings of this trigger (a short secret), each naming the trigger's field. */
  warnings: string[];
}

/** Settings that apply to every webhook. */
export interface WebhookDefaults {
  secrets: SecretsProvider;
  /** Largest body of webhooks that set no `maxPayloadSize`. Default 1 MiB. */
  maxPayloadSize?: number;
}

/**
 * Compiles the webhook trigger at `triggers[index]` of a workflow. A secret that is missing,
 * empty or only whitespace, or an allowlist entry that is not an address, is a deployment error
 * (`VALIDATION` naming the field): a webhook never verifies with an empty or guessable key. A
 * secret under {@link MIN_SECRET_BYTES} bytes deploys with a warning.
 */
export async function compileWebhook(
  workflow: WorkflowDefinition,
  trigger: WebhookTrigger,
  index: number,
  defaults: WebhookDefaults,
): Promise<CompiledWebhook> {
  const at = `triggers[${index}]`;
  const method = trigger.method ?? 'POST';
  const security = trigger.security ?? {};
  let allowlist: AddressList | undefined;
  if (security.ipAllowlist !== undefined) {
    try {
      allowlist = compileAddressList(security.ipAllowlist);
    } catch (error) {
      throw new ValidationError((error as Error).message, {
        field: `${at}.security.ipAllowlist`,
        constraint: 'cidr',
      });
    }
  }
  const replay = security.replayWindow !== undefined || security.timestampHeader !== undefined;
  const rpm = security.rateLimit?.rpm;
  const auth = await compileAuth(trigger, at, defaults.secrets);
  const warnings: string[] = [];
  const secretBytes =
    auth.type === 'hmac' ? auth.key.length : auth.type === 'bearer' ? auth.token.length : 0;
  if (auth.type !== 'none' && secretBytes < MIN_SECRET_BYTES) {
    warnings.push(
      `${at}.auth.secret_name: the secret "${trigger.auth!.secret_name}" of the webhook ${trigger.path} is ${secretBytes} byte${secretBytes === 1 ? '' : 's'}${auth.type === 'hmac' && auth.standard ? ' (decoded)' : ''}, under ${MIN_SECRET_BYTES}: a short secret can be guessed offline from one signed request; use 32 random bytes (openssl rand -hex 32)`,
    );
  }
  return {
    workflow,
    key: `${method} ${trigger.path}`,
    method,
    path: trigger.path,
    auth,
    allowlist,
    timestampHeader: security.timestampHeader?.toLowerCase(),
    replayWindowMs: (security.replayWindow ?? DEFAULT_REPLAY_WINDOW_S) * 1000,
    dedupe: replay,
    bucket:
      rpm === undefined
        ? undefined
        : { capacity: 1 + (security.rateLimit?.burst ?? 0), refillPerMs: rpm / 60_000 },
    maxPayloadSize: security.maxPayloadSize ?? defaults.maxPayloadSize ?? DEFAULT_MAX_PAYLOAD_SIZE,
    warnings,
  };
}

async function compileAuth(
  trigger: WebhookTrigger,
  at: string,
  secrets: SecretsProvider,
): Promise<CompiledAuth> {
  const auth = trigger.auth;
  if (!auth) return { type: 'none' };
  const secret = await secrets.get(auth.secret_name);
  if (secret === undefined || secret.trim() === '') {
    const state =
      secret === undefined ? 'not set' : secret === '' ? 'empty' : 'blank (only whitespace)';
    throw new ValidationError(
      `the secret "${auth.secret_name}" of the webhook ${trigger.path} is ${state}: the weft server reads it, not the shell that deploys: set it in the server's secrets provider (by default the server process's environment variable ${auth.secret_name}, or WEFT_SECRET_${auth.secret_name}), restart the server, then deploy again`,
      { field: `${at}.auth.secret_name`, constraint: 'secret_exists', secret: auth.secret_name },
    );
  }
  if (auth.type === 'bearer') return { type: 'bearer', token: Buffer.from(secret, 'utf8') };
  if (auth.header === undefined) {
    throw new ValidationError('hmac-sha256 needs "header": the header that carries the signature', {
      field: `${at}.auth.header`,
      constraint: 'required',
    });
  }
  let key: Buffer;
  try {
    key = hmacKey(secret);
  } catch {
    throw new ValidationError(
      `the secret "${auth.secret_name}" of the webhook ${trigger.path} decodes to an empty key (a whsec_ secret needs base64 after the prefix)`,
      { field: `${at}.auth.secret_name`, constraint: 'secret_exists', secret: auth.secret_name },
    );
  }
  return {
    type: 'hmac',
    header: auth.header.toLowerCase(),
    key,
    standard: secret.startsWith('whsec_'),
  };
}
