/**
 * Agent steps: weft's overhead per model turn and per tool call over the bare Vercel
 * AI SDK (backend `ai-sdk`) and over a bare LangChain.js tool loop (backend `langchain`), all
 * calling the same scripted OpenAI-compatible server on loopback in the same run, interleaved.
 * Scenarios (the model id picks one): `s1` one turn answering text; `s2` a turn with one tool
 * call, then the answer; `s10` a turn with ten tool calls, then the answer. Per tool call =
 * (Δs10 − Δs2) / 9, per turn = Δs2 − Δs1 − per tool call, where Δ is weft minus the bare
 * library. The limit is a bare `fetch` round trip to the same server. Both wall time (median)
 * and CPU time of the process (server and client share it, alike for both) are shown. The young
 * generation is collected before each case, so its scavenges collect its own garbage; still,
 * an old-generation collection lands on whichever case runs when it comes, so the CPU mean
 * (which counts it) is noisier than the CPU median (which mostly leaves it out).
 *
 * What each side does, the same request for the same work (system prompt, user prompt, one tool
 * `crm_lookup` with the same description and JSON schema, at most 5 turns, not streamed):
 * - bare AI SDK: `generateText` with `system`, `prompt`, the tool (`tool` + `jsonSchema`, no
 *   validator: the SDK checks nothing, weft's check counts as weft's overhead) and
 *   `stopWhen: stepCountIs(5)`; the provider (`createOpenAICompatible`, `includeUsage`) and its
 *   chat model made once per scenario, as a program would (a model made per call builds the
 *   provider's zod response schemas each time: 0.17 ms wall and 0.27 ms CPU more per call,
 *   measured, which made weft, whose models are cached, look faster than the bare SDK).
 *   Plain `fetch`.
 * - weft, ai-sdk: a one-step workflow run by the engine (`runWorkflow`) whose agent step runs
 *   the same `generateText` loop, plus weft's work: the step, the agent's budgets, argument
 *   checks, `step.progress` per turn and per tool call, tools run through the engine's chain,
 *   and the 10 MiB answer limit on `fetch` (the server answers chunked, so it is counted).
 * - bare LangChain: `ChatOpenAICompletions` with `bindTools`, made once per scenario, and the
 *   usual loop: `invoke`, run each tool call, append `ToolMessage`s, until an answer.
 * - weft, langchain: the same workflow on the `langchain` backend (weft's own loop over
 *   `ChatOpenAICompletions`, the model reused across steps, the output cap set per turn, the
 *   tools bound per step, and the same budgets, checks, progress and answer limit).
 */
import { createOpenAICompatible } from '@ai-sdk/openai-compatible';
import {
  HumanMessage,
  SystemMessage,
  ToolMessage,
  type BaseMessage,
} from '@langchain/core/messages';
import { ChatOpenAICompletions } from '@langchain/openai';
import { AgentRunner, AiSdkBackend, LangChainBackend, type AgentDefinition } from '@weft/agents';
import { ScriptedModelServer } from '@weft/agents/testing';
import type { ActionInvoker } from '@weft/core';
import { loadWorkflowSource, runWorkflow, type WorkflowDefinition } from '@weft/engine';
import { generateText, jsonSchema, stepCountIs, tool } from 'ai';
import { printTable, writeResults, type BenchResult } from './harness.js';

const SYSTEM = 'You answer support questions.';
/** `--expose-gc`'s collector (the bench runs with it), if there. */
const gc = (globalThis as { gc?: (options?: { type: 'minor' | 'major' }) => void }).gc;
const ROUNDS = Number(process.env['WEFT_BENCH_ROUNDS'] ?? 1000);
const schema = {
  type: 'object',
  properties: { id: { type: 'string' } },
  required: ['id'],
  additionalProperties: false,
};
const invoker: ActionInvoker = {
  invoke: async (call) => ({ output: { id: call.input['id'], plan: 'gold' } }),
};
const TOOLS_PER_SCENARIO: Record<string, number> = { s1: 0, s2: 1, s10: 10 };

