import { formatPath, type Diagnostic, type Path } from '../diagnostics.js';
import type { Locator } from './locate.js';

/** Extra facts of one diagnostic. */
export interface ReportExtras {
  expected?: string;
  found?: string;
  /** Point at the key of `path` rather than its value (unknown keys). */
  key?: boolean;
  /** Point at this character of the string value at `path` (template errors). */
  offsetInValue?: number;
}

/** Collects diagnostics, resolving each path to `file:line:column` as it is reported. */
export class Reporter {
  readonly diagnostics: Diagnostic[] = [];

  constructor(
    private readonly file: string | undefined,
    private readonly locator: Locator | undefined,
  ) {}

  /** Reports an error at `path`. */
  error(path: Path, code: string, message: string, extras: ReportExtras = {}): void {
    this.add('error', path, code, message, extras);
  }

  /** Reports a warning at `path`. */
  warning(path: Path, code: string, message: string, extras: ReportExtras = {}): void {
    this.add('warning', path, code, message, extras);
  }

  /** Reports an error at a source offset (syntax errors, before there is a tree). */
  errorAtOffset(offset: number, code: string, message: string): void {
    const position = this.locator?.atOffset(offset);
    this.diagnostics.push({
      severity: 'error',
      code,
      path: '',
      message,
      ...(this.file !== undefined ? { file: this.file } : {}),
      ...(position ? { line: position.line, column: position.column } : {}),
    });
  }

  /** Number of errors reported so far. */
  get errorCount(): number {
    return this.diagnostics.filter((d) => d.severity === 'error').length;
  }

  private add(
    severity: Diagnostic['severity'],
    path: Path,
    code: string,
    message: string,
    extras: ReportExtras,
  ): void {
    const position = this.locator?.at(path, extras);
    this.diagnostics.push({
      severity,
      code,
      path: formatPath(path),
      message,
      ...(extras.expected !== undefined ? { expected: extras.expected } : {}),
      ...(extras.found !== undefined ? { found: extras.found } : {}),
      ...(this.file !== undefined ? { file: this.file } : {}),
      ...(position ? { line: position.line, column: position.column } : {}),
    });
  }
}
