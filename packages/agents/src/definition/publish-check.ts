import { parseAgentSource } from './load.js';
import type { AgentDefinition } from './schema.js';

/** One problem of an agent definition, as the registry reports it. */
export interface AgentProblem {
  /** Dotted path, e.g. `agent.model`. */
  field: string;
  constraint: string;
  message: string;
  line?: number;
  column?: number;
}

/**
 * Checks the exact bytes of an agent definition file (YAML or JSON with a top-level `agent`)
 * for publication: the same schema and rules as `--agents <dir>`, every problem with its line
 * and column. `weft server` gives it to the registry as its agent check.
 */
export function checkAgentDefinition(
  bytes: Uint8Array,
): { ok: true; agent: AgentDefinition } | { ok: false; problems: AgentProblem[] } {
  const loaded = parseAgentSource(bytes);
  if (loaded.ok) return { ok: true, agent: loaded.agent! };
  return {
    ok: false,
    problems: loaded.diagnostics
      .filter((d) => d.severity === 'error')
      .map((d) => ({
        field: d.path,
        constraint: d.code,
        message: d.message,
        ...(d.line !== undefined ? { line: d.line, column: d.column ?? 1 } : {}),
      })),
  };
}
