/**
 * The process environment, the base of `env.*` (docs/design.md#workflow-semantics: the SDK's `environment` map over
 * the process environment) and of the contract's `WORKFLOW_*` fallbacks (packages/sdk/README.md). The SDK is
 * an entry point like the CLI, so it reads it here, in this one place; `inheritEnvironment:
 * false` turns it off for `env.*`.
 */
export function processEnvironment(): Record<string, string | undefined> {
  return { ...process.env };
}
