/**
 * `weft workflow run -o json` writes the run's document, and only it, to stdout: the warnings of
 * the model libraries (the AI SDK warns that an OpenAI-compatible model runs `output_schema` in
 * a compatibility mode) are log lines on stderr. Checked with the real CLI in a child process:
 * the AI SDK's default writes to the process's own stdout, which an in-process run never sees.
 */
import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ScriptedModelServer } from '@weft/agents/testing';
import { root } from './router-support.js';

const weft = `${root}node_modules/.bin/weft`;
const work = mkdtempSync(join(tmpdir(), 'weft-json-stdout-'));
let model: ScriptedModelServer;

beforeAll(async () => {
  model = await new ScriptedModelServer(() => ({
    text: '{"answer":"gold"}',
    usage: { prompt_tokens: 10, completion_tokens: 5 },
  })).start();
});
afterAll(async () => {
  await model.close();
  rmSync(work, { recursive: true, force: true });
});

function runCli(args: string[], cwd: string) {
  const child = spawn(weft, args, { cwd, env: { ...process.env, NO_COLOR: '1' } });
  let out = '';
  let err = '';
  child.stdout.on('data', (c: Buffer) => (out += c.toString()));
  child.stderr.on('data', (c: Buffer) => (err += c.toString()));
  return new Promise<{ code: number | null; out: string; err: string }>((resolve) =>
    child.once('exit', (code) => resolve({ code, out, err })),
  );
}

describe('weft workflow run -o json with an agent whose model warns', () => {
  it('prints only the JSON document on stdout and the warning on stderr', async () => {
    mkdirSync(join(work, 'agents'), { recursive: true });
    writeFileSync(
      join(work, 'agents', 'typed.yaml'),
      [
        'agent:',
        '  namespace: test',
        '  name: typed',
        '  version: 1.0.0',
        '  model: openai-compatible:llama3.1',
        `  base_url: ${model.url}`,
        '  output_schema:',
        '    type: object',
        '    properties: { answer: { type: string } }',
        '    required: [answer]',
        '',
      ].join('\n'),
    );
    writeFileSync(
      join(work, 'flow.yaml'),
      "workflows:\n  - name: typed\n    steps:\n      - { name: ask, type: agent, agent: 'agent:test/typed@1.0.0', input: { prompt: plan? } }\n",
    );
    const { code, out, err } = await runCli(['workflow', 'run', 'flow.yaml', '-o', 'json'], work);
    expect(code, err).toBe(0);
    expect(() => JSON.parse(out) as unknown, out).not.toThrow();
    expect((JSON.parse(out) as { status: string }).status).toBe('completed');
    expect(out).not.toContain('AI SDK');
    expect(err).toContain('AI SDK warning (');
  }, 60_000);
});
