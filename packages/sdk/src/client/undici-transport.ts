import {
  TransportError,
  UNREACHABLE_CODES,
  type HttpTransport,
  type TransportRequest,
  type TransportResponse,
} from '../http-client/transport.js';
import { LazyAgent, loadUndici } from './lazy-undici.js';

/**
 * The Node SDK's transport: undici's `request` over one keep-alive agent (cheaper per call than
 * `fetch`, which matters to the per-action calls of `hybrid` mode). undici is imported at the first
 * call.
 */
export class UndiciTransport implements HttpTransport {
  private readonly agent = new LazyAgent({ keepAliveTimeout: 30_000 });

  async send(call: TransportRequest): Promise<TransportResponse> {
    try {
      const { request } = await loadUndici();
      const response = await request(call.url, {
        method: call.method,
        dispatcher: await this.agent.get(),
        headers: call.headers,
        ...(call.body !== undefined ? { body: call.body } : {}),
        ...(call.signal ? { signal: call.signal } : {}),
      });
      return {
        status: response.statusCode,
        headers: response.headers,
        body: response.body as AsyncIterable<Uint8Array>,
      };
    } catch (error) {
      if (call.signal?.aborted) throw error;
      const code = (error as { code?: unknown }).code;
      const known = typeof code === 'string' ? code : '';
      throw new TransportError(
        error instanceof Error ? error.message : String(error),
        known,
        UNREACHABLE_CODES.has(known),
        { cause: error },
      );
    }
  }

  async close(): Promise<void> {
    await this.agent.close();
  }
}
