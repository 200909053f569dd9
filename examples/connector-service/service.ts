/**
 * Serves the inventory plugin as a connector service and registers it with the weft router.
 *
 *   WORKFLOW_ROUTER_URL=http://127.0.0.1:8080 npm start
 *
 * Settings from the environment: WORKFLOW_ROUTER_URL (the router; none: serve unregistered),
 * WORKFLOW_SERVICE_URL (this service's URL as the router reaches it), PORT (default 8100),
 * HOST (default 127.0.0.1), INSTANCE_ID, REGION, WEFT_ROUTER_TOKEN, and for mutual TLS
 * WEFT_CLIENT_CERT / WEFT_CLIENT_KEY / WEFT_ROUTER_CA (PEM files).
 */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { type ExecutionContext } from '@weft/sdk';
import { createConnectorService } from '@weft/sdk/service';
import { Warehouse } from './inventory.js';

const env = process.env;
const warehouse = new Warehouse();
const file = (name: string) => (env[name] ? readFileSync(env[name]) : undefined);
const cert = file('WEFT_CLIENT_CERT');
const key = file('WEFT_CLIENT_KEY');
const ca = file('WEFT_ROUTER_CA');

const service = await createConnectorService({
  connector: fileURLToPath(new URL('./inventory.yaml', import.meta.url)),
  handlers: {
    check_stock: (input: { skus: string[] }) => warehouse.checkStock(input),
    reserve: (
      input: { order_id: string; sku: string; quantity: number },
      context: ExecutionContext,
    ) => warehouse.reserve(input, context),
    release: (input: { reservation_id: string }) => warehouse.release(input),
  },
  port: Number(env['PORT'] ?? 8100),
  host: env['HOST'] ?? '127.0.0.1',
  ...(env['INSTANCE_ID'] ? { instanceId: env['INSTANCE_ID'] } : {}),
  ...(env['REGION'] ? { region: env['REGION'] } : {}),
  ...(cert && key ? { tls: { cert, key, ...(ca ? { ca } : {}) } } : {}),
  healthChecks: { warehouse: () => true },
});

// One line on stdout that scripts (and the integration tests) wait for.
console.log(`inventory service ${service.instanceId} listening on ${service.url}`);
