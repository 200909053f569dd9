import { describe, expect, it } from 'vitest';
import type { WorkflowDefinition } from '@weft/engine';
import { validateDefinition } from '../parse-definition.js';
import { diffSteps, nextStepOf, remainingStepChanges } from './step-diff.js';

const workflow = (steps: object[]): WorkflowDefinition =>
  validateDefinition({ name: 'w', steps }, ['w']).workflow;
const t = (name: string) => ({ name, type: 'transform', input: { v: name } });
const call = (name: string, action: string) => ({
  name,
  connector: 'connector:acme/crm@1.0.0',
  action,
  input: {},
});

describe('the step changes between two revisions', () => {
  it('tells a rename (same place, type and target) from a removal and an addition', () => {
    const old = workflow([call('a', 'get'), call('b', 'send')]);
    expect(diffSteps(old, workflow([call('a', 'get'), call('c', 'send')]))).toEqual([
      { change: 'renamed', step: 'b', to: 'c' },
    ]);
    // Another action at the same place is another step.
    expect(diffSteps(old, workflow([call('a', 'get'), call('c', 'get')]))).toEqual([
      { change: 'removed', step: 'b' },
      { change: 'added', step: 'c' },
    ]);
  });

  it('lists as moved only the steps outside the longest run kept in order', () => {
    const old = workflow([t('a'), t('b'), t('c'), t('d')]);
    expect(diffSteps(old, workflow([t('b'), t('c'), t('d'), t('a')]))).toEqual([
      { change: 'moved', step: 'a' },
    ]);
    expect(diffSteps(old, old)).toEqual([]);
  });

  it('compares the children of a parallel block by their place in it', () => {
    const old = workflow([{ name: 'both', parallel: [t('x'), t('y')] }]);
    expect(diffSteps(old, workflow([{ name: 'both', parallel: [t('x'), t('z')] }]))).toEqual([
      { change: 'renamed', step: 'y', to: 'z' },
    ]);
  });
});

describe('what a revision changes of the steps a run has left', () => {
  const old = workflow([t('a'), t('b'), t('c'), t('d')]);

  it('reports a step it has not run that now comes before one it finished', () => {
    const next = workflow([t('a'), t('c'), t('b'), t('d')]);
    // Finished a and b; c now sits before b: it would never run.
    expect(remainingStepChanges(old, next, new Set(['a', 'b']))).toEqual([
      {
        change: 'step_moved_before',
        step: 'c',
        detail: 'step "c" moves before a step this run already finished',
      },
    ]);
    expect(nextStepOf(old, new Set(['a', 'b']))).toBe('c');
    // Before it starts, the same move changes nothing it has left.
    expect(remainingStepChanges(old, next, new Set())).toEqual([]);
  });

  it('ignores the changes of the steps it finished', () => {
    const next = workflow([t('a2'), t('b'), t('c')]);
    expect(remainingStepChanges(old, next, new Set(['a']))).toEqual([
      { change: 'step_removed', step: 'd', detail: 'step "d" is removed' },
    ]);
    expect(remainingStepChanges(old, next, new Set())).toMatchObject([
      { change: 'step_renamed', step: 'a' },
      { change: 'step_removed', step: 'd' },
    ]);
    expect(nextStepOf(old, new Set(['a', 'b', 'c', 'd']))).toBeNull();
  });
});
