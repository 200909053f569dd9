import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { createMock } from '../testing/index.js';
import { loadWorkflow } from './load.js';
import { Weft } from './weft.js';

function file(text: string): string {
  const path = join(mkdtempSync(join(tmpdir(), 'weft-sdk-')), 'flow.yaml');
  writeFileSync(path, text);
  return path;
}

const flow = file(`workflows:
  - name: greet
    inputs: { who: { required: true } }
    steps:
      - { name: hello, plugin: greeter, action: hello, input: { name: '{{ inputs.who }}', key: '{{ secrets.GREETER_KEY }}' } }
    outputs: { message: { value: '{{ steps.hello.output.message }}' } }
  - name: other
    steps: [{ name: t, type: transform, input: { x: 1 } }]
`);

function lines(): { stream: Writable; text: () => string } {
  let text = '';
  return {
    stream: new Writable({ write: (chunk, _e, done) => ((text += String(chunk)), done()) }),
    text: () => text,
  };
}

describe('the Weft client', () => {
  it('loads a file, registers a handler and executes a workflow by name', async () => {
    const weft = new Weft({
      logLevel: 'silent',
      environment: { GREETER_KEY: 'k-123456' },
      inheritEnvironment: false,
    });
    weft.registerHandler('greeter.hello', (input: Record<string, unknown>, context) => ({
      message: `hello ${String(input['name'])} from ${context.stepName}`,
    }));
    await weft.loadWorkflows(flow);
    expect([...weft.workflows()].map((w) => w.name)).toEqual(['greet', 'other']);
    const result = await weft.execute('greet', { who: 'ann' });
    expect(result.status).toBe('completed');
    expect(result.outputs).toEqual({ message: 'hello ann from hello' });
  });

  it('executes every workflow with executeAll', async () => {
    const weft = createMock({ environment: { GREETER_KEY: 'x' } }).mockAction('greeter.hello', {
      message: 'hi',
    });
    await weft.loadWorkflows(flow);
    const results = await weft.executeAll({ who: 'bo' });
    expect(results.map((r) => [r.workflow, r.status])).toEqual([
      ['greet', 'completed'],
      ['other', 'failed'],
    ]);
    expect(results[1]!.error?.details).toMatchObject({
      field: 'inputs.who',
      constraint: 'unknown',
    });
  });

  it('logs one structured line per step end with timing, never a secret value', async () => {
    const log = lines();
    const weft = new Weft({
      logDestination: log.stream,
      environment: { GREETER_KEY: 'k-123456' },
      inheritEnvironment: false,
    });
    weft.registerHandler('greeter.hello', (input: Record<string, unknown>) => ({
      message: `key ${String(input['key'])}`,
    }));
    await weft.loadWorkflows(flow);
    await weft.execute('greet', { who: 'ann' });
    const records = log
      .text()
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(records.map((r) => r['msg'])).toEqual(['step hello success', 'workflow greet failed']);
    expect(records[0]).toMatchObject({ workflow: 'greet', step: 'hello', status: 'success' });
    expect(typeof records[0]!['duration_ms']).toBe('number');
    expect(log.text()).not.toContain('k-123456');
  });

  it('refuses an unknown workflow name with a did-you-mean', async () => {
    const weft = new Weft({ logLevel: 'silent' });
    await weft.loadWorkflows(flow);
    await expect(weft.execute('gret')).rejects.toThrow(
      'no workflow named "gret" is loaded (did you mean "greet"?)',
    );
  });

  it('refuses a broken file with every error in the message', async () => {
    const weft = new Weft({ logLevel: 'silent' });
    const broken = file('workflows:\n  - name: x\n    stepz: []\n');
    await expect(weft.loadWorkflows(broken)).rejects.toThrow(
      /flow\.yaml:3:5: error: workflows\[0\]\.stepz: unknown key "stepz" \(did you mean "steps"\?\)/,
    );
  });

  it('refuses unknown execution modes, cloud without a key and out-of-range options', () => {
    expect(() => new Weft({ executionMode: 'moon' as 'cloud' })).toThrow(
      'executionMode must be one of "local", "self_hosted", "cloud", "hybrid", got "moon"',
    );
    expect(
      () =>
        new Weft({
          executionMode: 'cloud',
          cloudUrl: 'http://127.0.0.1:1',
          inheritEnvironment: false,
        }),
    ).toThrow('execution mode "cloud" needs an API key');
    expect(
      () => new Weft({ executionMode: 'hybrid', apiKey: 'k', inheritEnvironment: false }),
    ).toThrow(
      'execution mode "hybrid" needs the server\'s URL: pass cloudUrl or set WORKFLOW_CLOUD_URL',
    );
    expect(() => new Weft({ executionMode: 'cloud', apiKey: 'k', cloudUrl: 'ftp://x' })).toThrow(
      "cloudUrl must be the server's absolute http(s) URL",
    );
    expect(() => new Weft({ timeout: 601 })).toThrow(
      'timeout must be an integer from 1 to 600 seconds',
    );
  });

  it('loads a single workflow with loadWorkflow', async () => {
    expect((await loadWorkflow(flow, 'other')).name).toBe('other');
    await expect(loadWorkflow(flow)).rejects.toThrow('holds 2 workflows');
  });
});

describe('the testing kit', () => {
  it('answers actions with mocked responses and records the calls', async () => {
    const mock = createMock({ environment: { GREETER_KEY: 'x' } });
    mock.mockAction('greeter.hello', (input) => ({ message: `mocked ${String(input['name'])}` }));
    await mock.loadWorkflows(flow);
    const result = await mock.execute('greet', { who: 'cy' });
    expect(result.steps['hello']!.output).toEqual({ message: 'mocked cy' });
    expect(mock.callsOf('greeter.hello')).toEqual([{ name: 'cy', key: 'x' }]);
  });

  it('refuses an unmocked action before anything runs, naming it', async () => {
    const mock = createMock({ environment: { GREETER_KEY: 'x' } }).mockAction('greeter.helo', {});
    await mock.loadWorkflows(flow);
    const result = await mock.execute('greet', { who: 'cy' });
    expect(result.error?.message).toContain(
      'no mocked response for greeter.hello (did you mean "greeter.helo"?)',
    );
    expect(mock.calls).toHaveLength(0);
  });
});
