import {
  BackendError,
  targetPlugin,
  type ActionCall,
  type ActionInvoker,
  type InvocationResult,
} from '@weft/core';
import type { HttpApi } from '../http-client/http-api.js';
import { abortError } from '../kinds/errors.js';

/**
 * Runs single actions on the server (the cloud steps of `hybrid` mode, docs/protocol.md#execution-modes):
 * `POST {cloudUrl}/actions/execute {plugin, version?, action, input, runtime?}` with the bearer key and
 * `Idempotency-Key: <execution_id>/<step path>`. The server runs it through its router or a
 * published plugin's `http` actions; its errors (docs/protocol.md#error-object) come back as the error of that code.
 */
export class CloudInvoker implements ActionInvoker {
  constructor(private readonly api: HttpApi) {}

  async invoke(call: ActionCall): Promise<InvocationResult> {
    const { slug: plugin, version } = targetPlugin(call.target);
    const { context } = call;
    if (context.aborted) throw abortError(context.signal);
    const headers: Record<string, string> = {};
    if (context.idempotencyKey !== '') headers['idempotency-key'] = context.idempotencyKey;
    const answer = await this.api.call('POST', '/actions/execute', {
      body: {
        plugin,
        ...(version !== undefined ? { version } : {}),
        action: call.action,
        input: call.input,
        ...(call.runtime ? { runtime: call.runtime } : {}),
      },
      headers,
      signal: context.signal,
    });
    const body = answer.json as { status?: unknown; data?: unknown } | undefined;
    if (body?.status !== 'success') {
      throw new BackendError(
        `${plugin}.${call.action}: the server answered ${answer.status} without status "success"`,
        { backend: 'cloud', original_error: `HTTP ${answer.status}` },
      );
    }
    return { output: body.data ?? {} };
  }
}
