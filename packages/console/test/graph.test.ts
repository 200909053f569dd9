import { describe, expect, it } from 'vitest';
import { ganttOf } from '../src/graph/gantt.js';
import { layoutWorkflow, nodeStates } from '../src/graph/model.js';
import type { StepView } from '../src/timeline.js';

const DEFINITION = {
  name: 'w',
  steps: [
    { name: 'a', type: 'transform' },
    {
      name: 'fan',
      parallel: [
        { name: 'l', plugin: 'p', action: 'x' },
        { name: 'r', workflow: 'child', condition: '{{ true }}' },
      ],
    },
    { id: 'z', plugin: 'p', action: 'y', for_each: '{{ inputs.list }}', continue_on_error: true },
  ],
};

describe('the workflow graph', () => {
  it('joins parallel branches again at the next step, and marks what each step is', () => {
    const graph = layoutWorkflow(DEFINITION);
    expect(graph.edges.map((e) => `${e.from}>${e.to}`).sort()).toEqual([
      'a>fan',
      'fan/l>z',
      'fan/r>z',
      'fan>fan/l',
      'fan>fan/r',
    ]);
    const node = (path: string) => graph.nodes.find((n) => n.path === path)!;
    expect(node('fan/l').y).toBe(node('fan/r').y);
    expect(node('z').y).toBeGreaterThan(node('fan/l').y);
    expect(node('fan/l')).toMatchObject({ kind: 'p.x', continueOnError: false });
    expect(node('fan/r')).toMatchObject({
      kind: 'workflow child',
      calls: 'child',
      condition: '{{ true }}',
    });
    expect(node('z')).toMatchObject({
      name: 'z',
      forEach: '{{ inputs.list }}',
      continueOnError: true,
    });
    expect(layoutWorkflow({ steps: 'nope' }).nodes).toEqual([]);
  });

  it('gives a node the worst status of its starts, and a for_each its item count', () => {
    const states = nodeStates([
      { name: 'z', depth: 0, status: 'success', output: [1, 2, 3] },
      { name: 'a', depth: 0, status: 'success' },
      { name: 'a [2]', depth: 0, status: 'failed' },
    ]);
    expect(states.get('z')).toMatchObject({ status: 'success', items: 3 });
    expect(states.get('a')).toMatchObject({ status: 'failed' });
    expect(states.get('a')!.views).toHaveLength(2);
  });
});

describe('the run timeline', () => {
  const at = (s: number) => new Date(Date.UTC(2026, 0, 1, 0, 0, s)).toISOString();
  const t = (s: number) => Date.parse(at(s));

  it('draws a bar per attempt of a retried step, a running step to now, and the waits', () => {
    const steps: StepView[] = [
      {
        name: 'flaky',
        depth: 0,
        status: 'success',
        startedAt: at(10),
        durationMs: 5000,
        attemptLog: [
          { started_at: at(10), finished_at: at(11), error_code: 'TIMEOUT' },
          { started_at: at(13), finished_at: at(15) },
        ],
      },
      { name: 'slow', depth: 0, status: 'running', startedAt: at(15) },
    ];
    const gantt = ganttOf(steps, [{ kind: 'approval', since: at(0), until: at(10) }], t(20));
    expect(gantt.bars.map((b) => [b.step, b.label, b.status, b.start, b.end])).toEqual([
      ['approval', 'waiting for approval', 'waiting', t(0), t(10)],
      ['flaky', 'flaky #1', 'failed', t(10), t(11)],
      ['flaky', 'flaky #2', 'success', t(13), t(15)],
      ['slow', 'slow', 'running', t(15), t(20)],
    ]);
    expect([gantt.from, gantt.to]).toEqual([t(0), t(20)]);
  });
});
