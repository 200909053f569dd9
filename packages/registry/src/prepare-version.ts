import {
  ValidationError,
  type NewVersion,
  type RegistryStore,
  type StoredDefinition,
} from '@weft/core';
import { agentDefinition, isAgentSubmission, type AgentDefinitionCheck } from './agent-kind.js';
import {
  parseDefinitionBytes,
  type DefinitionFormat,
  type DefinitionProblem,
} from './definition/parse.js';
import { checksumOf, contentTypeOf } from './definition/checksum.js';
import { validateDefinition } from './definition/validate.js';
import { comparedVersion, diffDefinitions, type VersionDiff } from './rules/breaking.js';
import { verifyDefinitionSignature } from './signatures.js';

/** Throws the VALIDATION error of a list of problems: the first names field and constraint. */
export function problemsError(
  problems: readonly DefinitionProblem[],
  what = 'plugin definition',
): ValidationError {
  const first = problems[0] ?? { field: '', constraint: 'invalid', message: 'invalid definition' };
  const more = problems.length > 1 ? ` (and ${problems.length - 1} more problems)` : '';
  const at = first.line !== undefined ? ` (line ${first.line}, column ${first.column})` : '';
  return new ValidationError(`invalid ${what}: ${first.message}${at}${more}`, {
    field: first.field,
    constraint: first.constraint,
    ...(first.limit !== undefined ? { limit: first.limit } : {}),
    problems: problems.map((p) => ({ ...p })),
  });
}

/**
 * Parses and checks a submitted definition and, when it is signed, verifies the signature
 * against the owner's keys. A definition with a top-level `agent` is an agent (kind `agent`),
 * checked by `agents` (see {@link agentDefinition}). Nothing is stored.
 */
export async function prepareVersion(
  store: RegistryStore,
  submission: { bytes: Uint8Array; format: DefinitionFormat; parsed?: unknown },
  owner: string,
  at: string,
  agents?: AgentDefinitionCheck,
): Promise<{ definition: StoredDefinition; version: NewVersion }> {
  const { bytes, format } = submission;
  let value = submission.parsed;
  if (value === undefined) {
    const parsed = parseDefinitionBytes(bytes, format);
    if (!parsed.ok) throw problemsError(parsed.problems);
    value = parsed.value;
  }
  // What every stored version has: the bytes as sent, their checksum and content type.
  const stored = {
    published_at: at,
    checksum: checksumOf(bytes),
    content_type: contentTypeOf(format),
    body: bytes,
  };
  if (isAgentSubmission(value)) {
    const agent = agentDefinition(agents, bytes, format, owner);
    if (!agent.ok) throw problemsError(agent.problems, 'agent definition');
    const definition = agent.definition;
    const version: NewVersion = {
      ...stored,
      kind: 'agent',
      version: definition.version,
      definition,
      signature_key_id: null,
    };
    return { definition, version };
  }
  const checked = validateDefinition(value);
  if (!checked.ok) throw problemsError(checked.problems);
  const definition = checked.definition;
  let signatureKeyId: string | null = null;
  if (definition.signature) {
    const check = await verifyDefinitionSignature(definition, await store.listSigningKeys(owner));
    if (!check.ok) {
      throw new ValidationError(check.message, {
        field: 'signature',
        constraint: check.constraint,
      });
    }
    signatureKeyId = check.keyId;
  }
  return {
    definition,
    version: {
      ...stored,
      kind: 'plugin',
      version: definition.version,
      definition,
      signature_key_id: signatureKeyId,
    },
  };
}

/**
 * A new plugin definition compared with the highest stable version of `slug` not removed
 * (docs/registry.md#what-is-breaking); undefined when there is none. The update's decision
 * checks, in its transaction, that this version is still the one compared with.
 */
export async function diffWithPublished(
  store: RegistryStore,
  slug: string,
  definition: StoredDefinition,
): Promise<VersionDiff | undefined> {
  const state = await store.getPlugin(slug);
  const against = state && comparedVersion(state.versions);
  if (against === undefined) return undefined;
  const old = await store.getDefinition(slug, against);
  return old ? diffDefinitions(against, old, definition) : undefined;
}
