import { createHash } from 'node:crypto';
import type { DefinitionFormat } from './parse.js';

/** `sha256:<hex>` of bytes: the checksum of a stored definition. */
export function checksumOf(bytes: Uint8Array): string {
  return `sha256:${createHash('sha256').update(bytes).digest('hex')}`;
}

/** The content type a definition is stored and served with. */
export function contentTypeOf(format: DefinitionFormat): string {
  return format === 'json' ? 'application/json' : 'application/yaml';
}
