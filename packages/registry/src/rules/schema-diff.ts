/**
 * The breaking-change rules of schema diffs live in `@weft/core` (the runtime's impact check
 * before a deploy applies them too); the registry uses them from there.
 */
export {
  diffInput,
  diffOutput,
  diffActions,
  type ChangeLists,
  type SchemaChange,
} from '@weft/core';
