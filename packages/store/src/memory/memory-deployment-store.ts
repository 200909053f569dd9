import { deploymentKey, type DeploymentRecord, type DeploymentStore } from '@weft/core';

/** {@link DeploymentStore} in process memory, keyed by (owner, name). */
export class MemoryDeploymentStore implements DeploymentStore {
  readonly kind = 'memory';
  private readonly active = new Map<string, DeploymentRecord>();
  private readonly past = new Map<string, DeploymentRecord[]>();

  async put(record: Omit<DeploymentRecord, 'revision' | 'created_at'>) {
    const key = deploymentKey(record.owner, record.name);
    const past = this.past.get(key) ?? [];
    const stored: DeploymentRecord = structuredClone({
      ...record,
      revision: (past[0]?.revision ?? 0) + 1,
      created_at: past.at(-1)?.created_at ?? record.deployed_at,
    });
    this.past.set(key, [stored, ...past]);
    this.active.set(key, stored);
    return structuredClone(stored);
  }

  async get(owner: string, name: string) {
    const found = this.active.get(deploymentKey(owner, name));
    return found && structuredClone(found);
  }

  async list(owner?: string) {
    return [...this.active.values()]
      .filter((r) => owner === undefined || r.owner === owner)
      .sort((a, b) => compare(a.owner, b.owner) || compare(a.name, b.name))
      .map((r) => structuredClone(r));
  }

  async history(owner: string, name: string) {
    return (this.past.get(deploymentKey(owner, name)) ?? []).map((r) => structuredClone(r));
  }

  async remove(owner: string, name: string) {
    return this.active.delete(deploymentKey(owner, name));
  }

  async usersOf(slug: string, version: string | null) {
    const names = [...this.active.values()]
      .filter((r) => r.plugins.some((p) => p.slug === slug && p.version === version))
      .map((r) => r.name);
    return [...new Set(names)].sort();
  }

  async revisions() {
    return new Map(
      [...this.active.values()].map((r) => [deploymentKey(r.owner, r.name), r.revision]),
    );
  }
}

function compare(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
