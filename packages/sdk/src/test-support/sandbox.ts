import type { ConnectorRuntime } from '@weft/core';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { it } from 'vitest';
import { LocalInvoker } from '../invoker/local-invoker.js';
import { Sandbox, type LimitName, type SandboxOptions } from '../sandbox/index.js';
import { pluginCall, makeContext, rejection } from './context.js';

/** The node binary running the tests: shell actions written in node use it. */
export const NODE = process.execPath;

/**
 * A sandbox of its own for a test file: its own parent group (`weft-test-<pid>`) and scratch
 * root, so that files running at once never share one. `close` removes both.
 */
export async function testSandbox(options: SandboxOptions = {}) {
  const scratchRoot = mkdtempSync(join(tmpdir(), 'weft-sandbox-test-'));
  const sandbox = await Sandbox.open({
    cgroupParent: `weft-test-${process.pid}`,
    scratchRoot,
    ...options,
  });
  return {
    sandbox,
    scratchRoot,
    close() {
      sandbox.close();
      rmSync(scratchRoot, { recursive: true, force: true });
    },
  };
}

/**
 * `it` when this host enforces every limit named, else a skipped test whose name says which
 * capability is missing: a missing capability is never passed silently.
 */
export function itEnforcing(sandbox: Sandbox, limits: LimitName[]) {
  const missing = limits.filter((l) => !sandbox.capabilities.support[l].enforced);
  if (missing.length === 0) return it;
  const why = missing.map((l) => `${l}: ${sandbox.capabilities.support[l].how}`).join('; ');
  return (name: string, fn: () => Promise<void>, timeout?: number) =>
    it.skip(`${name} [skipped: ${why}]`, fn, timeout);
}

/** A LocalInvoker with one shell connector `box` whose actions are given as argv lists. */
export function shellInvoker(
  sandbox: Sandbox,
  actions: Record<string, string[]>,
  runtime?: ConnectorRuntime,
): LocalInvoker {
  const invoker = new LocalInvoker({ sandbox });
  invoker.registerConnector({
    connector: {
      kind: 'shell',
      name: 'box',
      namespace: 't',
      version: '1.0.0',
      ...(runtime ? { runtime } : {}),
    },
    actions: Object.entries(actions).map(([name, command]) => ({ name, command })),
  });
  return invoker;
}

/** Runs `box.<action>`, with the step's runtime when given; the output. */
export async function runBox(
  invoker: LocalInvoker,
  action: string,
  stepRuntime?: ConnectorRuntime,
): Promise<unknown> {
  const call = pluginCall('box', action, {}, makeContext());
  const result = await invoker.invoke(stepRuntime ? { ...call, runtime: stepRuntime } : call);
  return result.output;
}

/** The error `box.<action>` fails with. */
export function failureOf(
  invoker: LocalInvoker,
  action: string,
  stepRuntime?: ConnectorRuntime,
): Promise<Record<string, unknown>> {
  return rejection(runBox(invoker, action, stepRuntime));
}
