import type { ActionCall, ActionInvoker, StreamEvent } from '@weft/core';
import {
  DryRunInterceptor,
  loadWorkflowSource,
  runWorkflow,
  type RunInterceptor,
  type RunResult,
} from '@weft/engine';
import { AgentRunner, type AgentRunnerOptions } from '../run/runner.js';
import { AiSdkBackend } from '../backends/ai-sdk/backend.js';
import { LangChainBackend } from '../backends/langchain/backend.js';
import type { AgentDefinition } from '../definition/schema.js';

/** The `crm.lookup` action of the tests: its schema, and an invoker that records its calls. */
export const lookupSchema = {
  type: 'object',
  properties: { id: { type: 'string', minLength: 1 } },
  required: ['id'],
  additionalProperties: false,
};

export class CrmInvoker implements ActionInvoker {
  readonly calls: ActionCall[] = [];
  async invoke(call: ActionCall) {
    this.calls.push(call);
    return { output: { id: call.input['id'], name: 'Ada Lovelace', plan: 'gold' } };
  }
}

/** An agent on the scripted server at `baseUrl`. */
export function agentAt(baseUrl: string, extra: Partial<AgentDefinition> = {}): AgentDefinition {
  return {
    namespace: 'acme',
    name: 'support',
    version: '1.2.0',
    model: 'openai-compatible:scripted-1',
    base_url: baseUrl,
    api_key_secret: 'MODEL_KEY',
    instructions: 'You answer support questions.',
    tools: ['crm.lookup'],
    pricing: { input_per_million: 1, output_per_million: 2 },
    ...extra,
  };
}

export const SECRET_KEY = 'sk-test-very-secret-0123456789';

/** A workflow with one agent step (`ask`) and a transform reading its output. */
export function agentWorkflow(step = '') {
  const loaded = loadWorkflowSource(`workflows:
  - name: support
    steps:
      - name: ask
        type: agent
        agent: agent:acme/support@^1
        input: { prompt: Who is customer 42?, customer: '42' }
${step}      - name: after
        type: transform
        input: { text: '{{ steps.ask.output.text }}' }
`);
  if (!loaded.ok) throw new Error(loaded.diagnostics.map((d) => d.message).join('\n'));
  return loaded.workflows[0]!;
}

/** Runs `workflow` with both backends (ai-sdk, langchain) and an agent catalog; collects events. */
export async function runAgents(
  workflow: ReturnType<typeof agentWorkflow>,
  agents: AgentDefinition[],
  options: {
    invoker?: ActionInvoker;
    /** Retries of both backends' model calls (default 2). */
    backend?: { maxRetries?: number };
    runner?: Partial<AgentRunnerOptions>;
    dryRun?: boolean;
    /** Interceptors made from the runner (e.g. the guardrails interceptor with its options). */
    interceptors?: (runner: AgentRunner) => RunInterceptor[];
  } = {},
): Promise<{ result: RunResult; events: StreamEvent[] }> {
  const events: StreamEvent[] = [];
  const runner = new AgentRunner({
    agents,
    actions: (target, action) =>
      target.kind === 'plugin' && target.slug === 'crm' && action === 'lookup'
        ? { inputSchema: lookupSchema, description: 'Finds a customer by id' }
        : undefined,
    secrets: { get: async (name) => (name === 'MODEL_KEY' ? SECRET_KEY : undefined) },
    backends: [
      new AiSdkBackend({ maxRetries: 2, ...options.backend }),
      new LangChainBackend({ maxRetries: 2, ...options.backend }),
    ],
    ...options.runner,
  });
  const mocks = options.dryRun ? new DryRunInterceptor(workflow.testing?.dryRun ?? {}) : undefined;
  const result = await runWorkflow(
    workflow,
    {},
    {
      invoker: options.invoker ?? new CrmInvoker(),
      agents: runner,
      executionId: 'exec-1',
      onEvent: (event) => events.push(event),
      interceptors: [...(mocks ? [mocks] : []), ...(options.interceptors?.(runner) ?? [])],
    },
  );
  return { result, events };
}
