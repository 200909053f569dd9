import { expect } from 'vitest';
import { TemplateError } from './errors.js';
import { evaluateTemplate } from './index.js';
import type { Scope } from './roots.js';

/** A scope shaped like the engine's, used by the tests. */
export function sampleScope(): Scope {
  return {
    inputs: {
      name: 'ada lovelace',
      count: 3,
      flag: true,
      empty: '',
      nothing: null,
      tags: ['a', 'b'],
    },
    env: { REGION: 'eu-west-1' },
    secrets: { TOKEN: 's3cr3t' },
    steps: {
      fetch: {
        status: 'success',
        output: {
          items: [
            { name: 'widget', id: 1 },
            { name: 'gadget', id: 2 },
          ],
          total: 2,
        },
      },
    },
    trigger: { payload: { 'key-with-dash': 'dashed', nested: { deep: 1 } } },
  };
}

/** Evaluates `source` against `scope` (the sample scope by default). */
export function run(source: string, scope: Scope = sampleScope()): unknown {
  return evaluateTemplate(source, scope);
}

/** The {@link TemplateError} thrown by `action`; fails the test when none (or another) is thrown. */
export function errorOf(action: () => unknown): TemplateError {
  try {
    action();
  } catch (error) {
    expect(error).toBeInstanceOf(TemplateError);
    return error as TemplateError;
  }
  throw new Error('expected a TemplateError, but nothing was thrown');
}

/** The error of evaluating `source` against `scope`. */
export function failure(source: string, scope: Scope = sampleScope()): TemplateError {
  return errorOf(() => run(source, scope));
}
