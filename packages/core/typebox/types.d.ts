// The types of `@weft/core/typebox`: the exports of `source.ts` (see there), for tsc.
export * from '@sinclair/typebox';
export { TypeCompiler, TypeCheck } from '@sinclair/typebox/compiler';
export { Value } from '@sinclair/typebox/value';
