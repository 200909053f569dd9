import { AGENT_REF_PATTERN, suggestion, ValidationError } from '@weft/core';
import maxSatisfying from 'semver/ranges/max-satisfying.js';
import type { AgentDefinition } from './schema.js';

const REF = new RegExp(AGENT_REF_PATTERN);

/** `agent:<namespace>/<name>@<version>` of a definition. */
export function agentRef(agent: AgentDefinition): string {
  return `agent:${agent.namespace}/${agent.name}@${agent.version}`;
}

/**
 * The version a reference's `range` picks among `versions`: the one written exactly, else the
 * highest that satisfies it (prereleases only when the range names one); undefined when none.
 */
export function resolveAgentVersion(
  versions: readonly string[],
  range: string,
): string | undefined {
  if (versions.includes(range)) return range;
  return maxSatisfying([...versions], range) ?? undefined;
}

/**
 * The agent definitions a run may use, by `<namespace>/<name>` and version: local ones (`add`,
 * from `--agents <dir>`) and those published to a registry (`setPublished`, replaced as the
 * registry changes). A reference's version may be a range: the highest version that satisfies
 * it is picked (prereleases only when the range names one), as for subworkflows; a local
 * definition wins over a published one of the same version.
 */
export class AgentCatalog {
  private readonly byName = new Map<string, AgentDefinition[]>();
  private readonly published = new Map<string, AgentDefinition[]>();

  constructor(agents: Iterable<AgentDefinition> = []) {
    for (const agent of agents) this.add(agent);
  }

  /** Adds a definition; throws `VALIDATION` when the same version is there already. */
  add(agent: AgentDefinition): this {
    const key = `${agent.namespace}/${agent.name}`;
    const versions = this.byName.get(key) ?? [];
    if (versions.some((a) => a.version === agent.version)) {
      throw new ValidationError(`agent ${agentRef(agent)} is defined twice`, {
        field: 'agent.version',
        constraint: 'unique',
      });
    }
    versions.push(agent);
    this.byName.set(key, versions);
    return this;
  }

  /**
   * Replaces the published versions of `<namespace>/<name>` (the registry's versions that are
   * not removed; deprecated ones included, as for plugins). An empty list forgets them.
   */
  setPublished(name: string, agents: readonly AgentDefinition[]): void {
    if (agents.length === 0) this.published.delete(name);
    else this.published.set(name, [...agents]);
  }

  get size(): number {
    let n = 0;
    for (const key of this.names()) n += this.versionsOf(key)!.length;
    return n;
  }

  /** Every `<namespace>/<name>`, local and published. */
  private names(): Set<string> {
    return new Set([...this.byName.keys(), ...this.published.keys()]);
  }

  /** The versions of `<namespace>/<name>`: local ones, then published ones of other versions. */
  private versionsOf(key: string): AgentDefinition[] | undefined {
    const local = this.byName.get(key);
    const published = this.published.get(key);
    if (!published) return local;
    if (!local) return published;
    return [...local, ...published.filter((p) => !local.some((a) => a.version === p.version))];
  }

  /** The definition a reference picks, or undefined. */
  find(ref: string): AgentDefinition | undefined {
    const match = REF.exec(ref);
    if (!match) return undefined;
    const versions = this.versionsOf(`${match[1]}/${match[2]}`);
    if (!versions) return undefined;
    const best = resolveAgentVersion(
      versions.map((a) => a.version),
      match[3]!,
    );
    return best === undefined ? undefined : versions.find((a) => a.version === best);
  }

  /** The definition a reference picks; throws `VALIDATION` naming what is there. */
  resolve(ref: string): AgentDefinition {
    const agent = this.find(ref);
    if (agent) return agent;
    const match = REF.exec(ref);
    const name = match ? `${match[1]}/${match[2]}` : ref;
    const versions = this.versionsOf(name);
    const message = versions
      ? `no version of agent ${name} matches "${match![3]}" (there are ${versions.map((a) => a.version).join(', ')})`
      : `unknown agent ${ref}${suggestion(name, [...this.names()])} (agents come from --agents <dir>, default ./agents, or are published to the registry)`;
    throw new ValidationError(message, { field: 'agent', constraint: 'exists' });
  }
}
