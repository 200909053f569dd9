import type { Sandbox } from './sandbox.js';

/** One log line of what a host's sandbox enforces: its structured fields and its message. */
export interface SandboxLogLine {
  /** `sandbox`: per limit, how it is enforced, or `not enforced: <why>`. */
  readonly fields: { sandbox: Record<string, string> };
  /** `sandbox (strict) enforces memory, cpu, ...; not enforced: disk_io, bandwidth`. */
  readonly message: string;
}

/**
 * What `weft server` and connector services log once at start: which limits this host
 * enforces under its mode, with how (or why not) per limit in the line's fields.
 */
export function sandboxLogLine(sandbox: Pick<Sandbox, 'report' | 'mode'>): SandboxLogLine {
  const { mode } = sandbox;
  const report = sandbox.report();
  const enforced = report.filter((r) => r.enforced).map((r) => r.limit);
  const not = report.filter((r) => !r.enforced).map((r) => r.limit);
  const parts = [
    `sandbox (${mode}) enforces ${enforced.length > 0 ? enforced.join(', ') : 'no limit'}`,
    ...(not.length > 0 ? [`not enforced: ${not.join(', ')}`] : []),
  ];
  return {
    fields: {
      sandbox: Object.fromEntries(
        report.map((r) => [r.limit, r.enforced ? r.how : `not enforced: ${r.how}`]),
      ),
    },
    message: parts.join('; '),
  };
}
