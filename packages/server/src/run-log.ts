import type { StoredExecution } from '@weft/core';
import type { RunLog } from '@weft/runtime';

/** The logger calls of {@link executionLog} (pino's, or Fastify's `app.log`). */
export interface RunLogger {
  info(fields: object, message: string): void;
  warn(fields: object, message: string): void;
}

/**
 * One log line when a run starts here and one when it ends, with the execution id, workflow,
 * status and (at the end) the duration, and a traced run's `trace_id` and `span_id`. A run that
 * ends other than `completed` is logged at warn.
 */
export function executionLog(logger: RunLogger): RunLog {
  return {
    started: (execution, resumed, trace) => {
      logger.info(
        {
          ...fieldsOf(execution),
          ...trace,
          status: 'running',
          trigger: execution.trigger.type,
          ...(resumed ? { resumed: true } : {}),
        },
        `execution ${execution.id} of ${execution.workflow} ${resumed ? 'resumed' : 'started'}`,
      );
    },
    ended: (execution, durationMs, trace) => {
      const fields = {
        ...fieldsOf(execution),
        ...trace,
        status: execution.status,
        duration_ms: durationMs,
        ...(execution.error ? { error_code: execution.error.code } : {}),
      };
      const message = `execution ${execution.id} of ${execution.workflow} ${execution.status} in ${durationMs} ms`;
      if (execution.status === 'completed') logger.info(fields, message);
      else logger.warn(fields, message);
    },
  };
}

function fieldsOf(execution: StoredExecution) {
  return {
    execution_id: execution.id,
    workflow: execution.workflow,
    workflow_version: execution.workflow_version,
    owner: execution.owner,
  };
}
