import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { renderWorkflowJsonSchema, workflowFileJsonSchema } from './json-schema.js';

const committed = new URL('../../../../schemas/workflow.schema.json', import.meta.url);

describe('workflow JSON Schema', () => {
  it('matches the committed schemas/workflow.schema.json (run `npm run schema` when this fails)', () => {
    expect(readFileSync(committed, 'utf8')).toBe(renderWorkflowJsonSchema());
  });

  it('is a draft 2020-12 schema with an $id and the workflows key required', () => {
    const schema = workflowFileJsonSchema();
    expect(schema['$schema']).toBe('https://json-schema.org/draft/2020-12/schema');
    expect(schema['$id']).toMatch(/^https:\/\//);
    expect(schema['required']).toEqual(['workflows']);
    expect(schema['additionalProperties']).toBe(false);
  });
});
