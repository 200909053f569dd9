/**
 * Writes `schemas/workflow.schema.json` (and its copy in packages/cli/schemas) from the TypeBox types of @weft/core.
 * Run with `npm run schema` after changing a workflow type; a test fails while the copy is stale.
 */
import { writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { renderWorkflowJsonSchema } from '@weft/core';

// The repository's copy, and the one @weft/cli ships (weft init's files point editors at it).
for (const path of [
  '../schemas/workflow.schema.json',
  '../packages/cli/schemas/workflow.schema.json',
]) {
  const target = fileURLToPath(new URL(path, import.meta.url));
  writeFileSync(target, renderWorkflowJsonSchema());
  console.log(`wrote ${target}`);
}
