import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ScriptedModelServer } from '@weft/agents/testing';
import { run } from '../test-support.js';

const examples = fileURLToPath(new URL('../../../../examples/agents/', import.meta.url));

let server: ScriptedModelServer;
let agentsDir: string;
/** The same agent on the langchain backend. */
let langchainDir: string;

beforeAll(async () => {
  server = await new ScriptedModelServer((_body, i) =>
    i % 2 === 0
      ? {
          toolCalls: [{ name: 'crm_lookup', arguments: '{"id":"42"}' }],
          usage: { prompt_tokens: 300, completion_tokens: 10 },
        }
      : { text: 'You are on the gold plan.', usage: { prompt_tokens: 350, completion_tokens: 12 } },
  ).start();
  // The example agent, pointed at the scripted server instead of Ollama.
  agentsDir = mkdtempSync(join(tmpdir(), 'weft-agents-'));
  const definition = readFileSync(join(examples, 'agents', 'support.yaml'), 'utf8');
  writeFileSync(
    join(agentsDir, 'support.yaml'),
    definition.replace('http://127.0.0.1:11434/v1', server.url),
  );
  langchainDir = mkdtempSync(join(tmpdir(), 'weft-agents-'));
  writeFileSync(
    join(langchainDir, 'support.yaml'),
    definition
      .replace('http://127.0.0.1:11434/v1', server.url)
      .replace('backend: ai-sdk', 'backend: langchain'),
  );
});
afterAll(() => server.close());

describe('weft workflow run with --agents', () => {
  it.each(['ai-sdk', 'langchain'])(
    'runs the example agent on %s: the model calls the shell connector tool, then answers',
    async (backend) => {
      const result = await run(
        'workflow',
        'run',
        join(examples, 'support.yaml'),
        '--agents',
        backend === 'ai-sdk' ? agentsDir : langchainDir,
        '--plugins',
        join(examples, 'plugins'),
        '-i',
        'customer=42',
        '-i',
        'question=What plan am I on?',
        '--output',
        'json',
      );
      expect(result.err).toBe('');
      expect(result.code).toBe(0);
      const document = JSON.parse(result.out) as { outputs: Record<string, unknown> };
      expect(document.outputs).toEqual({ reply: 'You are on the gold plan.', tokens: 672 });
      const tools = server.requests.at(-1)!.body['messages'] as { role: string; content: string }[];
      expect(tools.find((m) => m.role === 'tool')!.content).toContain('Ada Lovelace');
    },
  );

  it('validate refuses an agent step whose reference no definition satisfies', async () => {
    const file = join(mkdtempSync(join(tmpdir(), 'weft-agents-')), 'w.yaml');
    writeFileSync(
      file,
      'workflows:\n  - name: w\n    steps:\n      - { name: a, type: agent, agent: "agent:examples/support@^2", input: { prompt: hi } }\n',
    );
    const result = await run('workflow', 'validate', file, '--agents', agentsDir);
    expect(result.code).toBe(2);
    expect(result.out + result.err).toContain(
      'no version of agent examples/support matches "^2" (there are 1.0.0)',
    );
  });

  it('refuses an agent step before the run when no agent definitions are given', async () => {
    const file = join(mkdtempSync(join(tmpdir(), 'weft-agents-')), 'w.yaml');
    writeFileSync(
      file,
      'workflows:\n  - name: w\n    steps:\n      - { name: a, type: agent, agent: "agent:examples/support@^1", input: { prompt: hi } }\n',
    );
    const result = await run('workflow', 'run', file, '--output', 'json');
    expect(result.code).toBe(2);
    expect(result.out).toContain('unknown agent agent:examples/support@^1: no agents are loaded');
  });
});
