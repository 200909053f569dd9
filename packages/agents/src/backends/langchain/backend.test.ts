import { loadWorkflowSource, runWorkflow } from '@weft/engine';
import { afterEach, describe, expect, it } from 'vitest';
import { AgentRunner } from '../../run/runner.js';
import { agentAt, CrmInvoker, lookupSchema, SECRET_KEY } from '../../test-support/harness.js';
import { ScriptedModelServer } from '../../testing/scripted-server.js';
import { langChainProviderModel, LangChainBackend } from './backend.js';

let server: ScriptedModelServer | undefined;
afterEach(() => server?.close());

function twoSteps() {
  const loaded = loadWorkflowSource(`workflows:
  - name: twice
    steps:
      - name: capped
        type: agent
        agent: agent:acme/support@^1
        input: { prompt: Who is customer 42? }
        guardrails: { maxTokens: 1000 }
      - name: free
        type: agent
        agent: agent:acme/support@^1
        input: { prompt: Who is customer 43? }
`);
  if (!loaded.ok) throw new Error(loaded.diagnostics.map((d) => d.message).join('\n'));
  return loaded.workflows[0]!;
}

async function setUp(delayMs = 0) {
  server = await new ScriptedModelServer(() => ({ text: 'Ada is on gold.', delayMs })).start();
  let made = 0;
  const runner = new AgentRunner({
    agents: [agentAt(server.url, { backend: 'langchain' })],
    actions: () => ({ inputSchema: lookupSchema }),
    secrets: { get: async () => SECRET_KEY },
    backends: [
      new LangChainBackend({
        model: (agent, apiKey, fetch) => {
          made++;
          return langChainProviderModel(agent, apiKey, fetch);
        },
      }),
    ],
  });
  const run = () => runWorkflow(twoSteps(), {}, { invoker: new CrmInvoker(), agents: runner });
  return { run, made: () => made };
}

describe('the langchain backend', () => {
  it("reuses an agent's model in later steps; a step's maxTokens is no request's cap", async () => {
    const { run, made } = await setUp();
    const result = await run();
    expect(result.status).toBe('completed');
    expect(made()).toBe(1);
    const [capped, free] = server!.requests;
    expect(capped!.body['max_tokens']).toBeUndefined();
    expect(free!.body['max_tokens']).toBeUndefined();
  });

  it('gives steps running at the same time a model each', async () => {
    const { run, made } = await setUp(30);
    const results = await Promise.all([run(), run()]);
    expect(results.map((r) => r.status)).toEqual(['completed', 'completed']);
    expect(made()).toBe(2);
    expect(server!.requests).toHaveLength(4);
    expect(server!.requests.filter((r) => r.body['max_tokens'] === undefined)).toHaveLength(4);
  });
});
