/** A key that appears twice in one JSON object. */
export interface DuplicateKey {
  key: string;
  /** 1-based position of the second occurrence. */
  line: number;
  column: number;
}

const QUOTE = 0x22;
const BACKSLASH = 0x5c;

/**
 * The first key repeated within one object of `text`, which must be valid JSON (parse it
 * first). `JSON.parse` keeps the last of two equal keys where other parsers keep the first, so
 * the stored bytes of a definition with one could mean two things; keys are compared decoded
 * (`"a"` and `"\u0061"` are the same key). One linear pass, no recursion.
 */
export function findDuplicateKey(text: string): DuplicateKey | undefined {
  /** Keys seen in each open object; `null` for an open array. */
  const open: (Set<string> | null)[] = [];
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (code === 0x7b) open.push(new Set());
    else if (code === 0x5b) open.push(null);
    else if (code === 0x7d || code === 0x5d) open.pop();
    else if (code === QUOTE) {
      const start = i;
      let escaped = false;
      for (i++; text.charCodeAt(i) !== QUOTE; i++) {
        if (text.charCodeAt(i) === BACKSLASH) {
          escaped = true;
          i++;
        }
      }
      const keys = open[open.length - 1];
      if (!keys || !isFollowedByColon(text, i + 1)) continue;
      const raw = text.slice(start, i + 1);
      const key = escaped ? (JSON.parse(raw) as string) : raw.slice(1, -1);
      if (keys.has(key)) return { key, ...positionOf(text, start) };
      keys.add(key);
    }
  }
  return undefined;
}

function isFollowedByColon(text: string, from: number): boolean {
  for (let i = from; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (code === 0x3a) return true;
    if (code !== 0x20 && code !== 0x0a && code !== 0x0d && code !== 0x09) return false;
  }
  return false;
}

function positionOf(text: string, offset: number): { line: number; column: number } {
  let line = 1;
  let lineStart = 0;
  for (let i = 0; i < offset; i++) {
    if (text.charCodeAt(i) === 0x0a) {
      line++;
      lineStart = i + 1;
    }
  }
  return { line, column: offset - lineStart + 1 };
}
