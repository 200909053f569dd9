/**
 * Writes `docs/openapi.json`, the OpenAPI document `weft server` serves at `/openapi.json`.
 * Run with `npm run openapi` after changing a route; a test fails while the copy is stale.
 */
import { writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { renderServerOpenApi } from '@weft/server';

const target = fileURLToPath(new URL('../docs/openapi.json', import.meta.url));
writeFileSync(target, await renderServerOpenApi());
console.log(`wrote ${target}`);
