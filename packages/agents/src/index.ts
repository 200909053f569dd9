export * from './definition/schema.js';
export {
  agentFileJsonSchema,
  renderAgentJsonSchema,
  AGENT_SCHEMA_ID,
} from './definition/json-schema.js';
export { agentRef, AgentCatalog, resolveAgentVersion } from './definition/catalog.js';
export { effectiveGuardrails } from './definition/guardrails.js';
export {
  loadAgentDir,
  loadAgentFile,
  parseAgentSource,
  type LoadedAgent,
} from './definition/load.js';
export { toolsOf, type ToolSpec } from './definition/tools.js';
export { checkAgentDefinition, type AgentProblem } from './definition/publish-check.js';
export { Budget, budgetError, type TurnUsage } from './run/budget.js';
export type {
  ModelTurnEnd,
  ModelTurnObserver,
  ModelTurnStart,
  LiveModelCall,
  LiveCallTicket,
  AgentAnswer,
  AgentBackend,
  AgentRequest,
  PreparedTool,
  TurnReport,
} from './run/contract.js';
export { CostLedger, type CostLedgerOptions, type SpentLoader } from './run/cost-ledger.js';
export {
  BudgetsAcrossRuns,
  StepLedger,
  DEFAULT_BUDGETED_OUTPUT_TOKENS,
  DEFAULT_RESERVATION_TTL_MS,
  type AgentSpend,
  type BudgetsAcrossRunsOptions,
} from './run/run-budgets.js';
export { withLiveCallHook, runWithLiveCallHook } from './backends/live-calls.js';
export { prepareTools, type ActionDescription, type ActionLookup } from './run/prepare-tools.js';
export { AgentRunner, DEFAULT_MAX_RESPONSE_BYTES, type AgentRunnerOptions } from './run/runner.js';
export { AiSdkBackend, type AiSdkBackendOptions } from './backends/ai-sdk/backend.js';
export {
  describeWarning,
  routeAiSdkWarnings,
  type WarningLogger,
} from './backends/ai-sdk/warnings.js';
export { providerModel, type ModelFactory } from './backends/ai-sdk/models.js';
export {
  langChainProviderModel,
  LangChainBackend,
  type LangChainBackendOptions,
} from './backends/langchain/backend.js';
export type { LangChainModel, LangChainModelFactory } from './backends/langchain/models.js';
export { actionsOfConnectors } from './run/connector-actions.js';
export {
  highestServedVersion,
  publishedActions,
  toolSchemaError,
  type PublishedAction,
  type PublishedDefinitions,
  type ServedInstance,
} from './run/published-actions.js';
export {
  checkJudgeOptions,
  judgeDetectors,
  type JudgeDetectorOptions,
} from './judge/judge-detector.js';
export { JUDGE_SYSTEM_PROMPT } from './judge/prompt.js';
export {
  configuredDetectorsOf,
  moderationDetectorOptions,
  moderationSettingsFromEnv,
  type ModerationSettings,
} from './detector-settings/moderation-settings.js';
export {
  judgeDetectorOptions,
  judgeSettingsFromEnv,
  type JudgeSettings,
} from './detector-settings/judge-settings.js';
