/**
 * The workload of the scale benchmark: plugin `count` (action `step` adds 1 to `input.v`, at
 * once) and a 5-step workflow chaining it, so that every step is one action call.
 */
import type { ConnectorServiceOptions } from '@weft/sdk/service';

/** Steps per execution of {@link FIVE_STEPS}. */
export const STEPS = 5;

/** The 5-step workflow: each step adds 1; the output `v` is 5. */
export const FIVE_STEPS = `workflows:
  - name: five
    version: 1.0.0
    steps:
      - { name: s1, plugin: count, action: step, input: { v: 0 } }
      - { name: s2, plugin: count, action: step, input: { v: '{{ steps.s1.output.v }}' } }
      - { name: s3, plugin: count, action: step, input: { v: '{{ steps.s2.output.v }}' } }
      - { name: s4, plugin: count, action: step, input: { v: '{{ steps.s3.output.v }}' } }
      - { name: s5, plugin: count, action: step, input: { v: '{{ steps.s4.output.v }}' } }
    outputs: { v: { value: '{{ steps.s5.output.v }}' } }
`;

/**
 * The connector and handlers of plugin `count` as a connector service serves them, with the
 * largest concurrency cap (docs/protocol.md#limits: 100) so that the cap is not what the benchmark measures.
 */
export const COUNT_SERVICE: Pick<ConnectorServiceOptions, 'connector' | 'handlers'> = {
  connector: {
    connector: {
      kind: 'function',
      name: 'count',
      namespace: 'bench',
      version: '1.0.0',
      concurrency: 100,
    },
    actions: [{ name: 'step' }],
  },
  handlers: {
    step: (input: { v: number }) => Promise.resolve({ v: input.v + 1 }),
  },
};

/** Task consumer settings of the benchmark's connector services. */
export const TASK_OPTIONS = { concurrency: 200 } as const;
