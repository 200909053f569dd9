/**
 * The work of the peer suite, the same for every system: Windmill's published benchmark computes
 * a naive Fibonacci number per task, `fibo(10)` for its lightweight tasks and `fibo(33)` for its
 * long-running ones (https://www.windmill.dev/docs/misc/benchmarks/competitors), each task
 * run after the previous one. Here each task also takes the previous task's counter and returns
 * it plus one, so every system passes a value from one task to the next. The time spent inside
 * `fibo` is added up in {@link work}, so a case's overhead is its wall time minus its own work.
 */

/** One shape: how many tasks run in sequence and the Fibonacci number each computes. */
export interface Shape {
  readonly key: string;
  readonly label: string;
  readonly tasks: number;
  readonly n: number;
}

export const SHAPES: readonly Shape[] = [
  { key: 'light40', label: 'windmill shape: 40 light tasks, fibo(10)', tasks: 40, n: 10 },
  { key: 'long10', label: 'windmill shape: 10 long tasks, fibo(33)', tasks: 10, n: 33 },
  { key: 'chain10', label: 'durable chain: 10 journaled steps, counter + 1', tasks: 10, n: 0 },
];

/** What one task returns: the counter (previous + 1) and the Fibonacci number. */
export interface TaskOutput {
  i: number;
  value: number;
}

/** Nanoseconds spent computing Fibonacci numbers since the last {@link resetWork}. */
export const work = { ns: 0 };

export function resetWork(): void {
  work.ns = 0;
}

function fibo(n: number): number {
  return n <= 1 ? n : fibo(n - 1) + fibo(n - 2);
}

/** One task: `fibo(n)`, timed into {@link work}, and the counter passed on. */
export function task(n: number, previous: number): TaskOutput {
  const started = process.hrtime.bigint();
  const value = fibo(n);
  work.ns += Number(process.hrtime.bigint() - started);
  return { i: previous + 1, value };
}

/** Throws unless a run of `shape` ended with the counter at the number of tasks. */
export function checkCount(shape: Shape, i: unknown, system: string): void {
  if (i !== shape.tasks) throw new Error(`${system}: ${shape.key} ended at ${String(i)}`);
}
