// Bundles typebox/source.ts (TypeBox, its compiler and `Value`) into dist/typebox.js, the file
// the `default` condition of `@weft/core/typebox` serves: one module for Node to load instead of
// TypeBox's ~250 (see typebox/source.ts). tsc emits nothing there (the entry is outside `src/`),
// so running `tsc -b` again leaves the bundle in place. Paths are relative to packages/core, where
// `npm run build -w @weft/core` runs this.
import { build } from 'esbuild';

await build({
  entryPoints: ['typebox/source.ts'],
  outfile: 'dist/typebox.js',
  bundle: true,
  format: 'esm',
  // TypeBox uses no Node API: the console bundles this file for the browser too.
  platform: 'neutral',
  target: 'es2022',
  // TypeBox's ES build, which Node loads for an `import`.
  conditions: ['import'],
  logLevel: 'warning',
});
