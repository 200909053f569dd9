/**
 * Where secret values come from (docs/workflow-language.md#secrets: pluggable, environment variables by default).
 * `get` resolves to `undefined` when the secret does not exist.
 */
export interface SecretsProvider {
  get(name: string): Promise<string | undefined> | string | undefined;
}

/** The default provider: the secret `NAME` is the environment variable `NAME`. */
export class EnvironmentSecretsProvider implements SecretsProvider {
  constructor(private readonly environment: Readonly<Record<string, string | undefined>>) {}

  get(name: string): string | undefined {
    return Object.hasOwn(this.environment, name) ? this.environment[name] : undefined;
  }
}
