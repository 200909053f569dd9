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
  { ignores: ['**/dist/**', '**/node_modules/**', 'bench/results/**', 'coverage/**'] },
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
