/**
 * One 100,000-item `for_each` run in a process of its own (spawned by `engine.bench.ts`), so
 * that its peak resident memory is that run's and not the garbage of earlier cases. Prints one
 * JSON line: the RSS before the run (the engine loaded, the items built), the kernel's peak RSS
 * of the process (`ru_maxrss`: exact, not sampled), and the run's wall time.
 */
import { loadWorkflowSource, runWorkflow } from '@weft/engine';
import type { ActionInvoker } from '@weft/core';

const ITEMS = 100_000;
const parallel = process.argv[2] !== 'sequential';

const invoker: ActionInvoker = { invoke: async (call) => ({ output: { v: call.input['v'] } }) };
const file = {
  workflows: [
    {
      name: 'each',
      inputs: { items: { type: 'array' } },
      steps: [
        {
          name: 'each',
          plugin: 'noop',
          action: 'run',
          for_each: '{{ inputs.items }}',
          parallel,
          input: { v: '{{ item }}' },
        },
      ],
    },
  ],
};
const loaded = loadWorkflowSource(JSON.stringify(file), { maxFileSize: 64 * 1024 * 1024 });
if (!loaded.ok) throw new Error(loaded.diagnostics[0]?.message);
const items = Array.from({ length: ITEMS }, (_, i) => i);
const rssBefore = process.memoryUsage().rss;
const started = performance.now();
const result = await runWorkflow(loaded.workflows[0]!, { items }, { invoker });
const ms = performance.now() - started;
if (result.status !== 'completed') throw new Error(`for_each run ${result.status}`);
process.stdout.write(
  `${JSON.stringify({ rssBefore, peakRss: process.resourceUsage().maxRSS * 1024, ms })}\n`,
);
