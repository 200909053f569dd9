/**
 * One 100,000-item `for_each` run in a process of its own (spawned by `engine.bench.ts`), so
 * that its peak resident memory is that run's and not the garbage of earlier cases. Prints one
 * JSON line: the RSS before the run (the engine loaded, the items built), the kernel's peak RSS
 * of the process (`ru_maxrss`: exact, not sampled), and the run's wall time.
 */
import { runWorkflow } from '@weft/engine';
import type { ActionInvoker } from '@weft/core';
import { forEach, ITEMS } from './workflows.js';

const parallel = process.argv[2] !== 'sequential';
const invoker: ActionInvoker = { invoke: async (call) => ({ output: { v: call.input['v'] } }) };
const workflow = forEach(parallel);
const items = Array.from({ length: ITEMS }, (_, i) => i);
const rssBefore = process.memoryUsage().rss;
const started = performance.now();
const result = await runWorkflow(workflow, { items }, { invoker });
const ms = performance.now() - started;
if (result.status !== 'completed') throw new Error(`for_each run ${result.status}`);
process.stdout.write(
  `${JSON.stringify({ rssBefore, peakRss: process.resourceUsage().maxRSS * 1024, ms })}\n`,
);
