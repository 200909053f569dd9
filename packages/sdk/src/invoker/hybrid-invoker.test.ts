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
      return Promise.resolve({ output: { by: name } });
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
    expect(await hybrid.forStep(step('cloud')).invoke(call('p', 'up'))).toEqual({
      output: { by: 'cloud' },
    });
    expect(await hybrid.forStep(step('local')).invoke(call('p', 'here'))).toEqual({
      output: { by: 'local' },
    });
    expect(await hybrid.forStep(step()).invoke(call('p', 'plain'))).toEqual({
      output: { by: 'local' },
    });
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

  it('places the steps of cloud-marked connectors on the server, after the step field', () => {
    const local = recorder('local');
    const cloud = recorder('cloud');
    const marked = (target: ActionCall['target']) =>
      target.kind === 'plugin' ? target.slug === 'calc' : target.ref.includes('/calc@');
    const hybrid = new HybridInvoker({ local, cloud, cloudPlaced: marked });
    expect(hybrid.placeOf({ kind: 'plugin', slug: 'calc' }, undefined)).toBe('cloud');
    expect(hybrid.placeOf({ kind: 'connector', ref: 'connector:t/calc@1.0.0' }, undefined)).toBe(
      'cloud',
    );
    expect(hybrid.placeOf({ kind: 'plugin', slug: 'other' }, undefined)).toBe('local');
    expect(hybrid.placeOf({ kind: 'plugin', slug: 'calc' }, 'local')).toBe('local');
    const override = new HybridInvoker({ local, cloud, cloudPlaced: marked, override: 'local' });
    expect(override.placeOf({ kind: 'plugin', slug: 'calc' }, undefined)).toBe('local');
  });

  it('checks local steps against the local connectors only', () => {
    const local = recorder('local');
    const cloud = recorder('cloud');
    const hybrid = new HybridInvoker({ local, cloud });
    hybrid.forStep(step('local')).check!({ kind: 'plugin', slug: 'p' }, 'a');
    hybrid.forStep(step('cloud')).check!({ kind: 'plugin', slug: 'p' }, 'b');
    expect(local.checked).toEqual(['a']);
  });

  it('sends the steps placed self_hosted to the router invoker, by run or by plugin', async () => {
    const local = recorder('local');
    const cloud = recorder('cloud');
    const selfHosted = recorder('router');
    const byPlugin = new HybridInvoker({
      local,
      cloud,
      selfHosted,
      override: { slack: 'self_hosted' },
    });
    expect(await byPlugin.forStep(step('cloud')).invoke(call('slack', 'send'))).toEqual({
      output: { by: 'router' },
    });
    expect(await byPlugin.forStep(step('cloud')).invoke(call('other', 'up'))).toEqual({
      output: { by: 'cloud' },
    });
    expect(await byPlugin.forStep(step()).invoke(call('other', 'here'))).toEqual({
      output: { by: 'local' },
    });
    const all = new HybridInvoker({ local, cloud, selfHosted, override: 'self_hosted' });
    expect(await all.forStep(step('local')).invoke(call('p', 'routed'))).toEqual({
      output: { by: 'router' },
    });
    const byDefault = new HybridInvoker({
      local,
      cloud,
      selfHosted,
      defaultExecution: 'self_hosted',
    });
    expect(byDefault.placeOf({ kind: 'plugin', slug: 'p' }, undefined)).toBe('self_hosted');
    expect(byDefault.placeOf({ kind: 'plugin', slug: 'p' }, 'cloud')).toBe('cloud');
    expect([local.calls, cloud.calls, selfHosted.calls]).toEqual([
      ['here'],
      ['up'],
      ['send', 'routed'],
    ]);
  });

  it('checks self_hosted steps with the router invoker, never the local connectors', () => {
    const local = recorder('local');
    const selfHosted = recorder('router');
    const hybrid = new HybridInvoker({
      local,
      cloud: recorder('cloud'),
      selfHosted,
      override: { slack: 'self_hosted' },
    });
    hybrid.forStep(step('local')).check!({ kind: 'plugin', slug: 'slack' }, 'send');
    expect([local.checked, selfHosted.checked]).toEqual([[], ['send']]);
    expect(() =>
      hybrid.forStep(step()).check!({ kind: 'connector', ref: 'connector:nope' }, 'send'),
    ).toThrow(expect.objectContaining({ details: { field: 'connector', constraint: 'pattern' } }));
  });

  it('refuses a self_hosted step before the run when there is no router, naming its plugin', async () => {
    const local = recorder('local');
    const cloud = recorder('cloud');
    const hybrid = new HybridInvoker({ local, cloud, override: { slack: 'self_hosted' } });
    const refusal = expect.objectContaining({
      code: 'VALIDATION',
      message: expect.stringContaining(
        'plugin "slack" is placed self_hosted in this hybrid run, which needs routerUrl',
      ),
      details: { field: 'routerUrl', constraint: 'required' },
    });
    expect(() => hybrid.forStep(step()).check!({ kind: 'plugin', slug: 'slack' }, 'send')).toThrow(
      refusal,
    );
    await expect(hybrid.forStep(step()).invoke(call('slack', 'send'))).rejects.toThrow(refusal);
    // Steps of other plugins need no router.
    hybrid.forStep(step('cloud')).check!({ kind: 'plugin', slug: 'other' }, 'up');
    expect([local.calls, cloud.calls]).toEqual([[], []]);
  });

  it('refuses an override or default that is not local, cloud, self_hosted or a map of them', () => {
    const local = recorder('local');
    const cloud = recorder('cloud');
    expect(() => new HybridInvoker({ local, cloud, override: 'moon' as 'local' })).toThrow(
      'execution must be one of "local", "cloud", "self_hosted", or a map from plugin slug to one of them, got "moon"',
    );
    expect(
      () => new HybridInvoker({ local, cloud, override: { slack: 'edge' as 'local' } }),
    ).toThrow(
      expect.objectContaining({
        message: 'execution["slack"] must be one of "local", "cloud", "self_hosted", got "edge"',
        details: { field: 'execution.slack', constraint: 'enum' },
      }),
    );
    expect(() => new HybridInvoker({ local, cloud, override: ['cloud'] as never })).toThrow(
      expect.objectContaining({ details: { field: 'execution', constraint: 'enum' } }),
    );
    expect(() => new HybridInvoker({ local, cloud, override: 'Self_Hosted' as never })).toThrow(
      'got "Self_Hosted"',
    );
    expect(
      () => new HybridInvoker({ local, cloud, defaultExecution: 'router' as 'local' }),
    ).toThrow(
      expect.objectContaining({ details: { field: 'defaultExecution', constraint: 'enum' } }),
    );
  });
});
