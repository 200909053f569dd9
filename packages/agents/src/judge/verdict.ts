import { PII_KINDS, type PiiKind } from '@weft/core';

/** What the judge model answers: the JSON asked for by {@link verdictSchema}. */
export interface Verdict {
  /** 0 (harmless) to 1 (severely toxic). */
  readonly toxicity: number;
  /** Occurrences of each asked PII kind found (never the data). */
  readonly pii: Readonly<Record<string, number>>;
  /** Occurrences of each blocked topic found, as the workflow spells it. */
  readonly topics: Readonly<Record<string, number>>;
}

/**
 * The JSON schema of the judge's answer (`{toxicity, pii: [{kind}], topics: [name]}`), in the
 * subset strict structured outputs accept: every property required, no other properties, PII
 * kinds and topic names as enums. With no topics asked, `topics` is any string (and ignored).
 */
export function verdictSchema(topics: readonly string[]): Record<string, unknown> {
  return {
    type: 'object',
    additionalProperties: false,
    required: ['toxicity', 'pii', 'topics'],
    properties: {
      toxicity: {
        type: 'number',
        description: '0 (harmless) to 1 (severely toxic)',
      },
      pii: {
        type: 'array',
        description: 'One entry per piece of personal data found: its kind, never the data',
        items: {
          type: 'object',
          additionalProperties: false,
          required: ['kind'],
          properties: { kind: { type: 'string', enum: [...PII_KINDS] } },
        },
      },
      topics: {
        type: 'array',
        description: 'The names, as listed, of the blocked topics the text touches',
        items: topics.length > 0 ? { type: 'string', enum: [...topics] } : { type: 'string' },
      },
    },
  };
}

/**
 * Reads the judge's answer strictly: anything that is not the verdict asked for is a reason
 * (naming only the place, never a value: the answer may echo the judged text) to fail closed.
 * PII kinds not asked are dropped; a topic must be one of `topics` (case and spaces aside).
 */
export function readVerdict(
  answer: unknown,
  kinds: readonly PiiKind[],
  topics: readonly string[],
): Verdict | string {
  if (typeof answer !== 'object' || answer === null || Array.isArray(answer)) {
    return 'the answer is not a JSON object';
  }
  const { toxicity, pii, topics: named } = answer as Record<string, unknown>;
  if (typeof toxicity !== 'number' || !(toxicity >= 0 && toxicity <= 1)) {
    return 'toxicity is not a number from 0 to 1';
  }
  if (!Array.isArray(pii)) return 'pii is not a list';
  if (!Array.isArray(named)) return 'topics is not a list';
  const asked = new Set<string>(kinds);
  const known = new Set<string>(PII_KINDS);
  const foundPii: Record<string, number> = {};
  for (const [i, entry] of pii.entries()) {
    const kind = (entry as { kind?: unknown } | null)?.kind;
    if (typeof kind !== 'string' || !known.has(kind)) return `pii[${i}].kind is not a PII kind`;
    if (asked.has(kind)) foundPii[kind] = (foundPii[kind] ?? 0) + 1;
  }
  const byKey = new Map(topics.map((topic) => [topicKey(topic), topic]));
  const foundTopics: Record<string, number> = {};
  for (const [i, entry] of named.entries()) {
    if (typeof entry !== 'string') return `topics[${i}] is not a string`;
    if (topics.length === 0) continue;
    const topic = byKey.get(topicKey(entry));
    if (topic === undefined) return `topics[${i}] is not one of the blocked topics given`;
    foundTopics[topic] = (foundTopics[topic] ?? 0) + 1;
  }
  return { toxicity, pii: foundPii, topics: foundTopics };
}

function topicKey(topic: string): string {
  return topic.trim().replace(/\s+/g, ' ').toLowerCase();
}
