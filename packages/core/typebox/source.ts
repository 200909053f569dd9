/**
 * TypeBox, as weft imports it: `import { Type, type Static } from '@weft/core/typebox'`.
 *
 * Built packages load `dist/typebox.js`: these exports bundled into one file by
 * `scripts/bundle-typebox.mjs` (`npm run build`). TypeBox ships some 250 small ES modules, and on
 * Node 20, with no module compile cache, loading them one by one cost about 100 ms of every
 * `weft` command. This file serves code that runs on the `source` condition (tests, scripts) and
 * is the bundle's entry; `types.d.ts` declares the same exports for tsc.
 *
 * Both live outside `src/` on purpose: tsc resolves a package's imports of its own name to the
 * source files of `src/`, and types reached that way could not be named in other packages'
 * declarations. Outside `src/`, every package sees the one `types.d.ts`.
 *
 * Schemas are marked with `Symbol.for(...)` keys, so schemas of this copy and of
 * `@sinclair/typebox` itself (a plugin's, a test's) check the same with either copy's compiler.
 * Registries (`FormatRegistry`, `TypeRegistry`) are per copy: register through this module.
 */
export * from '@sinclair/typebox';
export { TypeCompiler, TypeCheck } from '@sinclair/typebox/compiler';
export { Value } from '@sinclair/typebox/value';
