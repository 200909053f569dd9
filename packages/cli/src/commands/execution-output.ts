import type { ExecutionRecord } from '@weft/sdk/client';
import { EXIT } from '../exit-codes.js';
import type { Io } from '../io.js';

/** Prints an execution record: as JSON with `-o json`, else the line given. */
export function printRecord(io: Io, output: string, record: ExecutionRecord, line: string): void {
  io.out(output === 'json' ? `${JSON.stringify(record, null, 2)}\n` : `${line}\n`);
}

/** Prints how an execution ended (status, error, outputs); exit 0 when it completed, 1 otherwise. */
export function printEnded(io: Io, output: string, record: ExecutionRecord): number {
  const error = record.error as { code?: string; message?: string } | undefined;
  const why = error ? ` (${error.code ?? 'ERROR'}: ${error.message ?? ''})` : '';
  const outputs = record.result?.outputs ?? {};
  const shown = Object.keys(outputs).length > 0 ? `\noutputs: ${JSON.stringify(outputs)}` : '';
  printRecord(
    io,
    output,
    record,
    `execution ${record.execution_id} ${record.status}${why}${shown}`,
  );
  return record.status === 'completed' ? EXIT.ok : EXIT.failure;
}

/** A usage error of an execution command (missing server or key, bad flag): exit 2. */
export function usage(io: Io, message: string): number {
  io.err(`error: ${message}\n`);
  return EXIT.invalid;
}
