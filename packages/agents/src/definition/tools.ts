import { ValidationError, type ActionCall, type ToolApproval } from '@weft/core';
import type { AgentDefinition } from './schema.js';

/** A tool of an agent, resolved to the action it runs. */
export interface ToolSpec {
  /** The name the model knows it by (letters, digits, _ and -). */
  readonly name: string;
  readonly target: ActionCall['target'];
  readonly action: string;
  /** Overrides the action's description. */
  readonly description: string | undefined;
  /** The approval a call waits for before it runs (docs/agents.md#tool-approvals), if any. */
  readonly approval?: ToolApproval | undefined;
}

/**
 * The tools of an agent with their model names: `plugin.action` is `plugin_action`; a connector
 * action is `<connector name>_<action>` unless `name` is given. Throws `VALIDATION` when a tool
 * names no target or two, or two tools share a name.
 */
export function toolsOf(agent: AgentDefinition): ToolSpec[] {
  const specs: ToolSpec[] = [];
  const seen = new Set<string>();
  (agent.tools ?? []).forEach((tool, i) => {
    const field = `agent.tools.${i}`;
    let spec: ToolSpec;
    if (typeof tool === 'string') {
      const [plugin, action] = tool.split('.') as [string, string];
      spec = {
        name: `${plugin}_${action}`,
        target: { kind: 'plugin', slug: plugin },
        action,
        description: undefined,
      };
    } else {
      if ((tool.connector === undefined) === (tool.plugin === undefined)) {
        throw new ValidationError('a tool names a connector or a plugin, and one of them', {
          field,
          constraint: 'target',
        });
      }
      const target: ActionCall['target'] = tool.connector
        ? { kind: 'connector', ref: tool.connector }
        : { kind: 'plugin', slug: tool.plugin! };
      const owner = tool.connector ? /\/([^@]+)@/.exec(tool.connector)![1]! : tool.plugin!;
      spec = {
        name: tool.name ?? `${owner}_${tool.action}`.replace(/[^A-Za-z0-9_-]/g, '_').slice(0, 64),
        target,
        action: tool.action,
        description: tool.description,
        ...(tool.approval ? { approval: tool.approval } : {}),
      };
    }
    if (seen.has(spec.name)) {
      throw new ValidationError(`two tools are named "${spec.name}": give one of them a name`, {
        field,
        constraint: 'unique',
      });
    }
    seen.add(spec.name);
    specs.push(spec);
  });
  return specs;
}

/**
 * The tools of an agent step: the agent's, with the step's `tool_approvals` added to (or
 * replacing) their approvals. Throws `VALIDATION` (`tool_approvals.<name>`) for a tool the agent
 * has not.
 */
export function withStepApprovals(
  specs: readonly ToolSpec[],
  approvals: Readonly<Record<string, ToolApproval>> | undefined,
): readonly ToolSpec[] {
  if (approvals === undefined) return specs;
  for (const name of Object.keys(approvals)) {
    if (!specs.some((spec) => spec.name === name)) {
      throw new ValidationError(
        `tool_approvals names "${name}", which is not a tool of the agent (its tools: ${specs.map((s) => s.name).join(', ') || 'none'})`,
        { field: `tool_approvals.${name}`, constraint: 'tool' },
      );
    }
  }
  return specs.map((spec) =>
    approvals[spec.name] ? { ...spec, approval: approvals[spec.name] } : spec,
  );
}
