/**
 * Writes `schemas/workflow.schema.json` from the TypeBox types of @weft/core.
 * Run with `npm run schema` after changing a workflow type; a test fails while the copy is stale.
 */
import { writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { renderWorkflowJsonSchema } from '@weft/core';

const target = fileURLToPath(new URL('../schemas/workflow.schema.json', import.meta.url));
writeFileSync(target, renderWorkflowJsonSchema());
console.log(`wrote ${target}`);
