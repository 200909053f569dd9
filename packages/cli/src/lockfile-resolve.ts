import { createHash } from 'node:crypto';
import { readdir, readFile } from 'node:fs/promises';
import { join, relative, resolve, sep } from 'node:path';
import canonicalize from 'canonicalize';
import {
  AgentCatalog,
  parseAgentSource,
  resolveAgentVersion,
  type AgentDefinition,
} from '@weft/agents';
import { ValidationError, type LockKind } from '@weft/core';
import {
  compileLoadOptions,
  isPlainObject,
  listSteps,
  parseWorkflowSource,
  pickWorkflow,
  type WorkflowDefinition,
} from '@weft/engine';
import { LocalInvoker, type CompiledConnector } from '@weft/sdk';
import { readManifest } from './plugins-dir.js';

/** What one reference of a workflow resolved to here, and the names `--update` knows it by. */
export interface Resolution {
  version: string;
  checksum: string;
  source: string;
  /** The names that select it for `weft workflow lock --update <slug>`. */
  names: string[];
  /** The step that names it, then the reference as written (for the agent and workflow pins). */
  steps: { step: Record<string, unknown> }[];
}

/** The references of one workflow, by kind and as written; undefined: nothing found here. */
export type Resolved = Record<LockKind, Map<string, Resolution | undefined>>;

/** Where references resolve: the loaded workflows (with their definitions as written) and dirs. */
export interface ResolveSources {
  workflows: readonly {
    workflow: WorkflowDefinition;
    raw: Record<string, unknown>;
    file: string;
  }[];
  /** Versions to prefer when they are there (the locked ones), by kind and reference. */
  prefer?: (kind: LockKind, ref: string) => string | undefined;
}

/** The local definitions references resolve against, read once. */
export interface Shelf {
  connectors: CompiledConnector[];
  /** The install manifests (`weft plugin install --save`) of the plugins and agents dirs. */
  installed: Awaited<ReturnType<typeof readManifest>>;
  installedAgents: Awaited<ReturnType<typeof readManifest>>;
  agents: { agent: AgentDefinition; file: string; checksum: string }[];
  checksums: Map<string, string>;
  /** The directory of the lock file: paths in it are relative to it. */
  base: string;
}

/** Reads the plugins and agents directories (each may be missing). */
export async function readShelf(
  pluginsDir: string,
  agentsDir: string,
  base: string,
): Promise<Shelf> {
  const invoker = new LocalInvoker({ environment: process.env });
  const connectors = await invoker.loadConnectorDir(pluginsDir, { missingOk: true });
  const checksums = new Map<string, string>();
  for (const c of connectors) if (c.file) checksums.set(c.file, sha256(await readFile(c.file)));
  return {
    connectors,
    installed: await readManifest(pluginsDir),
    installedAgents: await readManifest(agentsDir),
    agents: await readAgents(agentsDir),
    checksums,
    base,
  };
}

async function readAgents(dir: string): Promise<Shelf['agents']> {
  let names: string[];
  try {
    names = (await readdir(dir)).filter((n) => /\.(ya?ml|json)$/.test(n)).sort();
  } catch {
    return [];
  }
  const agents: Shelf['agents'] = [];
  for (const name of names) {
    const file = join(dir, name);
    const bytes = await readFile(file);
    const loaded = parseAgentSource(bytes, file);
    if (!loaded.ok || !loaded.agent) {
      throw new ValidationError(
        `invalid agent definition ${file}: run weft plugin validate ${file}`,
        {
          field: 'agent',
          constraint: 'invalid',
        },
      );
    }
    agents.push({ agent: loaded.agent, file, checksum: sha256(bytes) });
  }
  return agents;
}

/**
 * Resolves every plugin, agent and subworkflow `workflow`'s steps reference (parallel children
 * included) as a local run does: a `plugin:` slug or `connector:` reference to the connector
 * file of the plugins directory (checksum: the registry's when the install manifest records the
 * same bytes, else the file's), an agent reference to the highest version matching its range in
 * the agents directory (a preferred version wins when it matches), a subworkflow to the highest
 * loaded version matching (checksum of the RFC 8785 JSON of its definition as written).
 */
export function resolveWorkflow(
  workflow: WorkflowDefinition,
  sources: ResolveSources,
  shelf: Shelf,
): Resolved {
  const resolved: Resolved = { plugins: new Map(), agents: new Map(), workflows: new Map() };
  const note = (kind: LockKind, ref: string, step: object, find: () => Resolution | undefined) => {
    const known = resolved[kind].get(ref);
    if (known) known.steps.push({ step: step as Record<string, unknown> });
    else if (!resolved[kind].has(ref)) {
      const found = find();
      if (found) found.steps.push({ step: step as Record<string, unknown> });
      resolved[kind].set(ref, found);
    }
  };
  for (const { step } of listSteps(workflow)) {
    if (typeof step.connector === 'string') {
      const ref = step.connector;
      note('plugins', ref, step, () => plugin(shelf, (c) => c.ref === ref));
    } else if (typeof step.plugin === 'string') {
      const slug = step.plugin;
      note('plugins', slug, step, () => plugin(shelf, (c) => c.name === slug || c.slug === slug));
    }
    if (typeof step.agent === 'string') {
      const ref = step.agent;
      note('agents', ref, step, () => agent(shelf, ref, sources.prefer?.('agents', ref)));
    }
    if (step.type === 'workflow' && typeof step.workflow === 'string') {
      const ref = step.version !== undefined ? `${step.workflow}@${step.version}` : step.workflow;
      const { workflow: name, version } = step;
      note('workflows', ref, step, () =>
        subworkflow(sources, shelf.base, name, version, sources.prefer?.('workflows', ref)),
      );
    }
  }
  return resolved;
}

