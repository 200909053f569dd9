import {
  checkAgentDefinition,
  resolveAgentVersion,
  type AgentCatalog,
  type AgentDefinition,
} from '@weft/agents';
import type { RegistryStore } from '@weft/core';
import type { AgentDefinitionCheck } from '@weft/registry';
import type { AgentResolver } from '@weft/runtime';

/** The registry's check of agent definitions: `@weft/agents`' own (the server composes both). */
export const registryAgentCheck: AgentDefinitionCheck = (bytes) => checkAgentDefinition(bytes);

/**
 * How the unpublish check resolves agent references: for a slug of kind `agent`, a range picks
 * among its versions that are not removed (deprecated ones included) as the runner does
 * (`resolveAgentVersion`). Agents of the server's local directory are not counted: a version a
 * local file shadows is still held as in use, which only ever refuses more.
 */
export function publishedAgentVersions(store: RegistryStore): AgentResolver {
  return async (slug) => {
    const state = await store.getPlugin(slug);
    if (state?.plugin.kind !== 'agent') return undefined;
    const versions = state.versions.filter((v) => v.status !== 'removed').map((v) => v.version);
    return (range) => resolveAgentVersion(versions, range);
  };
}

/** Most agents read per page when all are loaded. */
const PAGE = 100;

/**
 * Keeps an {@link AgentCatalog}'s published agents equal to the registry's: every slug of kind
 * `agent`, each version that is not removed (deprecated ones included, as for plugins), parsed
 * from its stored bytes. `load` reads them all (at start, and when changes may have been missed);
 * `refresh(slug)` reads one slug again after a change (this process's before its answer is
 * sent, another replica's when its announcement arrives).
 */
export class PublishedAgents {
  /** Parsed definitions by `slug@version` (a version's bytes never change). */
  private readonly parsed = new Map<string, AgentDefinition>();
  /** Every definition read from the registry (not those of the local directory). */
  private readonly fromRegistry = new WeakSet<AgentDefinition>();
  /** The `<namespace>/<name>` each slug was last seen publishing. */
  private readonly names = new Map<string, string>();

  constructor(
    private readonly store: RegistryStore,
    private readonly catalog: AgentCatalog,
    private readonly onError: (error: unknown, slug: string) => void = () => {},
  ) {}

  /** Whether `agent` was read from the registry (its author is any key holder). */
  has(agent: AgentDefinition): boolean {
    return this.fromRegistry.has(agent);
  }

  /** Reads every published agent. */
  async load(): Promise<void> {
    for (let offset = 0; ; offset += PAGE) {
      const { plugins } = await this.store.search({
        words: [],
        exact: '',
        tag: undefined,
        kind: 'agent',
        limit: PAGE,
        offset,
      });
      for (const plugin of plugins) await this.refresh(plugin.slug);
      if (plugins.length < PAGE) return;
    }
  }

  /** Refreshes in flight by slug: one at a time per slug, so an older read never wins. */
  private readonly pending = new Map<string, Promise<void>>();

  /** Reads the versions of one slug again (nothing when it is not an agent). */
  refresh(slug: string): Promise<void> {
    const next = (this.pending.get(slug) ?? Promise.resolve()).then(() => this.reread(slug));
    this.pending.set(slug, next);
    void next.finally(() => {
      if (this.pending.get(slug) === next) this.pending.delete(slug);
    });
    return next;
  }

  private async reread(slug: string): Promise<void> {
    try {
      const state = await this.store.getPlugin(slug);
      const agents: AgentDefinition[] = [];
      if (state?.plugin.kind === 'agent') {
        for (const record of state.versions) {
          if (record.status === 'removed') continue;
          const agent = await this.read(slug, record.version);
          if (agent) agents.push(agent);
        }
      }
      const previous = this.names.get(slug);
      const name = agents[0] ? `${agents[0].namespace}/${agents[0].name}` : undefined;
      if (previous !== undefined && previous !== name) this.catalog.setPublished(previous, []);
      if (name === undefined) this.names.delete(slug);
      else {
        this.names.set(slug, name);
        this.catalog.setPublished(name, agents);
      }
    } catch (error) {
      this.onError(error, slug);
    }
  }

  private async read(slug: string, version: string): Promise<AgentDefinition | undefined> {
    const key = `${slug}@${version}`;
    const known = this.parsed.get(key);
    if (known) return known;
    const body = await this.store.getBody(slug, version);
    if (!body) return undefined;
    const checked = checkAgentDefinition(body);
    if (!checked.ok) {
      throw new Error(`${key} no longer loads as an agent: ${checked.problems[0]?.message}`);
    }
    this.parsed.set(key, checked.agent);
    this.fromRegistry.add(checked.agent);
    return checked.agent;
  }
}
