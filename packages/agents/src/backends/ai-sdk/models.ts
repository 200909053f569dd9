import { ValidationError } from '@weft/core';
import type { LanguageModel } from 'ai';
import type { AgentDefinition } from '../../definition/schema.js';

/** Makes the model of an agent; tests give the AI SDK's mock model instead. */
export type ModelFactory = (
  agent: AgentDefinition,
  apiKey: string | undefined,
  fetch: typeof globalThis.fetch,
) => LanguageModel | Promise<LanguageModel>;

/**
 * The model of `agent.model` (`<provider>:<model id>`) through the AI SDK's provider packages:
 * `openai` (the Chat Completions API), `anthropic`, `openai-compatible` (at `base_url`, asking
 * for usage when streaming). The key comes only from `api_key_secret`: the providers' own
 * fallback to environment variables is not used, so `openai` and `anthropic` need one. Each
 * provider package is imported when its first model is made, so a process that makes none
 * does not load them.
 */
export const providerModel: ModelFactory = async (agent, apiKey, fetch) => {
  const colon = agent.model.indexOf(':');
  const provider = agent.model.slice(0, colon);
  const id = agent.model.slice(colon + 1);
  const baseURL = agent.base_url;
  if ((provider === 'openai' || provider === 'anthropic') && apiKey === undefined) {
    throw new ValidationError(
      `a ${provider} model needs api_key_secret: the secret that holds its API key`,
      {
        field: 'agent.api_key_secret',
        constraint: 'required',
      },
    );
  }
  switch (provider) {
    case 'openai': {
      const { createOpenAI } = await import('@ai-sdk/openai');
      return createOpenAI({ apiKey: apiKey!, fetch, ...(baseURL ? { baseURL } : {}) }).chat(id);
    }
    case 'anthropic': {
      const { createAnthropic } = await import('@ai-sdk/anthropic');
      return createAnthropic({ apiKey: apiKey!, fetch, ...(baseURL ? { baseURL } : {}) })(id);
    }
    case 'openai-compatible': {
      const { createOpenAICompatible } = await import('@ai-sdk/openai-compatible');
      return createOpenAICompatible({
        name: 'openai-compatible',
        baseURL: baseURL!,
        ...(apiKey !== undefined ? { apiKey } : {}),
        includeUsage: true,
        fetch,
      }).chatModel(id);
    }
    default:
      throw new ValidationError(`unknown model provider "${provider}"`, {
        field: 'agent.model',
        constraint: 'provider',
      });
  }
};
