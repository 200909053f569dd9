import type { ExecutionRecord } from '@weft/core';
import {
  approveExecution,
  listApprovals,
  rejectExecution,
  type DecisionOptions,
  type ListApprovalsOptions,
} from '../http-client/approvals.js';
import { streamExecution, type ExecutionEvent } from '../http-client/event-stream.js';
import {
  cancelExecution,
  checkId,
  getExecution,
  waitForExecution,
  type ExecutionPage,
  type WaitOptions,
} from '../http-client/executions.js';
import type { HttpApi } from '../http-client/http-api.js';
import { streamOverWebSocket, type ServerStreamOptions } from './websocket-stream.js';

/**
 * What the Node {@link Weft} client does with executions that are on the server already,
 * whatever started them: follow (wait, get, stream), cancel, and approve or reject the ones
 * that wait for approval. The requests are the browser client's (`@weft/sdk/client`); the
 * server is the one of `cloudUrl` and `apiKey`.
 */
export abstract class ServerExecutions {
  /** The server client; throws `VALIDATION` (naming `purpose`) without a key or URL. */
  protected abstract cloudApi(purpose: string): HttpApi;

  /** Polls an execution on the server until it ends; gives the ended record (docs/runtime.md#execution-record). */
  async wait(executionId: string, options: WaitOptions = {}): Promise<ExecutionRecord> {
    checkId(executionId);
    return waitForExecution(this.cloudApi('wait'), executionId, options);
  }

  /** The record of an execution on the server as it is now. */
  async getExecution(executionId: string): Promise<ExecutionRecord> {
    return getExecution(this.cloudApi('getExecution'), executionId);
  }

  /**
   * The events (docs/protocol.md#stream-events) of an execution on the server, as they happen,
   * over server-sent events or a WebSocket: `options.protocol`, by default the workflow's
   * `execution.streaming.protocol` (read from the execution's record). A dropped connection
   * resumes after the last event received. Ends when the execution has ended.
   */
  async *stream(
    executionId: string,
    options: ServerStreamOptions = {},
  ): AsyncGenerator<ExecutionEvent> {
    checkId(executionId);
    const api = this.cloudApi('stream');
    const { protocol: given, ...rest } = options;
    const protocol =
      given ?? (await getExecution(api, executionId)).stream_protocol ?? ('sse' as const);
    yield* protocol === 'websocket'
      ? streamOverWebSocket(api, executionId, rest)
      : streamExecution(api, executionId, rest);
  }

  /** Cancels an execution on the server; gives the canceled record (`CONFLICT` once ended). */
  async cancel(executionId: string): Promise<ExecutionRecord> {
    return cancelExecution(this.cloudApi('cancel'), executionId);
  }

  /**
   * One page of the executions on the server that wait for an approval this key may give
   * (`GET /approvals`), newest first; follow `next_cursor` for the next.
   */
  async listApprovals(options: ListApprovalsOptions = {}): Promise<ExecutionPage> {
    return listApprovals(this.cloudApi('listApprovals'), options);
  }

  /**
   * Approves an execution that waits for approval on the server: its record, `pending` as it
   * runs on. `FORBIDDEN` without an approver role or for one's own run, `CONFLICT` once decided.
   */
  async approveExecution(
    executionId: string,
    options: DecisionOptions = {},
  ): Promise<ExecutionRecord> {
    return approveExecution(this.cloudApi('approveExecution'), executionId, options);
  }

  /** Rejects an execution that waits for approval on the server: its record, ended `canceled`. */
  async rejectExecution(
    executionId: string,
    options: DecisionOptions = {},
  ): Promise<ExecutionRecord> {
    return rejectExecution(this.cloudApi('rejectExecution'), executionId, options);
  }
}
