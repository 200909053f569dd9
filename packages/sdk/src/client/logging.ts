import { createRequire } from 'node:module';
import type { StreamEvent } from '@weft/core';
import { pino, type DestinationStream, type Logger } from 'pino';
import type PinoPretty from 'pino-pretty';
import { traceFields } from '@weft/telemetry';
import type { LogLevel } from './options.js';

/**
 * A pino logger writing JSON lines, or readable text with `format: 'text'`. With `traced`,
 * lines written inside a traced run carry its `trace_id` and `span_id`.
 */
export function createLogger(
  level: LogLevel,
  format: 'json' | 'text',
  destination: NodeJS.WritableStream,
  traced = false,
): Logger {
  const base = { level, base: { service: 'weft' }, ...(traced ? { mixin: traceFields } : {}) };
  if (format === 'text') return pino(base, prettyWhenWritten(destination));
  return pino(base, destination);
}

/**
 * A stream that formats lines as readable text, loading pino-pretty when the first line is
 * written: most runs log nothing at their level, and pino-pretty is slow to load.
 */
function prettyWhenWritten(destination: NodeJS.WritableStream): DestinationStream {
  let pretty: DestinationStream | undefined;
  return {
    write(line: string) {
      // pino-pretty is CommonJS: required synchronously, so no line is reordered or lost.
      pretty ??= (createRequire(import.meta.url)('pino-pretty') as typeof PinoPretty)({
        destination,
        colorize: false,
        sync: true,
        ignore: 'pid,hostname,service',
      });
      pretty.write(line);
    },
  };
}

/**
 * One log line per step start and end, with timing (secret values are already masked in
 * events), and one per workflow end.
 */
export function logEvent(logger: Logger, workflow: string, event: StreamEvent): void {
  const fields = { workflow, execution_id: event.workflow_id, step: event.step_name };
  switch (event.type) {
    case 'step.started':
      logger.debug(fields, `step ${event.step_name} started`);
      return;
    case 'step.progress':
      logger.debug({ ...fields, ...event.data }, `step ${event.step_name} progress`);
      return;
    case 'step.completed':
      logger.info(
        {
          ...fields,
          status: event.data['status'],
          duration_ms: event.data['duration_ms'],
          attempts: event.data['attempts'],
        },
        `step ${event.step_name} ${String(event.data['status'])}`,
      );
      return;
    case 'step.failed':
      logger.warn(
        {
          ...fields,
          error: event.data['error'],
          duration_ms: event.data['duration_ms'],
          attempts: event.data['attempts'],
        },
        `step ${event.step_name} failed`,
      );
      return;
    case 'workflow.completed':
      logger.info(
        {
          workflow,
          execution_id: event.workflow_id,
          status: event.data['status'],
          duration_ms: event.data['duration_ms'],
        },
        `workflow ${workflow} ${String(event.data['status'])}`,
      );
      return;
  }
}
