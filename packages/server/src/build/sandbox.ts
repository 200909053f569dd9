import type { FastifyInstance } from 'fastify';
import { Sandbox, sandboxLogLine } from '@weft/sdk';
import type { BuildContext } from './context.js';

/**
 * The sandbox phase: opens the connector sandbox with the server's settings (`WEFT_SANDBOX`,
 * `WEFT_CGROUP_PARENT`, `WEFT_SCRATCH_DIR`), which probes what this host enforces and removes
 * what a killed earlier server left behind, and logs once which limits it enforces. Pushes
 * its close (the parent groups are removed when empty).
 */
export async function openSandbox(
  { options, stack }: BuildContext,
  app: FastifyInstance,
): Promise<Sandbox> {
  const sandbox = await Sandbox.open({
    ...options.sandbox,
    warn: (message) => app.log.warn(message),
  });
  stack.push(() => sandbox.close());
  const line = sandboxLogLine(sandbox);
  app.log.info(line.fields, line.message);
  return sandbox;
}
