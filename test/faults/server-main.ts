/**
 * A `weft server` replica for the fault tests, run from source (`node --import tsx
 * --conditions=source`): `argv[2]` is the PostgreSQL schema. Settings come from the environment
 * like `weft server` (`DATABASE_URL`, `WEFT_BROKER`, `WEFT_REPLICA_ID`; `PGAPPNAME` names its
 * database connections). Short leases so that a killed replica's executions are taken over fast.
 */
import { closeOnSignals, serverOptionsFromEnv, startServer } from '@weft/server';

const server = await startServer(
  {
    ...serverOptionsFromEnv(process.env),
    port: 0,
    databaseSchema: process.argv[2]!,
    logLevel: 'error',
  },
  { runtime: { leaseMs: 1500, sweepMs: 200 } },
);
console.log(`listening on ${server.url}`);
await closeOnSignals(server);
