import { fileURLToPath } from 'node:url';
import { ESLint } from 'eslint';
import { beforeAll, describe, expect, it } from 'vitest';

/**
 * The repository's own ESLint configuration (eslint.config.js) on snippets placed in a package:
 * the import table (docs/design.md#import-rules) and the deep-import ban.
 */
const root = fileURLToPath(new URL('../../', import.meta.url));
let eslint: ESLint;

beforeAll(() => {
  // The snippets are files no tsconfig includes: lint them without the type-aware rules (which
  // need a program) so only the import table speaks.
  eslint = new ESLint({
    cwd: root,
    overrideConfig: {
      languageOptions: { parserOptions: { project: null } },
      rules: {
        '@typescript-eslint/no-floating-promises': 'off',
        '@typescript-eslint/no-misused-promises': 'off',
        '@typescript-eslint/switch-exhaustiveness-check': 'off',
        '@typescript-eslint/no-unnecessary-type-assertion': 'off',
      },
    },
  });
});

/** The `weft/package-boundaries` messages for `code` as the file `path`. */
async function boundaryErrors(path: string, code: string): Promise<string[]> {
  const [result] = await eslint.lintText(code, { filePath: `${root}${path}` });
  return result!.messages
    .filter((m) => m.ruleId === 'weft/package-boundaries')
    .map((m) => m.message);
}

