import { ValidationError } from '@weft/core';

/**
 * The `<prefix>_*` variables of a detector service (`WEFT_MODERATION_*`, `WEFT_JUDGE_*`):
 * undefined when neither `main` nor any of `others` is set; refused when one of `others` is set
 * without `main` (`hint` says what to set), or `TIMEOUT_MS` is not a positive integer.
 * `value(name)` answers a trimmed, non-empty variable.
 */
export function detectorEnv(
  env: Readonly<Record<string, string | undefined>>,
  prefix: string,
  main: string,
  others: readonly string[],
  hint: string,
): { main: string; value: (name: string) => string | undefined; timeoutMs?: number } | undefined {
  const value = (name: string) => env[`${prefix}_${name}`]?.trim() || undefined;
  const mainValue = value(main);
  if (!mainValue) {
    const set = others.find((name) => value(name));
    if (set === undefined) return undefined;
    throw new ValidationError(`${prefix}_${set} is set without ${prefix}_${main}: ${hint}`, {
      field: `${prefix}_${main}`,
      constraint: 'required',
    });
  }
  const timeout = value('TIMEOUT_MS');
  if (timeout && !/^[1-9][0-9]{0,6}$/.test(timeout)) {
    throw new ValidationError(
      `${prefix}_TIMEOUT_MS must be a positive integer of milliseconds, not ${JSON.stringify(timeout)}`,
      { field: `${prefix}_TIMEOUT_MS`, constraint: 'integer' },
    );
  }
  return { main: mainValue, value, ...(timeout ? { timeoutMs: Number(timeout) } : {}) };
}

/**
 * The key of a detector service: `apiKey` itself, or the secret `apiKeySecret` names (read with
 * `secret`). Refuses both set at once and a named secret that is not set, naming `<prefix>_*`.
 */
export function detectorKey(
  prefix: string,
  settings: { apiKey?: string; apiKeySecret?: string },
  secret: (name: string) => string | undefined,
): string | undefined {
  if (settings.apiKey !== undefined && settings.apiKeySecret !== undefined) {
    throw new ValidationError(`set ${prefix}_API_KEY or ${prefix}_API_KEY_SECRET, not both`, {
      field: `${prefix}_API_KEY_SECRET`,
      constraint: 'exclusive',
    });
  }
  if (settings.apiKeySecret === undefined) return settings.apiKey;
  const key = secret(settings.apiKeySecret);
  if (key === undefined) {
    throw new ValidationError(
      `${prefix}_API_KEY_SECRET names the secret "${settings.apiKeySecret}", which is not set (WEFT_SECRET_${settings.apiKeySecret})`,
      { field: `${prefix}_API_KEY_SECRET`, constraint: 'secret_missing' },
    );
  }
  return key;
}
