import { ValidationError, type ActionCall } from '@weft/core';
import type { AgentDefinition } from './schema.js';

/** A tool of an agent, resolved to the action it runs. */
export interface ToolSpec {
  /** The name the model knows it by (letters, digits, _ and -). */
  readonly name: string;
  readonly target: ActionCall['target'];
  readonly action: string;
  /** Overrides the action's description. */
  readonly description: string | undefined;
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
