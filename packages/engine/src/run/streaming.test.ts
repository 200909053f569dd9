import type { StreamEvent } from '@weft/core';
import { describe, expect, it } from 'vitest';
import { TestInvoker } from '../test-support/invoker.js';
import { load } from '../test-support/load.js';
import { runWorkflow } from './run-workflow.js';

function workflows(yaml: string) {
  const result = load(yaml);
  if (!result.ok) throw new Error(result.diagnostics.map((d) => d.message).join('\n'));
  return result.workflows;
}

function twoSteps(streaming: string) {
  return workflows(`workflows:
  - name: w
    execution:
      streaming: ${streaming}
    steps:
      - { name: a, plugin: p, action: x }
      - { name: b, plugin: p, action: x, input: { n: '{{ steps.a.output.n }}' } }
    outputs:
      n: { value: '{{ steps.b.output.n }}' }
`)[0]!;
}

const invoker = () =>
  new TestInvoker({ 'p.x': (input) => ({ n: ((input['n'] as number) ?? 0) + 1 }) });

async function run(streaming: string) {
  const events: StreamEvent[] = [];
  const result = await runWorkflow(
    twoSteps(streaming),
    {},
    {
      invoker: invoker(),
      onEvent: (e) => events.push(e),
    },
  );
  return { result, types: events.map((e) => `${e.type} ${e.step_name}`.trim()) };
}

describe('execution.streaming in a run', () => {
  it('passes on only the event types listed in events', async () => {
    const { result, types } = await run('{ events: [step.completed, workflow.completed] }');
    expect(types).toEqual(['step.completed a', 'step.completed b', 'workflow.completed']);
    expect(result.outputs).toEqual({ n: 2 });
  });

  it('passes on no event with enabled: false, and the run and its result are unchanged', async () => {
    const { result, types } = await run('{ enabled: false, events: [step.completed] }');
    expect(types).toEqual([]);
    expect(result.status).toBe('completed');
    expect(result.outputs).toEqual({ n: 2 });
    expect(Object.keys(result.steps)).toEqual(['a', 'b']);
  });

  it('gives observe every event whatever the list says', async () => {
    const seen: string[] = [];
    const streamed: string[] = [];
    await runWorkflow(
      twoSteps('{ enabled: false }'),
      {},
      {
        invoker: invoker(),
        observe: (e) => seen.push(e.type),
        onEvent: (e) => streamed.push(e.type),
      },
    );
    expect(streamed).toEqual([]);
    expect(seen).toHaveLength(5);
  });

  it('passes on every event without a list', async () => {
    const { types } = await run('{ protocol: sse }');
    expect(types).toEqual([
      'step.started a',
      'step.completed a',
      'step.started b',
      'step.completed b',
      'workflow.completed',
    ]);
  });

  it('filters a subworkflow’s events by the calling workflow’s list', async () => {
    const [parent, child] = workflows(`workflows:
  - name: parent
    execution:
      streaming: { events: [step.started] }
    steps:
      - { name: call, type: workflow, workflow: child }
  - name: child
    steps:
      - { name: inner, plugin: p, action: x }
`);
    const events: StreamEvent[] = [];
    const result = await runWorkflow(
      parent!,
      {},
      {
        invoker: invoker(),
        resolveWorkflow: () => child,
        onEvent: (e) => events.push(e),
      },
    );
    expect(result.status).toBe('completed');
    expect(events.map((e) => e.type)).toEqual(['step.started', 'step.started']);
  });
});
