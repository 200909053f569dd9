import js from '@eslint/js';
import globals from 'globals';
import prettier from 'eslint-config-prettier';
import tseslint from 'typescript-eslint';
import weft from './eslint/package-boundaries.js';
import { PACKAGES, ZONES } from './eslint/packages.js';

const CODE = '**/*.{js,mjs,cjs,ts,mts,cts,tsx,jsx}';

/** The options of `weft/package-boundaries` for one package. */
function boundaries(name) {
  const { may, ...rest } = PACKAGES[name];
  return ['error', { may, ...rest }];
}

/** Tests and test helpers may import any package (as the composition root does). */
const TESTS = [
  'packages/*/src/**/*.test.ts',
  'packages/*/src/test-support/**',
  'packages/*/test/**',
];

export default tseslint.config(
  {
    ignores: [
      '**/dist/**',
      '**/node_modules/**',
      'bench/results/**',
      'coverage/**',
      // What the quickstarts and the tutorial write in a clone (.gitignore keeps them out too).
      'scratch/**',
      'plugins/**',
      'bench/.peers/**',
    ],
  },
  js.configs.recommended,
  { languageOptions: { globals: { ...globals.node } } },
  // The console's app runs in the browser: browser globals, not Node's.
  { files: ['packages/console/src/**'], languageOptions: { globals: { ...globals.browser } } },
  ...tseslint.configs.recommended,
  {
    rules: {
      '@typescript-eslint/no-unused-vars': [
        'error',
        { argsIgnorePattern: '^_', varsIgnorePattern: '^_' },
      ],
      'no-console': 'off',
    },
  },
  {
    files: ['packages/*/src/**/*.ts'],
    ignores: ['packages/cli/**', '**/*.test.ts'],
    rules: { 'no-console': 'error' },
  },
  // TypeBox loads as one file through @weft/core/typebox (packages/core/typebox/source.ts says
  // why): one import of @sinclair/typebox itself would bring its ~250 modules back.
  {
    files: ['packages/*/src/**/*.ts'],
    ignores: ['**/*.test.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              group: ['@sinclair/typebox', '@sinclair/typebox/*'],
              message: 'Import TypeBox from @weft/core/typebox: it loads as one file.',
            },
          ],
        },
      ],
    },
  },
  // Rules that need types, with the type checker's program of `npm run typecheck`: one program
  // for sources and tests. The project service (a program per package tsconfig.json) took more
  // time for sources alone, and those tsconfig.json files leave the tests out.
  {
    files: ['packages/*/src/**/*.{ts,tsx}', 'packages/*/test/**/*.ts', 'test/**/*.ts'],
    languageOptions: {
      parserOptions: {
        project: ['./tsconfig.check.json', './packages/console/tsconfig.json'],
        tsconfigRootDir: import.meta.dirname,
      },
    },
    rules: {
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/no-misused-promises': 'error',
      // A `default` is a decision too (`typeof` switches, ranges of an outside library): the rule
      // is for switches without one, which must then name every case.
      '@typescript-eslint/switch-exhaustiveness-check': [
        'error',
        { considerDefaultExhaustiveForUnions: true },
      ],
      '@typescript-eslint/no-unnecessary-type-assertion': 'error',
    },
  },
  // Package boundaries (docs/design.md#import-rules). A later block replaces an earlier one's options.
  {
    files: [CODE],
    plugins: { weft },
    rules: { 'weft/package-boundaries': ['error', { may: '*' }] },
  },
  ...Object.keys(PACKAGES).map((name) => ({
    files: [`packages/${name}/${CODE}`],
    rules: { 'weft/package-boundaries': boundaries(name) },
  })),
  ...ZONES.map(({ files, ...options }) => ({
    files,
    rules: { 'weft/package-boundaries': ['error', options] },
  })),
  {
    files: TESTS,
    rules: { 'weft/package-boundaries': ['error', { may: '*' }] },
  },
  prettier,
);
