import { describe, expect, it } from 'vitest';
import type { WorkflowDefinition } from '@weft/engine';
import { libraryOf } from './library.js';

const wf = (name: string, steps: unknown[]) =>
  ({ name, version: '1.0.0', steps }) as unknown as WorkflowDefinition;

describe('libraryOf', () => {
  it('gives the workflow first, then the deployed workflows it calls, transitively and once', () => {
    const leaf = wf('leaf', [{ name: 'x', type: 'transform', input: {} }]);
    const middle = wf('middle', [
      { name: 'p', type: 'parallel', steps: [{ name: 'c', type: 'workflow', workflow: 'leaf' }] },
    ]);
    const top = wf('top', [
      { name: 'a', type: 'workflow', workflow: 'middle' },
      { name: 'b', type: 'workflow', workflow: 'leaf' },
      { name: 'gone', type: 'workflow', workflow: 'not-deployed' },
    ]);
    const deployed = new Map([leaf, middle, top].map((w) => [w.name, w]));
    expect(libraryOf(top, (n) => deployed.get(n)).map((w) => w.name)).toEqual([
      'top',
      'middle',
      'leaf',
    ]);
    expect(libraryOf(leaf, (n) => deployed.get(n))).toEqual([leaf]);
  });
});
