/**
 * A local agent run in one trace: `weft workflow run` (the built binary, OTLP http/json to a
 * collector on loopback) runs the example agent against a scripted OpenAI-compatible server. The
 * workflow, its steps, each model turn (a GenAI `chat <model>` span) and the agent's tool call
 * arrive in one trace, flushed before the command exits, and no span carries the prompt, the
 * answer or the key.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ScriptedModelServer } from '@weft/agents/testing';
import { startOtlpCollector, type OtlpCollector } from './otlp-collector.js';

const root = fileURLToPath(new URL('../../', import.meta.url));
const examples = join(root, 'examples/agents');
const bin = join(root, 'packages/cli/bin/weft.js');
const exec = promisify(execFile);
const KEY = 'sk-local-agent-key-never-exported';
const KEY_LINE = '  api_key_secret: SUPPORT_MODEL_KEY\n';

describe('weft workflow run with an agent and OTLP configured', () => {
  let collector: OtlpCollector;
  let model: ScriptedModelServer;
  let agentsDir: string;

  beforeAll(async () => {
    collector = await startOtlpCollector();
    model = await new ScriptedModelServer((_body, i) =>
      i === 0
        ? {
            toolCalls: [{ name: 'crm_lookup', arguments: '{"id":"42"}' }],
            usage: { prompt_tokens: 300, completion_tokens: 10 },
          }
        : {
            text: 'You are on the gold plan.',
            usage: { prompt_tokens: 350, completion_tokens: 12 },
          },
    ).start();
    agentsDir = mkdtempSync(join(tmpdir(), 'weft-agent-tracing-'));
    const definition = readFileSync(join(examples, 'agents', 'support.yaml'), 'utf8');
    writeFileSync(
      join(agentsDir, 'support.yaml'),
      definition
        .replace('http://127.0.0.1:11434/v1', model.url)
        .replace(/^agent:\n/m, `agent:\n${KEY_LINE}`),
    );
  });

  afterAll(async () => {
    await model?.close();
    await collector?.close();
    rmSync(agentsDir, { recursive: true, force: true });
  });

  it('exports the run, its steps, each model turn and the tool call in one trace before exiting', async () => {
    const { stdout } = await exec(
      process.execPath,
      [
        bin,
        'workflow',
        'run',
        join(examples, 'support.yaml'),
        '--agents',
        agentsDir,
        '--plugins',
        join(examples, 'plugins'),
        '-i',
        'customer=42',
        '-i',
        'question=What plan am I on?',
        '--output',
        'json',
      ],
      {
        env: {
          ...process.env,
          OTEL_EXPORTER_OTLP_ENDPOINT: collector.url,
          OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json',
          OTEL_SERVICE_NAME: 'weft-cli-under-test',
          OTEL_SDK_DISABLED: 'false',
          SUPPORT_MODEL_KEY: KEY,
        },
      },
    );
    expect(JSON.parse(stdout)).toMatchObject({ outputs: { reply: 'You are on the gold plan.' } });
    // Flushed before exit: the spans are here as soon as the command has ended.
    const spans = collector.spans.filter((s) => s.service === 'weft-cli-under-test');
    const names = spans.map((s) => s.name);
    expect(names).toEqual(
      expect.arrayContaining(['workflow customer-support', 'step answer', 'step reply']),
    );
    const turns = spans.filter((s) => s.name.startsWith('chat '));
    expect(turns).toHaveLength(2);
    expect(turns[0]!.kind).toBe(3);
    expect(turns[0]!.attributes).toMatchObject({
      'gen_ai.operation.name': 'chat',
      'gen_ai.usage.input_tokens': 300,
      'gen_ai.usage.output_tokens': 10,
    });
    expect(turns[1]!.attributes).toMatchObject({ 'gen_ai.usage.output_tokens': 12 });
    expect(new Set(spans.map((s) => s.traceId)).size).toBe(1);
    const step = spans.find((s) => s.name === 'step answer')!;
    const tool = spans.find((s) => s.name === 'action crm.lookup');
    const underStep = (id: string): boolean => {
      const span = spans.find((s) => s.spanId === id);
      if (!span) return false;
      return span.parentSpanId === step.spanId || underStep(span.parentSpanId);
    };
    for (const turn of turns) expect(underStep(turn.spanId)).toBe(true);
    expect(tool && underStep(tool.spanId)).toBe(true);
    const exported = JSON.stringify(spans);
    expect(exported).not.toContain('gold plan');
    expect(exported).not.toContain('What plan am I on');
    expect(exported).not.toContain(KEY);
  });
});
