import type { DeploymentRecord, DeploymentStore } from './deployment-store.js';

/** {@link DeploymentStore} in process memory. */
export class MemoryDeploymentStore implements DeploymentStore {
  readonly kind = 'memory';
  private readonly active = new Map<string, DeploymentRecord>();
  private readonly past = new Map<string, DeploymentRecord[]>();

  async put(record: Omit<DeploymentRecord, 'revision' | 'created_at'>) {
    const past = this.past.get(record.name) ?? [];
    const stored: DeploymentRecord = structuredClone({
      ...record,
      revision: (past[0]?.revision ?? 0) + 1,
      created_at: past.at(-1)?.created_at ?? record.deployed_at,
    });
    this.past.set(record.name, [stored, ...past]);
    this.active.set(record.name, stored);
    return structuredClone(stored);
  }

  async get(name: string) {
    const found = this.active.get(name);
    return found && structuredClone(found);
  }

  async list() {
    return [...this.active.values()]
      .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))
      .map((r) => structuredClone(r));
  }

  async history(name: string) {
    return (this.past.get(name) ?? []).map((r) => structuredClone(r));
  }

  async remove(name: string) {
    return this.active.delete(name);
  }

  async usersOf(slug: string, version: string | null) {
    return [...this.active.values()]
      .filter((r) => r.plugins.some((p) => p.slug === slug && p.version === version))
      .map((r) => r.name)
      .sort();
  }

  async revisions() {
    return new Map([...this.active.values()].map((r) => [r.name, r.revision]));
  }
}
