import { WorkflowFile } from './workflow.js';

/** Where the committed JSON Schema of workflow files is published. */
export const WORKFLOW_SCHEMA_ID = 'https://weft.dev/schemas/workflow.schema.json';

/**
 * The JSON Schema (draft 2020-12) of a workflow file, generated from the TypeBox types. The
 * committed copy lives at `schemas/workflow.schema.json`; `npm run schema` rewrites it.
 */
export function workflowFileJsonSchema(): Record<string, unknown> {
  return jsonSchemaDocument(WorkflowFile, WORKFLOW_SCHEMA_ID, 'weft workflow file');
}

/** {@link workflowFileJsonSchema} as the exact text committed at `schemas/workflow.schema.json`. */
export function renderWorkflowJsonSchema(): string {
  return renderJsonSchemaDocument(workflowFileJsonSchema());
}

/**
 * A TypeBox schema as a standalone JSON Schema document (draft 2020-12) with its `$id` and
 * `title`: the plain JSON of the schema, without TypeBox's symbols.
 */
export function jsonSchemaDocument(
  schema: unknown,
  id: string,
  title: string,
): Record<string, unknown> {
  const plain = JSON.parse(JSON.stringify(schema)) as Record<string, unknown>;
  return { $schema: 'https://json-schema.org/draft/2020-12/schema', $id: id, title, ...plain };
}

/** A JSON Schema document as the exact text committed under `schemas/`. */
export function renderJsonSchemaDocument(document: Record<string, unknown>): string {
  return `${JSON.stringify(document, null, 2)}\n`;
}
