import { ValidationError } from '@weft/core';

/**
 * Characters of text the content guardrails read from one output by default (1 MiB): room for
 * any model answer, and a bound on the time the lexical detectors take (some 0.1 to 0.3 s for
 * this much on a busy machine, most of it splitting the text into words for blocked topics).
 */
export const DEFAULT_MAX_TEXT_CHARS = 1024 * 1024;

/**
 * The text of an output, as the content detectors read it: every string, every object key and
 * every number, one per line, in document order. Walks without recursion, so a deeply nested
 * output cannot overflow the stack. Fails with `VALIDATION` (`constraint: "max_text_size"`)
 * when the text would pass `maxChars`: what cannot be read cannot be let through.
 */
export function outputText(
  output: unknown,
  field: string,
  maxChars: number = DEFAULT_MAX_TEXT_CHARS,
): string {
  if (typeof output === 'string') return checked(output, output.length, field, maxChars);
  const parts: string[] = [];
  let size = 0;
  const stack: unknown[] = [output];
  while (stack.length > 0) {
    const value = stack.pop();
    if (typeof value === 'string') {
      parts.push(value);
      size += value.length + 1;
    } else if (typeof value === 'number' || typeof value === 'bigint') {
      const text = String(value);
      parts.push(text);
      size += text.length + 1;
    } else if (Array.isArray(value)) {
      for (let i = value.length - 1; i >= 0; i--) stack.push(value[i]);
    } else if (value !== null && typeof value === 'object') {
      const entries = Object.entries(value);
      for (let i = entries.length - 1; i >= 0; i--) {
        const [key, item] = entries[i]!;
        stack.push(item, key);
      }
    }
    if (size > maxChars) break;
  }
  return checked(parts.join('\n'), size, field, maxChars);
}

function checked(text: string, size: number, field: string, maxChars: number): string {
  if (size <= maxChars) return text;
  throw new ValidationError(
    `the output is too large for ${field} to read (over ${maxChars} characters of text); ` +
      'make it smaller or raise the guardrails limit (docs/workflow-language.md#guardrails)',
    { field, constraint: 'max_text_size', max_chars: maxChars },
  );
}
