import type { AgentDefinition } from '../../definition/schema.js';
import type { AgentAnswer, AgentBackend, AgentRequest } from '../../run/contract.js';
import type { LangChainModel, LangChainModelFactory } from './models.js';
import type { RetryPolicy } from './retry.js';

/** Options of {@link LangChainBackend}. */
export interface LangChainBackendOptions {
  /**
   * Makes the chat model of an agent (default: `@langchain/openai`, `@langchain/anthropic`);
   * called again only for a step that runs while the agent's other models are busy, or for
   * another key or answer limit. The model must keep no state between steps.
   */
  model?: LangChainModelFactory;
  /** Retries of a model call on 429, 5xx and lost connections. Default 2. */
  maxRetries?: number;
  /** The first backoff in ms, doubled at each retry (a `retry-after` header wins). Default 2000. */
  retryDelayMs?: number;
}

/** Idle models kept per agent, key and answer limit; more are made for concurrent steps. */
const MAX_IDLE = 8;

let models: Promise<typeof import('./models.js')> | undefined;

/**
 * The default models: LangChain's provider packages, loaded at the first langchain step (wrap it
 * to change the `fetch` a model calls with, as the server does for published agents).
 */
export const langChainProviderModel: LangChainModelFactory = async (agent, apiKey, fetch) =>
  (await (models ??= import('./models.js'))).langChainModel(agent, apiKey, fetch);

/**
 * The `langchain` backend: LangChain.js chat models (`ChatOpenAI`, `ChatAnthropic`) with the
 * tools bound (`bindTools`), driven by weft's own tool loop (`loop.ts`) so every budget holds
 * exactly. LangChain is loaded at the first step that uses this backend (importing it costs
 * about a second), so a process that never does pays nothing. A model (and its API client) is
 * made once and reused by later steps of the same agent, key and answer limit, one step at a
 * time: the loop sets its output-token cap before each turn.
 */
export class LangChainBackend implements AgentBackend {
  readonly name = 'langchain';
  private readonly model: LangChainModelFactory;
  private readonly retry: RetryPolicy;
  private loop: Promise<typeof import('./loop.js')> | undefined;
  private readonly idle = new WeakMap<AgentDefinition, Map<string, LangChainModel[]>>();

  constructor(options: LangChainBackendOptions = {}) {
    this.model = options.model ?? langChainProviderModel;
    this.retry = {
      maxRetries: options.maxRetries ?? 2,
      initialDelayMs: options.retryDelayMs ?? 2000,
    };
  }

  async run(request: AgentRequest): Promise<AgentAnswer> {
    this.loop ??= import('./loop.js');
    const { runToolLoop } = await this.loop;
    const idle = this.idleOf(request);
    let made = idle.pop();
    const model = async (fetch: typeof globalThis.fetch): Promise<LangChainModel> =>
      (made ??= await this.model(request.agent, request.apiKey, fetch));
    try {
      return await runToolLoop(request, model, this.retry, this.name);
    } finally {
      if (made && idle.length < MAX_IDLE) {
        made.setMaxTokens(undefined);
        idle.push(made);
      }
    }
  }

  /** The idle models of the request's agent, key and answer limit (the key a rotated one drops). */
  private idleOf(request: AgentRequest): LangChainModel[] {
    let byAgent = this.idle.get(request.agent);
    if (!byAgent) {
      byAgent = new Map();
      this.idle.set(request.agent, byAgent);
    }
    const key = `${request.maxResponseBytes}:${request.apiKey ?? ''}`;
    let idle = byAgent.get(key);
    if (!idle) {
      // A rotated key leaves its old entry: keep only the latest few.
      if (byAgent.size >= 4) byAgent.clear();
      idle = [];
      byAgent.set(key, idle);
    }
    return idle;
  }
}
