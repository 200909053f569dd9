import { WorkflowFile } from './workflow.js';

/** Where the committed JSON Schema of workflow files is published. */
export const WORKFLOW_SCHEMA_ID = 'https://weft.dev/schemas/workflow.schema.json';

/**
 * The JSON Schema (draft 2020-12) of a workflow file, generated from the TypeBox types. The
 * committed copy lives at `schemas/workflow.schema.json`; `npm run schema` rewrites it.
 */
export function workflowFileJsonSchema(): Record<string, unknown> {
  const plain = JSON.parse(JSON.stringify(WorkflowFile)) as Record<string, unknown>;
  return {
    $schema: 'https://json-schema.org/draft/2020-12/schema',
    $id: WORKFLOW_SCHEMA_ID,
    title: 'weft workflow file',
    ...plain,
  };
}

/** {@link workflowFileJsonSchema} as the exact text committed at `schemas/workflow.schema.json`. */
export function renderWorkflowJsonSchema(): string {
  return `${JSON.stringify(workflowFileJsonSchema(), null, 2)}\n`;
}
