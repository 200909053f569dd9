import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
// The real weft server over loopback HTTP; test-only import.
import { createLocalKey, startServer, type RunningServer } from '@weft/server';

const EMAIL = 'jane.doe@example.com';
const FLOW = `workflows:
  - name: reply
    inputs: { text: { required: true } }
    steps:
      - name: answer
        type: transform
        input: { text: '{{ inputs.text }}' }
        guardrails: { piiDetection: true, toxicityThreshold: 0.4, blockedTopics: [gambling] }
      - name: tolerant
        type: transform
        input: { copy: '{{ inputs.text }}' }
        condition: '{{ inputs.text == "go on" }}'
        guardrails: { outputSchema: { type: object, required: [missing] } }
        continue_on_error: true
    outputs: { text: { value: '{{ steps.answer.output.text }}' } }
`;

describe('guardrails in server runs', () => {
  let server: RunningServer;
  let key: string;
  const dir = mkdtempSync(join(tmpdir(), 'weft-guardrails-server-'));

  beforeAll(async () => {
    server = await startServer({
      port: 0,
      host: '127.0.0.1',
      dataDir: join(dir, 'data'),
      logLevel: 'error',
    });
    key = (await createLocalKey({ dataDir: join(dir, 'data') }, { name: 'guardrails' })).key;
  }, 30_000);

  afterAll(async () => {
    await server?.close();
  });

  const start = async (text: string) => {
    const response = await fetch(`${server.url}/workflows/executions`, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${key}`,
        'content-type': 'application/json',
        prefer: 'wait=20',
      },
      body: JSON.stringify({ workflow: FLOW, inputs: { text } }),
    });
    return { status: response.status, body: (await response.json()) as Record<string, unknown> };
  };

  it('completes a run whose outputs meet the guardrails', async () => {
    const { status, body } = await start('the weather is fine');
    expect(status).toBe(200);
    expect(body).toMatchObject({
      status: 'completed',
      result: { outputs: { text: 'the weather is fine' } },
    });
  });

  it('fails a step whose output carries personal data, by kind, without the data', async () => {
    const { body } = await start(`write to ${EMAIL}`);
    expect(body['status']).toBe('failed');
    // The run's inputs and the step's input are the caller's own text, recorded as given; what
    // the step made is not.
    const withoutInputs = (json: string) =>
      JSON.stringify(
        JSON.parse(json, (k: string, v: unknown) =>
          k === 'input' || k === 'inputs' ? undefined : v,
        ),
      );
    expect(withoutInputs(JSON.stringify(body))).not.toContain(EMAIL);
    const record = await fetch(`${server.url}/workflows/executions/${body['execution_id']}`, {
      headers: { authorization: `Bearer ${key}` },
    });
    const text = await record.text();
    expect(withoutInputs(text)).not.toContain(EMAIL);
    expect(JSON.parse(text).result.steps.answer.input).toEqual({ text: `write to ${EMAIL}` });
    expect(JSON.parse(text).inputs).toEqual({ text: `write to ${EMAIL}` });
    expect(text).toContain('"field":"guardrails.piiDetection"');
    expect(text).toContain('"found":{"email":1}');
  });

  it('fails toxic and off-topic outputs, and lets continue_on_error go on', async () => {
    expect(JSON.stringify((await start('he gambles')).body)).toContain(
      '"constraint":"blocked_topic"',
    );
    expect(JSON.stringify((await start('shit, what the fuck')).body)).toContain(
      '"constraint":"max_toxicity"',
    );
    const { body } = await start('go on');
    expect(body).toMatchObject({ status: 'completed', result: { outputs: { text: 'go on' } } });
  });
});
