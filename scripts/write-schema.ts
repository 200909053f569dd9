/**
 * Writes the editor schemas of schemas/ from the TypeBox types the loaders check files with:
 * `workflow.schema.json` (@weft/core's workflow types), `plugin.schema.json` (the registry's
 * plugin definition and the SDK's connector definition) and `agent.schema.json` (@weft/agents),
 * and their copies in packages/cli/schemas, which @weft/cli ships (the files `weft init` writes
 * point editors at them). Run with `npm run schema` after changing one of those types; a test
 * fails while a copy is stale.
 */
import { writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { renderPluginJsonSchema, renderWorkflowJsonSchema } from '@weft/core';
import { renderAgentJsonSchema } from '@weft/agents';

const files: Record<string, string> = {
  'workflow.schema.json': renderWorkflowJsonSchema(),
  'plugin.schema.json': renderPluginJsonSchema(),
  'agent.schema.json': renderAgentJsonSchema(),
};
for (const [name, text] of Object.entries(files)) {
  for (const dir of ['../schemas/', '../packages/cli/schemas/']) {
    const target = fileURLToPath(new URL(`${dir}${name}`, import.meta.url));
    writeFileSync(target, text);
    console.log(`wrote ${target}`);
  }
}
