import { agentRef, type AgentDefinition } from '@weft/agents';
import { ValidationError } from '@weft/core';

/** The variable naming the secrets published agents may read. */
export const PUBLISHED_AGENT_SECRETS = 'WEFT_PUBLISHED_AGENT_SECRETS';

const NAME = /^[A-Za-z_][A-Za-z0-9_]*\*?$/;

/**
 * Checks the entries of `WEFT_PUBLISHED_AGENT_SECRETS` (or the `publishedAgentSecrets` option):
 * secret names (`MODEL_KEY`), or prefixes ending in `*` (`PUBLISHED_*`). Anything else, a bare
 * `*` (every secret of the server) included, is refused naming the variable.
 */
export function checkPublishedAgentSecrets(entries: readonly string[]): string[] {
  for (const entry of entries) {
    if (entry === '*') {
      throw new ValidationError(
        `${PUBLISHED_AGENT_SECRETS} may not be "*": that would let anyone who can publish an agent send any secret of this server to a URL of their choosing; list the secret names (or prefixes such as PUBLISHED_*)`,
        { field: PUBLISHED_AGENT_SECRETS, constraint: 'pattern' },
      );
    }
    if (!NAME.test(entry)) {
      throw new ValidationError(
        `${PUBLISHED_AGENT_SECRETS} holds comma-separated secret names (letters, digits and _, not starting with a digit), each optionally ending in * for a prefix; ${JSON.stringify(entry)} is none`,
        { field: PUBLISHED_AGENT_SECRETS, constraint: 'pattern' },
      );
    }
  }
  return [...entries];
}

/** `WEFT_PUBLISHED_AGENT_SECRETS` read from the environment (unset or blank: none). */
export function publishedAgentSecretsFromEnv(env: NodeJS.ProcessEnv): {
  publishedAgentSecrets?: string[];
} {
  const text = env[PUBLISHED_AGENT_SECRETS]?.trim();
  if (!text) return {};
  return {
    publishedAgentSecrets: checkPublishedAgentSecrets(text.split(',').map((e) => e.trim())),
  };
}

/**
 * The refusal of a published agent's `api_key_secret` that `allowed` (the checked entries) does
 * not match: `VALIDATION` on `agent.api_key_secret` naming the agent, the secret and the
 * variable to change. The secret is never read, so a refusal says nothing of whether it is set.
 */
export function publishedSecretRefusal(
  allowed: readonly string[],
  isPublished: (agent: AgentDefinition) => boolean,
): (agent: AgentDefinition, secret: string) => ValidationError | undefined {
  const names = new Set(allowed.filter((e) => !e.endsWith('*')));
  const prefixes = allowed.filter((e) => e.endsWith('*')).map((e) => e.slice(0, -1));
  const allows = (secret: string) =>
    names.has(secret) || prefixes.some((prefix) => secret.startsWith(prefix));
  return (agent, secret) => {
    if (!isPublished(agent) || allows(secret)) return undefined;
    const ref = agentRef(agent);
    return new ValidationError(
      `${ref} is a published agent (anyone with a key may publish one), and published agents may not read the secret "${secret}" that its api_key_secret names; the step is refused and the secret is not read. If you trust this agent's publisher with that key, add ${secret} to ${PUBLISHED_AGENT_SECRETS} on the server (comma-separated names or prefixes ending in *), or run the agent from the server's own --agents directory`,
      {
        field: 'agent.api_key_secret',
        constraint: 'published_agent_secrets',
        agent: ref,
        secret,
        setting: PUBLISHED_AGENT_SECRETS,
      },
    );
  };
}
