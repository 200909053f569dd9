/**
 * One `weft server` replica of the scale benchmark, run as a child process from source. Settings
 * come from the environment like `weft server` (`DATABASE_URL`, `WEFT_BROKER`,
 * `WEFT_REPLICA_ID`), plus `WEFT_BENCH_SCHEMA` (PostgreSQL schema) or `WEFT_BENCH_DATA_DIR`
 * (SQLite directory). With `WEFT_BENCH_SERVICE=in-process` it also serves plugin `count` by the
 * server's own broker (the in-memory broker lives in one process), registered with itself.
 * Prints `listening on <url>`; closes on SIGTERM.
 */
import { pino } from 'pino';
import { createConnectorService, type ConnectorService } from '@weft/sdk/service';
import { serverOptionsFromEnv, startServer } from '@weft/server';
import { COUNT_SERVICE, TASK_OPTIONS } from './workload.js';

const env = process.env;
const server = await startServer({
  ...serverOptionsFromEnv(env),
  port: 0,
  logLevel: 'error',
  ...(env['WEFT_BENCH_SCHEMA'] ? { databaseSchema: env['WEFT_BENCH_SCHEMA'] } : {}),
  ...(env['WEFT_BENCH_DATA_DIR'] ? { dataDir: env['WEFT_BENCH_DATA_DIR'] } : {}),
});
let service: ConnectorService | undefined;
if (env['WEFT_BENCH_SERVICE'] === 'in-process') {
  if (!server.broker) throw new Error('WEFT_BENCH_SERVICE=in-process needs WEFT_BROKER');
  service = await createConnectorService({
    ...COUNT_SERVICE,
    broker: server.broker.broker,
    routerUrl: server.url,
    taskOptions: TASK_OPTIONS,
    handleSignals: false,
    logger: pino({ level: 'silent' }),
  });
}
console.log(`listening on ${server.url}`);
process.once('SIGTERM', () => {
  void (async () => {
    await service?.close();
    await server.close();
    process.exit(0);
  })();
});
