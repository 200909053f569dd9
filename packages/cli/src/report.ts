import { formatDiagnostic, type Diagnostic } from '@weft/engine';
import type { Io } from './io.js';
import { paint } from './style.js';

/** Prints diagnostics to stderr, one per line, colored by severity. */
export function printDiagnostics(io: Io, diagnostics: readonly Diagnostic[]): void {
  for (const d of diagnostics) {
    const line = formatDiagnostic(d);
    io.err(`${paint(io, d.severity === 'error' ? 'red' : 'yellow', line)}\n`);
  }
}

/** `3 errors, 1 warning`. */
export function countLine(diagnostics: readonly Diagnostic[]): string {
  const errors = diagnostics.filter((d) => d.severity === 'error').length;
  const warnings = diagnostics.length - errors;
  const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? '' : 's'}`;
  return [plural(errors, 'error'), ...(warnings > 0 ? [plural(warnings, 'warning')] : [])].join(
    ', ',
  );
}
