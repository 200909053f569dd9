import {
  exactKey,
  PLUGIN_KINDS,
  searchWords,
  ValidationError,
  type PluginKind,
  type SearchQuery,
} from '@weft/core';

/** Raw search parameters (already typed by the route schema). */
export interface SearchParams {
  q?: string;
  tag?: string;
  /** `plugin` or `agent`: only entries of this kind. */
  kind?: string;
  limit?: number;
  offset?: number;
}

/** Default and largest page size (docs/protocol.md#limits). */
export const SEARCH_LIMITS = {
  defaultLimit: 20,
  maxLimit: 100,
  maxOffset: 100_000,
  maxWords: 8,
} as const;

/**
 * Turns parameters into a store query: `q` split into folded words (letters and digits, accents
 * dropped, lower case; core's `searchWords`), each matched as a word prefix; `limit` and
 * `offset` checked. `null` when `q` holds text but no word (`q=!!!`): nothing can match it.
 */
export function toSearchQuery(params: SearchParams): SearchQuery | null {
  const limit = params.limit ?? SEARCH_LIMITS.defaultLimit;
  const offset = params.offset ?? 0;
  if (!Number.isInteger(limit) || limit < 1 || limit > SEARCH_LIMITS.maxLimit) {
    throw new ValidationError(`limit must be an integer from 1 to ${SEARCH_LIMITS.maxLimit}`, {
      field: 'limit',
      constraint: 'range',
    });
  }
  if (!Number.isInteger(offset) || offset < 0 || offset > SEARCH_LIMITS.maxOffset) {
    throw new ValidationError(`offset must be an integer from 0 to ${SEARCH_LIMITS.maxOffset}`, {
      field: 'offset',
      constraint: 'range',
    });
  }
  const exact = exactKey(params.q ?? '');
  const words = [...new Set(searchWords(exact))];
  if (words.length > SEARCH_LIMITS.maxWords) {
    throw new ValidationError(`q may hold at most ${SEARCH_LIMITS.maxWords} words`, {
      field: 'q',
      constraint: 'max_words',
    });
  }
  const kind = params.kind === undefined || params.kind === '' ? undefined : params.kind;
  if (kind !== undefined && !PLUGIN_KINDS.includes(kind as PluginKind)) {
    throw new ValidationError(`kind must be one of ${PLUGIN_KINDS.join(', ')}`, {
      field: 'kind',
      constraint: 'enum',
    });
  }
  const tag = params.tag?.trim().toLowerCase();
  if (words.length === 0 && exact !== '') return null;
  return {
    words,
    exact,
    tag: tag === '' ? undefined : tag,
    ...(kind !== undefined ? { kind: kind as PluginKind } : {}),
    limit,
    offset,
  };
}
