/**
 * The process environment, the base of `env.*` (DESIGN.md §4: the SDK's `environment` map over
 * the process environment) and of the contract's `WORKFLOW_*` fallbacks (Appendix B). The SDK is
 * an entry point like the CLI, so it reads it here, in this one place; `inheritEnvironment:
 * false` turns it off for `env.*`.
 */
export function processEnvironment(): Record<string, string | undefined> {
  return { ...process.env };
}
