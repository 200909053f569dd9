/**
 * The connector service of plugin `count` for the scale benchmark, run as a child process from
 * source: it consumes its tasks from the broker at `WEFT_BROKER` (so it registers
 * `metadata.transport: "broker"`) and registers with the router at `WORKFLOW_ROUTER_URL`.
 * Prints `listening on <url>`; closes on SIGTERM.
 */
import { pino } from 'pino';
import { connectBroker } from '@weft/broker';
import { createConnectorService } from '@weft/sdk/service';
import { COUNT_SERVICE, TASK_OPTIONS } from './workload.js';

const broker = await connectBroker(process.env['WEFT_BROKER']);
const service = await createConnectorService({
  ...COUNT_SERVICE,
  broker,
  taskOptions: TASK_OPTIONS,
  handleSignals: false,
  logger: pino({ level: 'silent' }),
});
console.log(`listening on ${service.url}`);
process.once('SIGTERM', () => {
  void (async () => {
    await service.close();
    await broker.close();
    process.exit(0);
  })();
});
