import { renderOpenApi } from '@weft/http';
import { openStore } from '@weft/store';
import { buildServer } from './build.js';

/**
 * The OpenAPI document `GET /openapi.json` serves, rendered from a server on a throwaway
 * in-memory store. The committed copy is `docs/openapi.json` (`npm run openapi` rewrites it).
 */
export async function renderServerOpenApi(): Promise<string> {
  const opened = await openStore({ kind: 'sqlite', dataDir: ':memory:' });
  const server = await buildServer(
    {},
    {
      store: opened.registry,
      executionsStore: opened.executions,
      deploymentStore: opened.deployments,
      triggerStore: opened.triggers,
      auditStore: opened.audit,
      budgetLedger: opened.budgets,
      logger: false,
    },
  );
  try {
    return renderOpenApi(server.app);
  } finally {
    await server.close();
    await opened.executions.close();
    await opened.registry.close();
  }
}
