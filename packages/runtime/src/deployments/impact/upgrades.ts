import {
  AGENT_REF_PATTERN,
  diffActions,
  diffOutput,
  parseConnectorRef,
  type ChangeLists,
  type StoredDefinition,
  type UpgradeBody,
} from '@weft/core';
import { listSteps, type StepDefinition, type WorkflowDefinition } from '@weft/engine';
import type { AgentResolver } from '../plugin-refs.js';

const AGENT_REF = new RegExp(AGENT_REF_PATTERN);

/** What the impact check reads of the registry (the server: its registry store). */
export interface UpgradeSources {
  /** A published version's definition; undefined when the registry has none. */
  pluginDefinition: (slug: string, version: string) => Promise<StoredDefinition | undefined>;
  /** The latest version of a plugin: what a bare `plugin: <slug>` step runs. */
  latestVersion?: (slug: string) => Promise<string | undefined>;
  /** How agent references' ranges resolve. */
  agentVersions?: AgentResolver;
}

/** A plugin or agent a workflow uses, with the version it resolves to and the actions called. */
interface Use {
  kind: 'plugin' | 'agent';
  slug: string;
  version: string | null;
  actions: Set<string>;
}

/** An upgrade, with the actions whose change breaks (`*` for an agent's output). */
export interface Upgrade extends UpgradeBody {
  brokenActions: Set<string>;
}

/**
 * Compares the plugins and agents two revisions use, by the registry's breaking-change rules
 * (`diffActions` for a plugin's actions, `diffOutput` for an agent's output schema); diffs are
 * memoised by slug and versions, so many executions cost one registry read each.
 */
export class UpgradeCheck {
  private readonly diffs = new Map<string, Promise<ChangeLists | undefined>>();
  private readonly latest = new Map<string, Promise<string | undefined>>();
  private readonly ranges = new Map<
    string,
    Promise<((range: string) => string | undefined) | undefined>
  >();

  constructor(private readonly sources: UpgradeSources | undefined) {}

  /** The plugins and agents whose version changes from `old` to `next`. */
  async between(old: WorkflowDefinition, next: WorkflowDefinition): Promise<Upgrade[]> {
    const before = await this.usesOf(old);
    const after = await this.usesOf(next);
    const out: Upgrade[] = [];
    for (const [key, now] of after) {
      const was = before.get(key);
      if (!was || was.version === now.version) continue;
      const diff =
        was.version !== null && now.version !== null
          ? await this.diff(now.kind, now.slug, was.version, now.version)
          : undefined;
      const breaks = (diff?.breaks ?? []).filter(
        (c) => now.kind === 'agent' || now.actions.has(c.action),
      );
      out.push({
        kind: now.kind,
        slug: now.slug,
        from: was.version,
        to: now.version,
        breaking: breaks.length > 0,
        breaks,
        compatible: diff?.compatible.length ?? 0,
        compared: diff !== undefined,
        brokenActions: new Set(breaks.map((c) => (now.kind === 'agent' ? '*' : c.action))),
      });
    }
    return out;
  }

  private diff(
    kind: 'plugin' | 'agent',
    slug: string,
    from: string,
    to: string,
  ): Promise<ChangeLists | undefined> {
    const key = `${kind} ${slug} ${from} ${to}`;
    let found = this.diffs.get(key);
    if (!found) {
      found = this.read(kind, slug, from, to);
      this.diffs.set(key, found);
    }
    return found;
  }

  private async read(
    kind: 'plugin' | 'agent',
    slug: string,
    from: string,
    to: string,
  ): Promise<ChangeLists | undefined> {
    const sources = this.sources;
    if (!sources) return undefined;
    const [old, next] = await Promise.all([
      sources.pluginDefinition(slug, from),
      sources.pluginDefinition(slug, to),
    ]);
    if (!old || !next) return undefined;
    if (kind === 'plugin') return diffActions(old.actions ?? [], next.actions ?? []);
    const out: ChangeLists = { breaks: [], compatible: [] };
    diffOutput(slug, old.agent?.['output_schema'], next.agent?.['output_schema'], out);
    return out;
  }

  /** The registry's latest version of a plugin, read once per check. */
  private latestOf(slug: string): Promise<string | undefined> {
    let found = this.latest.get(slug);
    if (!found) {
      found = this.sources?.latestVersion?.(slug) ?? Promise.resolve(undefined);
      this.latest.set(slug, found);
    }
    return found;
  }

  /** How an agent's ranges resolve, read once per check. */
  private rangesOf(slug: string): Promise<((range: string) => string | undefined) | undefined> {
    let found = this.ranges.get(slug);
    if (!found) {
      found = this.sources?.agentVersions?.(slug) ?? Promise.resolve(undefined);
      this.ranges.set(slug, found);
    }
    return found;
  }

  /** The plugins and agents a workflow's steps use, by kind and slug. */
  private async usesOf(workflow: WorkflowDefinition): Promise<Map<string, Use>> {
    const uses = new Map<string, Use>();
    for (const { step } of listSteps(workflow)) {
      const use = await this.useOf(step);
      if (!use) continue;
      const key = `${use.kind} ${use.slug}`;
      const known = uses.get(key);
      if (known) for (const a of use.actions) known.actions.add(a);
      else uses.set(key, use);
    }
    return uses;
  }

  private async useOf(step: StepDefinition): Promise<Use | undefined> {
    const actions = new Set(step.action !== undefined ? [step.action] : []);
    if (typeof step.connector === 'string') {
      const ref = parseConnectorRef(step.connector);
      return ref && { kind: 'plugin', slug: ref.name, version: ref.version, actions };
    }
    if (typeof step.plugin === 'string') {
      const latest = (await this.latestOf(step.plugin)) ?? null;
      return { kind: 'plugin', slug: step.plugin, version: latest, actions };
    }
    const match = typeof step.agent === 'string' ? AGENT_REF.exec(step.agent) : null;
    if (!match) return undefined;
    const slug = `${match[1]}-${match[2]}`;
    const resolve = await this.rangesOf(slug);
    return { kind: 'agent', slug, version: resolve?.(match[3]!) ?? match[3]!, actions };
  }
}

/** Whether a step of a workflow calls an action an upgrade breaks. */
export function callsBroken(step: StepDefinition, upgrade: Upgrade): boolean {
  if (upgrade.kind === 'agent') {
    const match = typeof step.agent === 'string' ? AGENT_REF.exec(step.agent) : null;
    return match !== null && `${match[1]}-${match[2]}` === upgrade.slug;
  }
  const slug =
    typeof step.connector === 'string' ? parseConnectorRef(step.connector)?.name : step.plugin;
  return slug === upgrade.slug && upgrade.brokenActions.has(step.action ?? '');
}
