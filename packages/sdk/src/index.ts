/**
 * `@weft/sdk`: the public SDK of weft. This part: connector definitions (Appendix B.1), action
 * handlers and the `local` execution mode's invoker. See `README.md` in this package.
 */
export { LocalInvoker } from './invoker/local-invoker.js';
export {
  compileInvokerOptions,
  DEFAULT_MAX_OUTPUT_BYTES,
  type CompiledInvokerOptions,
  type LocalInvokerOptions,
} from './invoker/options.js';
export type { Resolved } from './invoker/connector-table.js';
export {
  handler,
  decoratedHandlers,
  parseHandlerKey,
  type ActionHandler,
  type DecoratedHandler,
  type HandlerKey,
} from './handlers/handler.js';
export type {
  CompiledAction,
  CompiledConnector,
  ConnectorDefaults,
} from './connector/compile-connector.js';
export { connectorRef } from './connector/compile-connector.js';
export {
  parseConnectorDefinition,
  type ParseDefinitionOptions,
} from './connector/parse-definition.js';
export { interpolateEnvironment, type Environment } from './connector/interpolate-env.js';
export type { ShellResult } from './kinds/shell.js';
export { Weft, type ExecuteOptions } from './client/weft.js';
export { loadWorkflow, loadWorkflowFile } from './client/load.js';
export { checkWeftOptions, type WeftOptions, type LogLevel } from './client/options.js';
export type { RunResult, StepRecord, WorkflowDefinition } from '@weft/engine';
export {
  RouterInvoker,
  checkRouterUrl,
  type RouterInvokerOptions,
} from './invoker/router-invoker.js';
export * from './service/index.js';
export type { ExecutionContext } from '@weft/core';
