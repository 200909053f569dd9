/**
 * What the sandbox benchmark's parts share: a child process run to its end, an execution
 * context for `LocalInvoker` calls, statistics, a seeded shuffle and an aligned table.
 */
import { spawn } from 'node:child_process';
import type { ActionCall, ExecutionContext } from '@weft/core';

/** Spawns `file args` with stdio ignored and resolves when it closed (rejects on a non-zero exit). */
export function spawnToEnd(
  file: string,
  args: readonly string[],
  options: { cwd?: string; env?: NodeJS.ProcessEnv; detached?: boolean } = {},
): Promise<{ code: number | null; signal: NodeJS.Signals | null }> {
  return new Promise((resolve, reject) => {
    const child = spawn(file, args, { stdio: 'ignore', ...options });
    child.on('error', reject);
    child.on('close', (code, signal) => {
      if (code !== 0) reject(new Error(`${file} ${args.join(' ')} exited ${code ?? signal}`));
      else resolve({ code, signal });
    });
  });
}

/** Spawns `file` as `runShell` does (detached, three pipes, `{}` on stdin) and waits for close. */
export function spawnPiped(file: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn(file, [], { detached: true, stdio: ['pipe', 'pipe', 'pipe'] });
    child.stdout.resume();
    child.stderr.resume();
    child.stdin.on('error', () => undefined);
    child.stdin.end('{}');
    child.on('error', reject);
    child.on('close', (code) =>
      code === 0 ? resolve() : reject(new Error(`${file} exited ${code}`)),
    );
  });
}

/** A call of `plugin: <slug>` action `action` with an execution context of its own. */
export function pluginCall(
  slug: string,
  action: string,
  input: Record<string, unknown> = {},
): ActionCall {
  const signal = new AbortController().signal;
  const context: ExecutionContext = {
    get aborted() {
      return signal.aborted;
    },
    workflowId: 'bench',
    stepName: action,
    inputs: {},
    executionMode: 'local',
    environment: { PATH: process.env['PATH'] },
    secrets: {},
    previousSteps: {},
    signal,
    idempotencyKey: `bench/${action}`,
    progress: () => undefined,
  };
  return { target: { kind: 'plugin', slug }, action, input, context };
}

/** The value at quantile `q` (0..1) of `values`, by the nearest rank. */
export function quantile(values: readonly number[], q: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  if (sorted.length === 0) return NaN;
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1))]!;
}

/** The median of `values`. */
export function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
}

/** Prints a title and an aligned table (the first column left-aligned, the others right). */
export function printTable(
  title: string,
  header: readonly string[],
  rows: readonly (readonly string[])[],
): void {
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((row) => row[i]!.length)));
  const line = (row: readonly string[]) =>
    row
      .map((cell, i) => (i === 0 ? cell.padEnd(widths[i]!) : cell.padStart(widths[i]!)))
      .join('  ');
  console.log(`\n${title}`);
  console.log(line(header));
  console.log(widths.map((w) => '-'.repeat(w)).join('  '));
  for (const row of rows) console.log(line(row));
}
