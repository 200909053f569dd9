/** Decodes a message body: JSON when it parses, otherwise the text itself. */
export function decodeEvent(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return text;
  }
}
