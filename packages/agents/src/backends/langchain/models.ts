import { ChatAnthropic } from '@langchain/anthropic';
import type { BaseChatModel } from '@langchain/core/language_models/chat_models';
import { ChatOpenAICompletions } from '@langchain/openai';
import { ValidationError } from '@weft/core';
import type { AgentDefinition } from '../../definition/schema.js';

/** A chat model of one agent step, with the knob the tool loop turns before each turn. */
export interface LangChainModel {
  readonly model: BaseChatModel;
  /** The provider, for the per-provider call options (`openai` for both OpenAI flavours). */
  readonly provider: 'openai' | 'anthropic';
  /** Sets the output-token cap of the next turn (undefined: the model's default). */
  setMaxTokens(cap: number | undefined): void;
}

/** Makes a chat model of an agent (reused by its later steps); tests may give their own. */
export type LangChainModelFactory = (
  agent: AgentDefinition,
  apiKey: string | undefined,
  fetch: typeof globalThis.fetch,
) => LangChainModel | Promise<LangChainModel>;

const OPENAI_URL = 'https://api.openai.com/v1';
const ANTHROPIC_URL = 'https://api.anthropic.com';
/** The key sent to an OpenAI-compatible server without `api_key_secret` (the header is dropped). */
const NO_KEY = 'weft-no-key';

/**
 * The chat model of `agent.model` through LangChain's provider packages: `openai` and
 * `openai-compatible` (`base_url`) on the Chat Completions API (`ChatOpenAICompletions`, what
 * `ChatOpenAI` uses for it; OpenAI-compatible servers have no Responses API), `anthropic` with
 * `ChatAnthropic`. One step at a time uses an instance (the cap on output tokens changes
 * between turns); the backend reuses it for later steps.
 * Every setting LangChain would otherwise read from the environment (key, base URL) is given,
 * so a key meant for OpenAI never reaches another server; retries are weft's (the clients' own
 * are off). The key comes only from `api_key_secret`: `openai` and `anthropic` need one.
 */
export function langChainModel(
  agent: AgentDefinition,
  apiKey: string | undefined,
  fetch: typeof globalThis.fetch,
): LangChainModel {
  const colon = agent.model.indexOf(':');
  const provider = agent.model.slice(0, colon);
  const id = agent.model.slice(colon + 1);
  if ((provider === 'openai' || provider === 'anthropic') && apiKey === undefined) {
    throw new ValidationError(
      `a ${provider} model needs api_key_secret: the secret that holds its API key`,
      { field: 'agent.api_key_secret', constraint: 'required' },
    );
  }
  const temperature = agent.temperature !== undefined ? { temperature: agent.temperature } : {};
  switch (provider) {
    case 'openai':
    case 'openai-compatible': {
      const model = new ChatOpenAICompletions({
        model: id,
        apiKey: apiKey ?? NO_KEY,
        maxRetries: 0,
        streamUsage: true,
        ...temperature,
        configuration: {
          baseURL: agent.base_url ?? OPENAI_URL,
          fetch: apiKey === undefined ? withoutKey(fetch) : fetch,
          maxRetries: 0,
        },
      });
      return {
        model,
        provider: 'openai',
        // The constructor itself leaves `maxTokens` undefined when none is given (no cap sent),
        // although the declared type omits undefined: resetting restores exactly that state.
        setMaxTokens: (cap) => void ((model as { maxTokens?: number | undefined }).maxTokens = cap),
      };
    }
    case 'anthropic': {
      const model = new ChatAnthropic({
        model: id,
        apiKey: apiKey!,
        anthropicApiUrl: agent.base_url ?? ANTHROPIC_URL,
        maxRetries: 0,
        streamUsage: true,
        ...temperature,
        clientOptions: {
          fetch: agent.base_url === undefined ? fetch : messagesAt(agent.base_url, fetch),
          maxRetries: 0,
        },
      });
      const byDefault = model.maxTokens;
      return {
        model,
        provider: 'anthropic',
        setMaxTokens: (cap) => void (model.maxTokens = cap ?? byDefault),
      };
    }
    default:
      throw new ValidationError(`unknown model provider "${provider}"`, {
        field: 'agent.model',
        constraint: 'provider',
      });
  }
}

/**
 * A fetch that sends the Anthropic client's requests to `<base_url>/messages`, as the AI SDK
 * does (`base_url` includes the version, as for OpenAI: `https://api.anthropic.com/v1`), where
 * the client itself would add `/v1` again: one `base_url` means the same on both backends.
 */
function messagesAt(baseUrl: string, fetch: typeof globalThis.fetch): typeof globalThis.fetch {
  const base = baseUrl.replace(/\/+$/, '');
  return (input, init) => {
    const url = input instanceof Request ? input.url : String(input);
    if (!url.startsWith(`${base}/v1/`)) return fetch(input, init);
    const moved = `${base}/${url.slice(base.length + 4)}`;
    return fetch(input instanceof Request ? new Request(moved, input) : moved, init);
  };
}

/**
 * A fetch that sends no `Authorization` header (the OpenAI client insists on some key). The
 * client builds a new `Headers` for each request: that one loses the header in place (copying
 * it cost more than the rest of this wrapper); other shapes are copied.
 */
function withoutKey(fetch: typeof globalThis.fetch): typeof globalThis.fetch {
  return (input, init) => {
    if (init?.headers instanceof Headers) {
      init.headers.delete('authorization');
      return fetch(input, init);
    }
    const headers = new Headers(init?.headers);
    headers.delete('authorization');
    return fetch(input, { ...init, headers });
  };
}
