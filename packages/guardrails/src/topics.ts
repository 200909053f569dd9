import { LEXICAL_DETECTORS } from '@weft/core';
import { stemmer } from 'stemmer';
import type { Detection, DetectionRequest, SyncDetector } from './detector.js';

const WORD = /[\p{L}\p{N}]+(?:['’][\p{L}]+)?/gu;

/** A blocked topic as matched: the stems of its words, in order. */
interface CompiledTopic {
  readonly topic: string;
  readonly stems: readonly string[];
}

/** The words of `text`, lower case, in order (`don't` is one word). */
export function words(text: string): string[] {
  return text.toLowerCase().match(WORD) ?? [];
}

/** The stems of a topic's words; empty when it has no word (`"!!!"`). */
export function topicStems(topic: string): string[] {
  return words(topic).map((word) => stemmer(word));
}

/**
 * The default topic detector: a topic matches where its words appear in a row in any inflected
 * form, by their Porter stems (`gambling` matches "gamble", "gambled", "gambles"; `nuclear
 * weapon` matches "nuclear weapons"). Only words that start like a topic's first stem are
 * stemmed (Porter changes endings only), so the cost stays near that of splitting the text
 * into words. `found` counts the matches per topic, as the workflow spells it.
 */
export function topicDetector(): SyncDetector {
  const compiled = new Map<string, CompiledTopic>();
  const compile = (topic: string): CompiledTopic => {
    let entry = compiled.get(topic);
    if (!entry) {
      entry = { topic, stems: topicStems(topic) };
      if (compiled.size < 10_000) compiled.set(topic, entry);
    }
    return entry;
  };
  return {
    name: LEXICAL_DETECTORS.topics,
    check: 'topics',
    detect({ text, topics }: DetectionRequest): Detection {
      const wanted = topics.map(compile).filter((topic) => topic.stems.length > 0);
      if (wanted.length === 0) return { found: {} };
      return { found: matchTopics(words(text), wanted) };
    },
  };
}

function matchTopics(list: string[], topics: CompiledTopic[]): Record<string, number> {
  const prefixes = new Set(topics.map((topic) => topic.stems[0]!.slice(0, 2)));
  const stems = new Map<number, string>();
  const stemAt = (index: number): string => {
    let stem = stems.get(index);
    if (stem === undefined) stems.set(index, (stem = stemmer(list[index]!)));
    return stem;
  };
  const found: Record<string, number> = {};
  for (let i = 0; i < list.length; i++) {
    if (!prefixes.has(list[i]!.slice(0, 2))) continue;
    for (const { topic, stems: wanted } of topics) {
      if (i + wanted.length > list.length) continue;
      let all = true;
      for (let k = 0; k < wanted.length && all; k++) all = stemAt(i + k) === wanted[k];
      if (all) found[topic] = (found[topic] ?? 0) + 1;
    }
  }
  return found;
}
