import { ValidationError, type StoredDefinition } from '@weft/core';
import type { DefinitionFormat, DefinitionProblem } from './definition/parse.js';
import { slugProblem, versionProblem } from './rules/names.js';

/** What the registry reads of an agent definition; the rest is kept as it came. */
export interface AgentSummary {
  namespace: string;
  name: string;
  version: string;
  description?: string;
  [field: string]: unknown;
}

/** The outcome of {@link AgentDefinitionCheck}. */
export type AgentCheckResult =
  { ok: true; agent: AgentSummary } | { ok: false; problems: DefinitionProblem[] };

/**
 * Checks the exact bytes of an agent definition (a file with a top-level `agent`) with the
 * agents' own schema and rules, with line and column. A port: the registry knows no agent
 * schema; `weft server` wires `@weft/agents`' check (docs/design.md#import-rules).
 */
export type AgentDefinitionCheck = (
  bytes: Uint8Array,
  format: DefinitionFormat,
) => AgentCheckResult;

/** True when parsed definition data is an agent definition (a top-level `agent`). */
export function isAgentSubmission(value: unknown): boolean {
  return typeof value === 'object' && value !== null && !Array.isArray(value) && 'agent' in value;
}

/** The slug an agent is published under: `<namespace>-<name>`. */
export function agentSlug(agent: Pick<AgentSummary, 'namespace' | 'name'>): string {
  return `${agent.namespace}-${agent.name}`;
}

/** `agent:<namespace>/<name>`: how a workflow names a published agent (with `@<range>`). */
export function agentRefOf(agent: Pick<AgentSummary, 'namespace' | 'name'>): string {
  return `agent:${agent.namespace}/${agent.name}`;
}

/**
 * Checks an agent submission and gives what the registry stores of it: the plugin-shaped
 * summary (name `<namespace>/<name>`, the description, the owner as author, no actions) with
 * the definition in `agent`. Throws VALIDATION with every problem (field, constraint, line,
 * column) when the definition is invalid, its slug is not a plugin slug, or this registry was
 * given no check (fail closed: an agent nobody checked is never stored).
 */
export function agentDefinition(
  check: AgentDefinitionCheck | undefined,
  bytes: Uint8Array,
  format: DefinitionFormat,
  owner: string,
): { ok: true; definition: StoredDefinition } | { ok: false; problems: DefinitionProblem[] } {
  if (check === undefined) {
    throw new ValidationError(
      'this registry does not take agent definitions (it was started without an agent check)',
      { field: 'agent', constraint: 'unsupported' },
    );
  }
  const checked = check(bytes, format);
  if (!checked.ok) return checked;
  const { agent } = checked;
  const slug = agentSlug(agent);
  const problems: DefinitionProblem[] = [];
  const slugIssue = slugProblem(slug);
  if (slugIssue) {
    problems.push({
      field: 'agent.name',
      constraint: 'slug',
      message: `an agent is published as <namespace>-<name>, and "${slug}" is not a slug: ${slugIssue.message}`,
    });
  }
  const versionIssue = versionProblem(agent.version);
  if (versionIssue) problems.push({ field: 'agent.version', ...versionIssue });
  if (problems.length > 0) return { ok: false, problems };
  return {
    ok: true,
    definition: {
      slug,
      version: agent.version,
      name: `${agent.namespace}/${agent.name}`,
      description: agent.description ?? '',
      author: owner,
      homepage: '',
      repository: '',
      license: '',
      icon: '',
      tags: [],
      actions: [],
      agent,
    },
  };
}
