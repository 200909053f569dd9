import Fastify, { type FastifyInstance } from 'fastify';
import { AJV_OPTIONS } from '@weft/http';
import {
  UnauthorizedError,
  type ActionCall,
  type ExecutionContext,
  type ExecutionsStore,
  type Principal,
  keyPrincipal,
} from '@weft/core';
import { runtimeRoutes } from '../http/plugin.js';
import type { RuntimeOptions, ServerActions } from '../options.js';
import { Runtime } from '../runtime.js';

/** A test handler: gets the input and context of an action call. */
export type TestAction = (input: Record<string, unknown>, context: ExecutionContext) => unknown;

/** Two owners' keys of the test runtime. */
export const KEYS = {
  alice: 'Bearer key-alice',
  bob: 'Bearer key-bob',
} as const;

const PRINCIPALS: Record<string, Principal> = {
  'Bearer key-alice': keyPrincipal({ keyId: 'ka', name: 'alice', owner: 'alice' }),
  'Bearer key-bob': keyPrincipal({ keyId: 'kb', name: 'bob', owner: 'bob' }),
};

/** Server actions over a map `<plugin>.<action>` → handler; other plugins are unavailable. */
export function testActions(handlers: Record<string, TestAction>): ServerActions & {
  calls: ActionCall[];
} {
  const calls: ActionCall[] = [];
  const plugins = new Set(Object.keys(handlers).map((k) => k.slice(0, k.indexOf('.'))));
  const slug = (target: ActionCall['target']) =>
    target.kind === 'plugin' ? target.slug : target.ref.replace(/@.*$/, '');
  return {
    calls,
    invoker: () => ({
      invoke: async (call) => {
        calls.push(call);
        const handler = handlers[`${slug(call.target)}.${call.action}`];
        if (!handler) throw new Error(`no handler for ${slug(call.target)}.${call.action}`);
        return { output: await handler(call.input, call.context) };
      },
    }),
    unavailable: async (targets) => targets.map(slug).filter((s) => !plugins.has(s)),
  };
}

/** A runtime with its routes on a bare Fastify instance, authenticated by {@link KEYS}. */
export interface RuntimeHarness {
  app: FastifyInstance;
  runtime: Runtime;
  close(): Promise<void>;
}

/** Builds a {@link RuntimeHarness} over `store` (started: it runs executions). */
export async function buildRuntimeHarness(
  store: ExecutionsStore,
  actions: ServerActions,
  options: Partial<RuntimeOptions> = {},
): Promise<RuntimeHarness> {
  const runtime = new Runtime({
    store,
    actions,
    authenticate: async (header) => {
      const principal = header ? PRINCIPALS[header] : undefined;
      if (!principal)
        throw new UnauthorizedError('the API key is not valid', { reason: 'invalid' });
      return principal;
    },
    sweepMs: 60_000,
    ...options,
  });
  const app = Fastify({
    logger: false,
    ajv: { customOptions: AJV_OPTIONS },
  });
  await app.register(runtimeRoutes(runtime));
  await app.ready();
  await runtime.start();
  return {
    app,
    runtime,
    close: async () => {
      await runtime.close();
      await app.close();
    },
  };
}

/** A one-file workflow text with the given steps (YAML, indented as under `steps:`). */
export function workflowText(steps: string, extra = ''): string {
  return `workflows:\n  - name: w\n${extra}    steps:\n${steps}`;
}
