import { afterEach, describe, expect, it } from 'vitest';
import { ScriptedModelServer } from '../testing/scripted-server.js';
import { agentAt, agentWorkflow, CrmInvoker, runAgents } from '../test-support/harness.js';

let server: ScriptedModelServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

/**
 * Streamed tool arguments are held to strict JSON, as whole answers are: LangChain parses the
 * streamed text leniently (`{"id": "4` would become `{id: "4"}` and run).
 */
describe.each(['ai-sdk', 'langchain'] as const)('the %s backend, streamed', (backend) => {
  it('sends truncated tool arguments back to the model as a tool error, never running them', async () => {
    server = await new ScriptedModelServer((_, i) =>
      i === 0
        ? { toolCalls: [{ name: 'crm_lookup', arguments: '{"id": "4' }] }
        : { text: 'Sorry.' },
    ).start();
    const invoker = new CrmInvoker();
    const { result } = await runAgents(
      agentWorkflow(),
      [agentAt(server.url, { backend, streaming: true })],
      { invoker },
    );
    expect(result.status, JSON.stringify(result.steps['ask']?.error)).toBe('completed');
    expect(invoker.calls).toHaveLength(0);
    expect(result.steps['ask']!.output).toMatchObject({
      text: 'Sorry.',
      tool_calls: [{ name: 'crm_lookup', error: { code: 'VALIDATION' } }],
    });
    // The error went back as the tool's result (each backend words it its own way).
    const messages = server.requests[1]!.body['messages'] as { role: string; content: string }[];
    expect(messages.find((m) => m.role === 'tool')?.content).toMatch(/JSON/);
  });
});