function plugin(shelf: Shelf, match: (c: CompiledConnector) => boolean): Resolution | undefined {
  const connector = shelf.connectors.find(match);
  if (!connector?.file) return undefined;
  const checksum = shelf.checksums.get(connector.file)!;
  const slug = connector.slug ?? connector.name;
  const install = shelf.installed[slug] ?? shelf.installed[connector.name];
  const fromRegistry =
    install !== undefined && install.checksum === checksum && install.version === connector.version;
  return {
    version: connector.version,
    checksum,
    source: fromRegistry ? install.registry : shown(connector.file, shelf.base),
    names: [...new Set([slug, connector.name, connector.ref])],
    steps: [],
  };
}

function agent(shelf: Shelf, ref: string, preferred: string | undefined): Resolution | undefined {
  const match = /^agent:([^/]+)\/([^@]+)@(.+)$/.exec(ref);
  if (!match) return undefined;
  const [, namespace, name, range] = match as unknown as [string, string, string, string];
  const same = shelf.agents.filter((a) => a.agent.namespace === namespace && a.agent.name === name);
  const pinned =
    preferred !== undefined && resolveAgentVersion([preferred], range) === preferred
      ? same.find((a) => a.agent.version === preferred)
      : undefined;
  const best = new AgentCatalog(same.map((a) => a.agent)).find(ref);
  const found = pinned ?? same.find((a) => a.agent === best);
  if (!found) return undefined;
  const install = shelf.installedAgents[`${namespace}-${name}`];
  const fromRegistry =
    install !== undefined &&
    install.checksum === found.checksum &&
    install.version === found.agent.version;
  return {
    version: found.agent.version,
    checksum: found.checksum,
    source: fromRegistry ? install.registry : shown(found.file, shelf.base),
    names: [`${namespace}/${name}`, `${namespace}-${name}`, ref],
    steps: [],
  };
}

function subworkflow(
  sources: ResolveSources,
  base: string,
  name: string,
  range: string | undefined,
  preferred: string | undefined,
): Resolution | undefined {
  const all = sources.workflows.map((w) => w.workflow);
  const pinned = preferred !== undefined ? pickWorkflow(all, name, preferred) : undefined;
  const fits = pinned !== undefined && pickWorkflow([pinned], name, range) !== undefined;
  const found = (fits ? pinned : undefined) ?? pickWorkflow(all, name, range);
  const loaded = sources.workflows.find((w) => w.workflow === found);
  if (!found || !loaded) return undefined;
  return {
    version: found.version,
    checksum: definitionChecksum(loaded.raw),
    source: shown(loaded.file, base),
    names: [name],
    steps: [],
  };
}

/** `sha256:<hex>` of the RFC 8785 canonical JSON of a workflow definition as written. */
export function definitionChecksum(definition: Record<string, unknown>): string {
  return sha256(canonicalize(definition) ?? '');
}

/** `sha256:<hex>` of bytes or text. */
export function sha256(data: Uint8Array | string): string {
  return `sha256:${createHash('sha256').update(data).digest('hex')}`;
}

/** A file path as the lock shows it: relative to the lock's directory, in `/` form. */
export function shown(file: string, base: string): string {
  return relative(base, resolve(file)).split(sep).join('/');
}

/**
 * The workflow definitions of a file as written (the objects inside `workflows`), beside the
 * loaded ones, matched by name and version.
 */
export async function rawWorkflows(
  file: string,
  workflows: readonly WorkflowDefinition[],
  maxFileSize: number,
): Promise<{ workflow: WorkflowDefinition; raw: Record<string, unknown>; file: string }[]> {
  const { value } = parseWorkflowSource(
    await readFile(file),
    compileLoadOptions({ maxFileSize, file }),
  );
  const list = isPlainObject(value) && Array.isArray(value['workflows']) ? value['workflows'] : [];
  const out = [];
  for (const workflow of workflows) {
    const raw = list.find(
      (r): r is Record<string, unknown> =>
        isPlainObject(r) &&
        r['name'] === workflow.name &&
        String(r['version'] ?? '1.0.0') === workflow.version,
    );
    if (raw) out.push({ workflow, raw, file });
  }
  return out;
}
