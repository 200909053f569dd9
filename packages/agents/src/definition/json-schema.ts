import { jsonSchemaDocument, renderJsonSchemaDocument } from '@weft/core';
import { AgentFile } from './schema.js';

/** Where the committed JSON Schema of agent files is published. */
export const AGENT_SCHEMA_ID = 'https://weft.dev/schemas/agent.schema.json';

/**
 * The JSON Schema (draft 2020-12) of an agent definition file, generated from {@link AgentFile},
 * the type the agent loader checks files with. The committed copy lives at
 * `schemas/agent.schema.json`; `npm run schema` rewrites it.
 */
export function agentFileJsonSchema(): Record<string, unknown> {
  return jsonSchemaDocument(AgentFile, AGENT_SCHEMA_ID, 'weft agent file');
}

/** {@link agentFileJsonSchema} as the exact text committed at `schemas/agent.schema.json`. */
export function renderAgentJsonSchema(): string {
  return renderJsonSchemaDocument(agentFileJsonSchema());
}
