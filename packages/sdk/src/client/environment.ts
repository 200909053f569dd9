/**
 * The process environment, the base of `env.*` (DESIGN.md §4: the SDK's `environment` map over
 * the process environment). The SDK is an entry point like the CLI, so it reads it here, in
 * this one place; `inheritEnvironment: false` turns it off.
 */
export function processEnvironment(): Record<string, string | undefined> {
  return { ...process.env };
}
