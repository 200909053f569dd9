/**
 * A `weft server` process for the runtime's integration tests, run from source (`node --import
 * tsx --conditions=source`): `argv[2]` is the data directory. Test plugins are served by a
 * connector in the test process, registered with this server's router. Prints the URL.
 */
import { closeOnSignals, serverOptionsFromEnv, startServer } from '@weft/server';

const server = await startServer(
  { ...serverOptionsFromEnv(process.env), port: 0, dataDir: process.argv[2]!, logLevel: 'warn' },
  { runtime: { leaseMs: 2000, sweepMs: 200, callbacks: { firstDelayMs: 50 } } },
);
console.log(`listening on ${server.url}`);
await closeOnSignals(server);
