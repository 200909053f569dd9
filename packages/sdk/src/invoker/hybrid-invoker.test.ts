import { describe, expect, it } from 'vitest';
import type { ActionCall, ActionInvoker } from '@weft/core';
import type { StepDefinition } from '@weft/engine';
import { HybridInvoker } from './hybrid-invoker.js';

/** An invoker that records the calls it got. */
function recorder(name: string): ActionInvoker & { calls: string[]; checked: string[] } {
  const calls: string[] = [];
  const checked: string[] = [];
  return {
    calls,
    checked,
    invoke: (call: ActionCall) => {
      calls.push(`${call.action}`);
      return Promise.resolve({ by: name });
    },
    check: (_target, action) => void checked.push(action),
  };
}

const call = (plugin: string, action: string) =>
  ({ target: { kind: 'plugin', slug: plugin }, action, input: {}, context: {} }) as ActionCall;
const step = (execution?: 'local' | 'cloud') =>
  ({ name: 's', plugin: 'p', action: 'a', ...(execution ? { execution } : {}) }) as StepDefinition;

describe('the hybrid invoker', () => {
  it('places a step by its execution field, and steps without one locally', async () => {
    const local = recorder('local');
    const cloud = recorder('cloud');
    const hybrid = new HybridInvoker({ local, cloud });
    expect(await hybrid.forStep(step('cloud')).invoke(call('p', 'up'))).toEqual({ by: 'cloud' });
    expect(await hybrid.forStep(step('local')).invoke(call('p', 'here'))).toEqual({ by: 'local' });
    expect(await hybrid.forStep(step()).invoke(call('p', 'plain'))).toEqual({ by: 'local' });
    expect([local.calls, cloud.calls]).toEqual([['here', 'plain'], ['up']]);
  });

  it('lets the run override every step, or the steps of one plugin', () => {
    const local = recorder('local');
    const cloud = recorder('cloud');
    const all = new HybridInvoker({ local, cloud, override: 'cloud' });
    expect(all.placeOf({ kind: 'plugin', slug: 'p' }, 'local')).toBe('cloud');
    const byPlugin = new HybridInvoker({ local, cloud, override: { slack: 'cloud' } });
    expect(byPlugin.placeOf({ kind: 'plugin', slug: 'slack' }, 'local')).toBe('cloud');
    expect(byPlugin.placeOf({ kind: 'plugin', slug: 'other' }, 'cloud')).toBe('cloud');
    expect(byPlugin.placeOf({ kind: 'plugin', slug: 'other' }, undefined)).toBe('local');
    expect(
      byPlugin.placeOf({ kind: 'connector', ref: 'connector:acme/slack@1.0.0' }, undefined),
    ).toBe('cloud');
    const cloudFirst = new HybridInvoker({ local, cloud, defaultExecution: 'cloud' });
    expect(cloudFirst.placeOf({ kind: 'plugin', slug: 'p' }, undefined)).toBe('cloud');
  });

  it('checks local steps against the local connectors only', () => {
    const local = recorder('local');
    const cloud = recorder('cloud');
    const hybrid = new HybridInvoker({ local, cloud });
    hybrid.forStep(step('local')).check!({ kind: 'plugin', slug: 'p' }, 'a');
    hybrid.forStep(step('cloud')).check!({ kind: 'plugin', slug: 'p' }, 'b');
    expect(local.checked).toEqual(['a']);
  });

  it('refuses an override that is not local, cloud or a map of them', () => {
    const local = recorder('local');
    const cloud = recorder('cloud');
    expect(() => new HybridInvoker({ local, cloud, override: 'moon' as 'local' })).toThrow(
      'execution must be "local", "cloud" or a map from plugin slug to one of them, got "moon"',
    );
    expect(
      () => new HybridInvoker({ local, cloud, override: { slack: 'edge' as 'local' } }),
    ).toThrow('execution["slack"] must be "local" or "cloud", got "edge"');
  });
});
