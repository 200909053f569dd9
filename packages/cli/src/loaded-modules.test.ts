import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';

const root = fileURLToPath(new URL('../../..', import.meta.url));
const weft = join(root, 'packages/cli/bin/weft.js');
const recorder = join(root, 'packages/cli/test/record-modules.mjs');
const dir = mkdtempSync(join(tmpdir(), 'weft-modules-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

let runs = 0;
/** The modules (file URLs, deduplicated) the built `weft ...args` loads, run from the repo root. */
async function modulesLoadedBy(...args: string[]): Promise<string[]> {
  const file = join(dir, `modules-${++runs}.txt`);
  await promisify(execFile)(process.execPath, ['--import', recorder, weft, ...args], {
    cwd: root,
    env: { ...process.env, WEFT_RECORD_MODULES: file },
  });
  return [...new Set(readFileSync(file, 'utf8').split('\n').filter(Boolean))];
}

/** What a command that needs no server must never load: the HTTP server, SQL, the OTel SDK. */
const SERVER_ONLY =
  /\/node_modules\/(fastify|kysely|pg|better-sqlite3|@opentelemetry\/sdk-[^/]+)\//;

/**
 * What loads only when it is used: the AI SDK (and zod) at the first model call, the guardrail
 * detectors' libraries at the first text checked, token verification (jose) for `--identity`.
 */
const ON_USE =
  /\/node_modules\/(ai|@ai-sdk\/[^/]+|zod|@langchain\/[^/]+|libphonenumber-js|obscenity|jose)\//;

/** The modules of `loaded` that `pattern` matches, by package (one line each, for the diff). */
function packagesMatching(loaded: readonly string[], pattern: RegExp): string[] {
  const names = loaded
    .filter((url) => pattern.test(url))
    .map((url) => /\/node_modules\/((?:@[^/]+\/)?[^/]+)\//.exec(url)![1]!);
  return [...new Set(names)].sort();
}

describe('what the weft command loads', { timeout: 60_000 }, () => {
  it('validates a workflow without Fastify, kysely, the OpenTelemetry SDK or the AI SDK', async () => {
    const loaded = await modulesLoadedBy('workflow', 'validate', 'examples/order-fulfilment.yaml');
    // The recorder sees the modules it should: the engine that validates, through the CLI.
    expect(loaded.some((url) => url.includes('/packages/engine/'))).toBe(true);
    expect(loaded.filter((url) => SERVER_ONLY.test(url))).toEqual([]);
    expect(packagesMatching(loaded, ON_USE)).toEqual([]);
    // Nor what only agent steps that run need: the registry's definition parser, tracing.
    expect(loaded.filter((url) => /\/packages\/(registry|telemetry)\//.test(url))).toEqual([]);
    // Nor ajv: the file has no output schema to compile.
    expect(loaded.filter((url) => url.includes('/node_modules/ajv/'))).toEqual([]);
    // TypeBox comes as one file (@weft/core/typebox), not as its ~250 modules.
    expect(loaded.filter((url) => url.includes('/node_modules/@sinclair/typebox/'))).toEqual([]);
    expect(loaded.filter((url) => url.endsWith('/packages/core/dist/typebox.js'))).toHaveLength(1);
  });

  it('runs a one-step workflow locally without them, undici, ajv, nor pino-pretty unless logging', async () => {
    const loaded = await modulesLoadedBy('workflow', 'run', 'bench/cli/one-step.yaml');
    expect(loaded.some((url) => url.includes('/packages/sdk/'))).toBe(true);
    expect(loaded.filter((url) => SERVER_ONLY.test(url) || url.includes('/pino-pretty/'))).toEqual(
      [],
    );
    expect(packagesMatching(loaded, ON_USE)).toEqual([]);
    // Nor undici (only the SDK's HTTP transports use it, at their first request), nor ajv (no
    // connector schema to compile).
    expect(loaded.filter((url) => /\/node_modules\/(undici|ajv)\//.test(url))).toEqual([]);
    // Nor tsx and esbuild: they load only when a --require module is TypeScript.
    expect(
      loaded.filter((url) => /\/node_modules\/(tsx|esbuild|get-tsconfig)\//.test(url)),
    ).toEqual([]);
    // With step lines to write as text, pino-pretty loads (a CommonJS require the recorder sees).
    const logging = await modulesLoadedBy(
      'workflow',
      'run',
      'bench/cli/one-step.yaml',
      '--log-level',
      'info',
    );
    expect(logging.some((url) => url.includes('/node_modules/pino-pretty/'))).toBe(true);
  });

  it('prints the version and a command group’s help without loading a subcommand', async () => {
    for (const args of [['--version'], ['workflow', '--help'], ['plugin', '--help']]) {
      const loaded = await modulesLoadedBy(...args);
      const subcommands = loaded.filter(
        (url) => /\/commands\/(workflow|plugin)-/.test(url) || url.includes('/packages/engine/'),
      );
      expect(subcommands, args.join(' ')).toEqual([]);
    }
  });
});
