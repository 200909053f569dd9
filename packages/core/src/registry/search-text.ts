/**
 * The one definition of what a registry search matches, used on both sides of it: the store
 * indexes {@link searchText} of a plugin's name, tags and description, and a query is cut into
 * {@link searchWords} the same way. Both stores thus see the same words, folded the same way,
 * whatever the database's own tokenizer, locale or accent rules.
 */

const WORD = /[\p{L}\p{N}]+/gu;
const MARKS = /\p{M}+/gu;

/**
 * Folds text for matching: compatibility forms decomposed, accents and other combining marks
 * dropped, lower-cased without a locale ("Résumé" and "RESUME" fold to "resume").
 */
export function foldSearch(text: string): string {
  return text.toLowerCase().normalize('NFKD').replace(MARKS, '');
}

/** The folded words (runs of letters and digits) of `text`, in order, duplicates kept. */
export function searchWords(text: string): string[] {
  return foldSearch(text).match(WORD) ?? [];
}

/** The folded words of `text` joined by single spaces: what the full-text index is given. */
export function searchText(text: string): string {
  return searchWords(text).join(' ');
}

/** How an exact match is compared: folded, with runs of white space made single spaces. */
export function exactKey(text: string): string {
  return foldSearch(text).trim().replace(/\s+/g, ' ');
}
