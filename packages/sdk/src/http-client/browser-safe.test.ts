import { readFileSync } from 'node:fs';
import { builtinModules } from 'node:module';
import { fileURLToPath } from 'node:url';
import { build, type Plugin } from 'esbuild';
import ts from 'typescript';
import { beforeAll, describe, expect, it } from 'vitest';

/** What the browser entry must never reach: Node's built-ins, and the server-side libraries. */
const NODE_ONLY =
  /^(node:|fastify$|@fastify\/|pino$|pino-|undici$|ws$|better-sqlite3$|pg$|kysely$)/;
const BUILTINS = new Set(builtinModules);

const root = fileURLToPath(new URL('../../../../', import.meta.url));
const ENTRY = `${root}packages/sdk/src/http-client/index.ts`;
const NODE_ENTRY = `${root}packages/sdk/src/index.ts`;

/** A bundle for the browser: every Node-only import met on the way, and the minified size. */
interface BrowserBundle {
  /** `importer -> module` for each import of a Node-only module. */
  reached: string[];
  bytes: number;
}

/**
 * Bundles `entry` for the browser as a console built with Vite would (esbuild, `platform:
 * 'browser'`, the workspace's `source` condition), noting every import of a Node-only module
 * anywhere in the graph (also in modules tree shaking drops later).
 */
async function bundleForBrowser(entry: string): Promise<BrowserBundle> {
  const reached: string[] = [];
  const guard: Plugin = {
    name: 'node-only-imports',
    setup(build) {
      build.onResolve({ filter: /.*/ }, (args) => {
        const bare = args.path.split('/')[0]!;
        if (!NODE_ONLY.test(args.path) && !BUILTINS.has(args.path) && !BUILTINS.has(bare)) {
          return undefined;
        }
        reached.push(`${args.importer.slice(root.length)} -> ${args.path}`);
        return { path: args.path, external: true };
      });
    },
  };
  const result = await build({
    entryPoints: [entry],
    bundle: true,
    write: false,
    minify: true,
    format: 'esm',
    platform: 'browser',
    conditions: ['source'],
    logLevel: 'silent',
    plugins: [guard],
  });
  return { reached, bytes: result.outputFiles[0]!.contents.byteLength };
}

/**
 * Type-checks `entry` and everything it imports against the browser's library (DOM) without
 * Node's types: a use of `Buffer`, `process` or `NodeJS.*` anywhere in the graph is an error.
 */
function typeCheckForBrowser(entry: string): string[] {
  const base = ts.readConfigFile(`${root}tsconfig.base.json`, ts.sys.readFile).config as {
    compilerOptions: Record<string, unknown>;
  };
  const parsed = ts.parseJsonConfigFileContent(
    {
      compilerOptions: {
        ...base.compilerOptions,
        lib: ['ES2023', 'DOM', 'DOM.Iterable'],
        types: [],
        customConditions: ['source'],
        noEmit: true,
        composite: false,
        declaration: false,
        declarationMap: false,
        sourceMap: false,
      },
      files: [entry],
    },
    ts.sys,
    root,
  );
  const program = ts.createProgram(parsed.fileNames, parsed.options);
  return ts
    .getPreEmitDiagnostics(program)
    .map((d) => {
      const where = d.file ? `${d.file.fileName.slice(root.length)}: ` : '';
      return `${where}${ts.flattenDiagnosticMessageText(d.messageText, '\n')}`;
    })
    .map((text, i, all) => (all.length > 20 && i === 20 ? '...' : text))
    .slice(0, 21);
}

describe('the browser entry @weft/sdk/client', () => {
  let bundle: BrowserBundle;
  beforeAll(async () => {
    bundle = await bundleForBrowser(ENTRY);
  });

  it('reaches no Node built-in, Fastify, pino or undici through its whole import graph', () => {
    expect(bundle.reached).toEqual([]);
  });

  it('stays small: only the error classes of @weft/core come along, not its schemas', () => {
    // ~13 KB when written (core is "sideEffects": false); its TypeBox schemas would add ~90 KB
    // to the console's first load.
    expect(bundle.bytes).toBeLessThan(48 * 1024);
  });

  it('type-checks against the browser library without Node types (no Buffer, process)', () => {
    expect(typeCheckForBrowser(ENTRY)).toEqual([]);
  }, 120_000);

  it('is what package.json exports as ./client', () => {
    const manifest = JSON.parse(readFileSync(`${root}packages/sdk/package.json`, 'utf8')) as {
      exports: Record<string, { source: string }>;
    };
    expect(`${root}packages/sdk/${manifest.exports['./client']!.source.slice(2)}`).toBe(ENTRY);
  });

  it('would be caught reaching Node: the Node SDK entry reaches node:, pino and undici', async () => {
    const { reached } = await bundleForBrowser(NODE_ENTRY);
    const modules = new Set(reached.map((line) => line.split(' -> ')[1]));
    expect(modules).toContain('node:fs/promises');
    expect(modules).toContain('pino');
    expect(modules).toContain('undici');
  });
});
