import { ValidationError } from '@weft/core';
import { agentSlug, isAgentSubmission, parseDefinitionBytes } from '@weft/registry/definitions';

/**
 * Refuses downloaded definition bytes whose own slug (a plugin's `slug`, an agent's
 * `<namespace>-<name>`) is not `slug`, or whose own version is not `version` (when given): a
 * registry, a cache or a proxy in between must not install one plugin under another's name or
 * version. Throws `VALIDATION` naming the field, what was asked and what came.
 */
export function checkInstalledIdentity(
  bytes: Uint8Array,
  contentType: string,
  slug: string,
  version: string | undefined,
): void {
  const parsed = parseDefinitionBytes(bytes, contentType.includes('json') ? 'json' : 'yaml');
  if (!parsed.ok) {
    throw new ValidationError(
      `the definition downloaded for ${slug} does not parse: ${parsed.problems[0]?.message ?? 'invalid'}`,
      { field: 'definition', constraint: 'parse' },
    );
  }
  const own = identityOf(parsed.value);
  if (own.slug !== slug) {
    throw new ValidationError(
      `the definition downloaded for ${slug} is ${String(own.slug)}: refusing to install it under another name`,
      { field: own.field, constraint: 'matches', expected: slug, actual: own.slug ?? null },
    );
  }
  if (version !== undefined && own.version !== version) {
    throw new ValidationError(
      `the definition downloaded for ${slug}@${version} has version ${String(own.version)}: refusing to install it`,
      { field: 'version', constraint: 'matches', expected: version, actual: own.version ?? null },
    );
  }
}

function identityOf(value: unknown): { slug?: string; version?: string; field: string } {
  const text = (v: unknown) => (typeof v === 'string' ? v : undefined);
  if (isAgentSubmission(value)) {
    const agent = (value as { agent?: unknown }).agent as Record<string, unknown> | undefined;
    const namespace = text(agent?.['namespace']);
    const name = text(agent?.['name']);
    return {
      ...(namespace !== undefined && name !== undefined
        ? { slug: agentSlug({ namespace, name }) }
        : {}),
      ...(text(agent?.['version']) !== undefined ? { version: text(agent?.['version'])! } : {}),
      field: 'agent.name',
    };
  }
  const plugin = (typeof value === 'object' && value !== null ? value : {}) as Record<
    string,
    unknown
  >;
  return {
    ...(text(plugin['slug']) !== undefined ? { slug: text(plugin['slug'])! } : {}),
    ...(text(plugin['version']) !== undefined ? { version: text(plugin['version'])! } : {}),
    field: 'slug',
  };
}
