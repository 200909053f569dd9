import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { renderServerOpenApi } from './openapi.js';

const committed = new URL('../../../docs/openapi.json', import.meta.url);

describe('OpenAPI document', () => {
  it('matches the committed docs/openapi.json (run `npm run openapi` when this fails)', async () => {
    expect(readFileSync(committed, 'utf8')).toBe(await renderServerOpenApi());
  });

  it('documents bearer auth and the error object', async () => {
    const document = JSON.parse(await renderServerOpenApi()) as {
      components: Record<string, Record<string, unknown>>;
    };
    expect(document.components['securitySchemes']).toHaveProperty('bearerAuth');
    expect(document.components['schemas']).toHaveProperty('ErrorObject');
  });
});