describe('the package boundaries lint rule', () => {
  it('refuses a package an engine file may not import, and accepts core and expr', async () => {
    const errors = await boundaryErrors(
      'packages/engine/src/run/fixture.ts',
      `export { x } from '@weft/core';\nexport { y } from '@weft/expr';\nexport { z } from '@weft/store';\n`,
    );
    expect(errors).toEqual([
      '@weft/engine may import @weft/core, @weft/expr (docs/design.md#import-rules), not "@weft/store": arrows between packages never point back.',
    ]);
  });

  it('keeps HTTP and database libraries out of the engine, but not node:crypto', async () => {
    const errors = await boundaryErrors(
      'packages/engine/src/fixture.ts',
      [
        "import { createHash } from 'node:crypto';",
        "import Fastify from 'fastify';",
        "import { request } from 'undici';",
        "import pg from 'pg';",
        "import Database from 'better-sqlite3';",
        "import { createServer } from 'node:http';",
        'export { createHash, Fastify, request, pg, Database, createServer };',
      ].join('\n'),
    );
    expect(errors).toHaveLength(5);
    for (const error of errors) expect(error).toMatch(/the engine knows no HTTP and no database/);
  });

  it('lets core import no weft package and no Node module (it is bundled for the browser)', async () => {
    const errors = await boundaryErrors(
      'packages/core/src/fixture.ts',
      `import { a } from '@weft/expr';\nimport { b } from 'node:crypto';\nimport { c } from 'fs';\nexport { a, b, c };\n`,
    );
    expect(errors).toHaveLength(3);
    expect(errors[0]).toMatch(/@weft\/core may import no other weft package/);
    expect(errors[1]).toMatch(/must not import "node:crypto": core is bundled into the browser/);
  });

  it('checks type-only imports, export-from and dynamic and type-position imports too', async () => {
    const errors = await boundaryErrors(
      'packages/store/src/fixture.ts',
      [
        "import type { A } from '@weft/engine';",
        "export * from '@weft/runtime';",
        "export const load = () => import('@weft/server');",
        "export type B = import('@weft/sdk').Weft;",
        'export type { A };',
      ].join('\n'),
    );
    expect(errors.map((e) => /not "([^"]+)"/.exec(e)?.[1])).toEqual([
      '@weft/engine',
      '@weft/runtime',
      '@weft/server',
      '@weft/sdk',
    ]);
  });

  it('forbids deep imports into another package, by name or by relative path', async () => {
    const fromSdk = await boundaryErrors(
      'packages/sdk/src/client/fixture.ts',
      [
        "import { a } from '@weft/engine/src/index.js';",
        "import { b } from '../../../engine/src/index.js';",
        "import { c } from '../../../../scripts/write-schema.js';",
        "import { d } from '../http-client/index.js';",
        'export { a, b, c, d };',
      ].join('\n'),
    );
    expect(fromSdk).toEqual([
      '"@weft/engine/src/index.js" reaches into the files of @weft/engine: import what it exports (@weft/engine).',
      '"../../../engine/src/index.js" reaches into the files of packages/engine: import @weft/engine (what it exports) instead.',
      '"../../../../scripts/write-schema.js" leaves packages/sdk: a package imports only its own files and other packages by name.',
    ]);
    const fromRoot = await boundaryErrors(
      'test/integration/fixture.test.ts',
      `import { a } from '../../packages/runtime/src/index.js';\nimport { b } from '@weft/runtime';\nexport { a, b };\n`,
    );
    expect(fromRoot).toEqual([
      '"../../packages/runtime/src/index.js" reaches into the files of packages/runtime: import @weft/runtime (what it exports) instead.',
    ]);
  });

  it('lets the router use the SDK client side only, and the console nothing but it and core', async () => {
    expect(
      await boundaryErrors(
        'packages/router/src/fixture.ts',
        `import { a } from '@weft/sdk/client';\nimport { b } from '@weft/sdk';\nexport { a, b };\n`,
      ),
    ).toEqual([
      '@weft/router may import @weft/core, @weft/http, @weft/sdk/client (docs/design.md#import-rules), not "@weft/sdk": arrows between packages never point back.',
    ]);
    const browser = await boundaryErrors(
      'packages/console/src/main.ts',
      [
        "import { WeftClient } from '@weft/sdk/client';",
        "import { Weft } from '@weft/sdk';",
        "import { x } from '@weft/core';",
        "import { readFile } from 'node:fs/promises';",
        "import pino from 'pino';",
        'export { WeftClient, Weft, x, readFile, pino };',
      ].join('\n'),
    );
    expect(browser).toHaveLength(3);
    expect(browser[0]).toMatch(
      /^@weft\/console may import @weft\/sdk\/client, @weft\/core .*not "@weft\/sdk"/,
    );
    expect(browser[1]).toMatch(
      /must not import "node:fs\/promises": the console runs in the browser/,
    );
    expect(browser[2]).toMatch(/must not import "pino"/);
  });

  it('keeps identity below the packages that use it', async () => {
    expect(
      await boundaryErrors(
        'packages/identity/src/fixture.ts',
        `import { a } from '@weft/core';\nimport { b } from '@weft/registry';\nexport { a, b };\n`,
      ),
    ).toHaveLength(1);
    for (const user of ['registry', 'runtime', 'cli']) {
      expect(
        await boundaryErrors(
          `packages/${user}/src/fixture.ts`,
          `export { verify } from '@weft/identity';\n`,
        ),
      ).toEqual([]);
    }
    expect(
      await boundaryErrors(
        'packages/engine/src/fixture.ts',
        `export { v } from '@weft/identity';\n`,
      ),
    ).toHaveLength(1);
  });

  it('keeps the HTTP layer above core only, and in the SDK to its connector service kit', async () => {
    const http = `export { sendError } from '@weft/http';\n`;
    for (const user of ['registry', 'router', 'runtime', 'server']) {
      expect(await boundaryErrors(`packages/${user}/src/fixture.ts`, http)).toEqual([]);
    }
    expect(await boundaryErrors('packages/sdk/src/service/fixture.ts', http)).toEqual([]);
    for (const path of ['packages/sdk/src/index.ts', 'packages/core/src/fixture.ts']) {
      expect(await boundaryErrors(path, http)).toHaveLength(1);
    }
    expect(
      await boundaryErrors(
        'packages/http/src/fixture.ts',
        `export { a } from '@weft/core';\nexport { b } from '@weft/identity';\n`,
      ),
    ).toHaveLength(1);
  });

  it('holds the SDK browser entry to core and its own folder', async () => {
    const errors = await boundaryErrors(
      'packages/sdk/src/http-client/fixture.ts',
      [
        "import { a } from '@weft/core';",
        "import { b } from './http-api.js';",
        "import { c } from '../client/weft.js';",
        "import { d } from '@weft/engine';",
        "import { e } from 'undici';",
        'export { a, b, c, d, e };',
      ].join('\n'),
    );
    expect(errors).toHaveLength(3);
    expect(errors[0]).toMatch(/"\.\.\/client\/weft\.js" leaves packages\/sdk\/src\/http-client/);
  });

  it('lets tests import any package, but not another package’s files', async () => {
    const errors = await boundaryErrors(
      'packages/runtime/src/http/fixture.test.ts',
      `import { a } from '@weft/store';\nimport { b } from '@weft/store/src/index.js';\nexport { a, b };\n`,
    );
    expect(errors).toHaveLength(1);
    expect(errors[0]).toMatch(/reaches into the files of @weft\/store/);
  });

  it('lets the CLI use the engine and the SDK the template language, as docs/design.md says', async () => {
    const engine = `export { loadWorkflowSource } from '@weft/engine';\n`;
    expect(await boundaryErrors('packages/cli/src/commands/any.ts', engine)).toEqual([]);
    const expr = `export { compileTemplate } from '@weft/expr';\n`;
    expect(await boundaryErrors('packages/sdk/src/kinds/other.ts', expr)).toEqual([]);
    expect(await boundaryErrors('packages/store/src/other.ts', expr)).toHaveLength(1);
  });
});