function script(body: Record<string, unknown>) {
  const messages = body['messages'] as { role: string }[];
  const tools = TOOLS_PER_SCENARIO[String(body['model'])]!;
  if (tools === 0 || messages.at(-1)!.role === 'tool') return { text: 'Customer 42 is on gold.' };
  return {
    toolCalls: Array.from({ length: tools }, (_, i) => ({
      name: 'crm_lookup',
      arguments: `{"id":"${i}"}`,
    })),
  };
}

function agent(url: string, model: string): AgentDefinition {
  return {
    namespace: 'bench',
    name: model,
    version: '1.0.0',
    model: `openai-compatible:${model}`,
    base_url: url,
    instructions: SYSTEM,
    tools: ['crm.lookup'],
    max_steps: 5,
  };
}

function workflow(model: string): WorkflowDefinition {
  const loaded = loadWorkflowSource(
    `workflows:\n  - name: w\n    steps:\n      - { name: ask, type: agent, agent: "agent:bench/${model}@1.0.0", input: { prompt: Who is 42? } }\n`,
  );
  if (!loaded.ok) throw new Error(loaded.diagnostics[0]!.message);
  return loaded.workflows[0]!;
}

export async function run(): Promise<void> {
  const server = await new ScriptedModelServer((body) => script(body)).start();
  const runner = new AgentRunner({
    agents: Object.keys(TOOLS_PER_SCENARIO).map((m) => agent(server.url, m)),
    actions: () => ({ inputSchema: schema, description: 'Finds a customer' }),
    secrets: { get: async () => undefined },
    backends: [new AiSdkBackend()],
  });
  const lcRunner = new AgentRunner({
    agents: Object.keys(TOOLS_PER_SCENARIO).map((m) => ({
      ...agent(server.url, m),
      backend: 'langchain',
    })),
    actions: () => ({ inputSchema: schema, description: 'Finds a customer' }),
    secrets: { get: async () => undefined },
    backends: [new LangChainBackend()],
  });
  const provider = createOpenAICompatible({
    name: 'bench',
    baseURL: server.url,
    includeUsage: true,
  });
  const bareTools = {
    crm_lookup: tool({
      description: 'Finds a customer',
      inputSchema: jsonSchema<Record<string, unknown>>(schema as never),
      execute: async (input) =>
        (
          await invoker.invoke({
            target: { kind: 'plugin', slug: 'crm' },
            action: 'lookup',
            input,
            context: undefined as never,
          })
        ).output,
    }),
  };
  const bare = (model: string) => {
    const chatModel = provider.chatModel(model);
    return () =>
      generateText({
        model: chatModel,
        system: SYSTEM,
        prompt: 'Who is 42?',
        tools: bareTools,
        stopWhen: stepCountIs(5),
      });
  };
  const lcTools = [
    {
      type: 'function' as const,
      function: { name: 'crm_lookup', description: 'Finds a customer', parameters: schema },
    },
  ];
  // A bare LangChain tool loop, as a LangChain user writes it: bindTools, invoke, tool messages.
  const lcBare = (model: string) => {
    const chat = new ChatOpenAICompletions({
      model,
      apiKey: 'none',
      maxRetries: 0,
      configuration: { baseURL: server.url },
    }).bindTools(lcTools);
    return async () => {
      const messages: BaseMessage[] = [new SystemMessage(SYSTEM), new HumanMessage('Who is 42?')];
      for (let turn = 0; turn < 5; turn++) {
        const message = await chat.invoke(messages);
        if (!message.tool_calls?.length) return message.text;
        messages.push(message);
        for (const call of message.tool_calls) {
          const { output } = await invoker.invoke({
            target: { kind: 'plugin', slug: 'crm' },
            action: 'lookup',
            input: call.args,
            context: undefined as never,
          });
          messages.push(
            new ToolMessage({ content: JSON.stringify(output), tool_call_id: call.id! }),
          );
        }
      }
      throw new Error('no answer');
    };
  };
  const workflows = Object.fromEntries(
    Object.keys(TOOLS_PER_SCENARIO).map((m) => [m, workflow(m)]),
  );
  const weft =
    (model: string, agents = runner) =>
    async () => {
      const result = await runWorkflow(workflows[model]!, {}, { invoker, agents });
      if (result.status !== 'completed')
        throw new Error(JSON.stringify(result.steps['ask']?.error));
    };
  const fetchTrip = async () => {
    const response = await fetch(`${server.url}/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ model: 's1', messages: [{ role: 'user', content: 'hi' }] }),
    });
    await response.text();
  };
  const cases: Record<string, () => Promise<unknown>> = {
    fetch: fetchTrip,
    'bare s1': bare('s1'),
    'weft s1': weft('s1'),
    'bare s2': bare('s2'),
    'weft s2': weft('s2'),
    'bare s10': bare('s10'),
    'weft s10': weft('s10'),
    'lc bare s1': lcBare('s1'),
    'lc weft s1': weft('s1', lcRunner),
    'lc bare s2': lcBare('s2'),
    'lc weft s2': weft('s2', lcRunner),
    'lc bare s10': lcBare('s10'),
    'lc weft s10': weft('s10', lcRunner),
  };
  const samples: Record<string, number[]> = Object.fromEntries(
    Object.keys(cases).map((k) => [k, []]),
  );
  const cpu: Record<string, number> = Object.fromEntries(Object.keys(cases).map((k) => [k, 0]));
  const cpuSamples: Record<string, number[]> = Object.fromEntries(
    Object.keys(cases).map((k) => [k, []]),
  );
  for (let i = 0; i < 30; i++) for (const fn of Object.values(cases)) await fn();
  server.requests.length = 0;
  // Each round runs the cases in a new random order (seeded, so runs compare). A fixed cyclic
  // order, even rotated, has each case always follow the same one; measured, it gave a whole-s1
  // delta (weft − bare) of 8–32 µs against 87–131 µs shuffled, which inflated the per-turn figure.
  const entries = Object.entries(cases);
  const random = seeded(17);
  for (let i = 0; i < ROUNDS; i++) {
    for (let j = entries.length - 1; j > 0; j--) {
      const k = Math.floor(random() * (j + 1));
      [entries[j], entries[k]] = [entries[k]!, entries[j]!];
    }
    for (const [name, fn] of entries) {
      // The young generation emptied first, so the case's scavenges collect its own garbage.
      gc?.({ type: 'minor' });
      const cpuStart = process.cpuUsage();
      const began = process.hrtime.bigint();
      await fn();
      samples[name]!.push(Number(process.hrtime.bigint() - began));
      const used = process.cpuUsage(cpuStart);
      cpu[name]! += (used.user + used.system) * 1000;
      cpuSamples[name]!.push((used.user + used.system) * 1000);
    }
    // The server records every request: let go of them, or the heap grows by every round and
    // its ever longer garbage collections land on whichever case runs.
    server.requests.length = 0;
  }
  await server.close();
  const median = (values: number[]) =>
    [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;
  const wall = (name: string) => median(samples[name]!);
  const cpuOf = (name: string) => cpu[name]! / ROUNDS;
  const cpuMedian = (name: string) => median(cpuSamples[name]!);
  const limitNs = wall('fetch');
  const overheads = (m: (name: string) => number, prefix = '') => {
    const delta = (scenario: string) =>
      m(`${prefix}weft ${scenario}`) - m(`${prefix}bare ${scenario}`);
    const perTool = (delta('s10') - delta('s2')) / 9;
    return { step: delta('s1'), perTool, perTurn: delta('s2') - delta('s1') - perTool };
  };
  const byWall = overheads(wall);
  const byCpu = overheads(cpuOf);
  const lcWall = overheads(wall, 'lc ');
  const lcCpu = overheads(cpuOf, 'lc ');
  const byCpuMedian = overheads(cpuMedian);
  const lcCpuMedian = overheads(cpuMedian, 'lc ');
  const m = wall;
  const row = (name: string, nsPerOp: number, targetNs?: number, limit = true): BenchResult => ({
    name,
    nsPerOp,
    opsPerSec: 1e9 / nsPerOp,
    ratioToLimit: limit ? nsPerOp / limitNs : null,
    targetNs: targetNs ?? null,
    roundsNs: [],
  });
  const results = [
    row('bare fetch round trip to the scripted server (limit)', limitNs),
    row('bare AI SDK, s1: one turn (text)', m('bare s1')),
    row('weft agent step, s1', m('weft s1')),
    row('bare AI SDK, s2: 2 turns, 1 tool call', m('bare s2')),
    row('weft agent step, s2', m('weft s2')),
    row('bare AI SDK, s10: 2 turns, 10 tool calls', m('bare s10')),
    row('weft agent step, s10', m('weft s10')),
    row('CPU: bare AI SDK, s1', cpuOf('bare s1'), undefined, false),
    row('CPU: weft agent step, s1', cpuOf('weft s1'), undefined, false),
    row('CPU: bare AI SDK, s10', cpuOf('bare s10'), undefined, false),
    row('CPU: weft agent step, s10', cpuOf('weft s10'), undefined, false),
    row('wall: weft over bare, whole s1 step (run + step + turn)', byWall.step, undefined, false),
    row('wall: weft over bare, per model turn', byWall.perTurn, 300_000, false),
    row('wall: weft over bare, per tool call', byWall.perTool, 200_000, false),
    row('CPU: weft over bare, whole s1 step (run + step + turn)', byCpu.step, undefined, false),
    row('CPU: weft over bare, per model turn', byCpu.perTurn, 300_000, false),
    row('CPU: weft over bare, per tool call', byCpu.perTool, 200_000, false),
    row('CPU median: weft over bare, per model turn', byCpuMedian.perTurn, 300_000, false),
    row('CPU median: weft over bare, per tool call', byCpuMedian.perTool, 200_000, false),
    row('bare LangChain loop, s1', m('lc bare s1')),
    row('weft agent step (langchain), s1', m('lc weft s1')),
    row('bare LangChain loop, s2', m('lc bare s2')),
    row('weft agent step (langchain), s2', m('lc weft s2')),
    row('bare LangChain loop, s10', m('lc bare s10')),
    row('weft agent step (langchain), s10', m('lc weft s10')),
    row('wall: langchain over bare LangChain, whole s1 step', lcWall.step, undefined, false),
    row('wall: langchain over bare LangChain, per model turn', lcWall.perTurn, 300_000, false),
    row('wall: langchain over bare LangChain, per tool call', lcWall.perTool, 200_000, false),
    row('CPU: langchain over bare LangChain, whole s1 step', lcCpu.step, undefined, false),
    row('CPU: langchain over bare LangChain, per model turn', lcCpu.perTurn, 300_000, false),
    row('CPU: langchain over bare LangChain, per tool call', lcCpu.perTool, 200_000, false),
    row('CPU median: langchain over bare, per model turn', lcCpuMedian.perTurn, 300_000, false),
    row('CPU median: langchain over bare, per tool call', lcCpuMedian.perTool, 200_000, false),
  ];
  printTable(
    `agents: weft vs the bare AI SDK and bare LangChain, median of ${ROUNDS} runs`,
    results,
  );
  writeResults('agents', results, { rounds: ROUNDS });
}

/** A small seeded generator of numbers in [0, 1) (mulberry32), for a repeatable case order. */
function seeded(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
