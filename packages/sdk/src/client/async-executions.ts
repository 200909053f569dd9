import type { ExecutionRecord } from '@weft/core';
import type { WorkflowDefinition } from '@weft/engine';
import type { ExecutionEvent } from '../http-client/event-stream.js';
import type { ServerStreamOptions } from './websocket-stream.js';
import { checkId, type WaitOptions } from '../http-client/executions.js';
import type { ExecuteAsyncOptions } from './execute-options.js';
import { LocalExecutions, type RunHere } from './local-executions.js';
import { ServerExecutions } from './server-executions.js';

/**
 * {@link ServerExecutions} with the asynchronous runs of this process: in `local`,
 * `self_hosted` and `hybrid` mode `executeAsync` runs here (docs/runtime.md#asynchronous-runs-without-a-server),
 * and `getExecution`, `wait`, `stream` and `cancel` answer for those runs from this process's
 * table; any other id goes to the server, as before.
 */
export abstract class AsyncExecutions extends ServerExecutions {
  private localRuns: LocalExecutions | undefined;

  /** Runs a workflow here as `execute` does. */
  protected abstract runHere: RunHere;
  /** The client's execution mode and its `callbackSecret` (option, else `WEFT_CALLBACK_SECRET`). */
  protected abstract localSettings(): { mode: string; callbackSecret: string | undefined };

  /**
   * The secret the callbacks of this process's asynchronous runs are signed with (Standard
   * Webhooks, as the server signs): `callbackSecret`, else `WEFT_CALLBACK_SECRET`, else one
   * made for this client (`whsec_…`). A receiver verifies the `webhook-signature` with it.
   */
  callbackSecret(): string {
    return this.localExecutions().callbackSecret;
  }

  /** Starts a run here and gives its pending record at once. */
  protected startHere(
    workflow: WorkflowDefinition,
    inputs: Record<string, unknown>,
    options: ExecuteAsyncOptions,
  ): ExecutionRecord {
    return this.localExecutions().start(workflow, inputs, options);
  }

  override async wait(executionId: string, options: WaitOptions = {}): Promise<ExecutionRecord> {
    checkId(executionId);
    if (this.localRuns?.has(executionId)) return this.localRuns.wait(executionId, options);
    return super.wait(executionId, options);
  }

  override async getExecution(executionId: string): Promise<ExecutionRecord> {
    if (this.localRuns?.has(executionId)) return this.localRuns.get(executionId);
    return super.getExecution(executionId);
  }

  /** A run of this process streams from its backlog (`protocol` does not apply to it). */
  override stream(
    executionId: string,
    options: ServerStreamOptions = {},
  ): AsyncGenerator<ExecutionEvent> {
    if (this.localRuns?.has(executionId)) return this.localRuns.stream(executionId, options);
    return super.stream(executionId, options);
  }

  override async cancel(executionId: string): Promise<ExecutionRecord> {
    if (this.localRuns?.has(executionId)) return this.localRuns.cancel(executionId);
    return super.cancel(executionId);
  }

  /**
   * Cancels the asynchronous runs of this process still going, waits for them to end and for
   * their callbacks (sent with status `canceled`) to be delivered or fail for good.
   */
  protected async closeLocalRuns(): Promise<void> {
    await this.localRuns?.close();
  }

  private localExecutions(): LocalExecutions {
    if (!this.localRuns) {
      const { mode, callbackSecret } = this.localSettings();
      this.localRuns = new LocalExecutions(this.runHere, mode, callbackSecret);
    }
    return this.localRuns;
  }
}
