import { LEXICAL_DETECTORS } from '@weft/core';
import type { MatchPayload } from 'obscenity';
import type { Detection, SyncDetector } from './detector.js';
import { englishProfanityMatcher, type ProfanityMatcher } from './profanity-matcher.js';

/**
 * The score of `matches` profane terms: 1 − 0.5^n (none 0, one 0.5, two 0.75, three 0.875…).
 * It does not fall with the length of the text: one slur in a long answer is still one slur.
 */
export function toxicityScore(matches: number): number {
  return 1 - 0.5 ** matches;
}

/**
 * The default toxicity detector: `obscenity`'s English profanity dataset with its recommended
 * transformers (leet speak, look-alike characters, repeated letters, and its whitelist of
 * innocent words such as "Scunthorpe"), matched by {@link ProfanityMatcher} (obscenity's
 * matches, about ten times faster on clean text). `found.profanity` counts the terms matched
 * (several dataset entries matching the same words count once), and `score` is
 * {@link toxicityScore}.
 */
export function toxicityDetector(): SyncDetector {
  let matcher: ProfanityMatcher | undefined;
  return {
    name: LEXICAL_DETECTORS.toxicity,
    check: 'toxicity',
    detect({ text }): Detection {
      matcher ??= englishProfanityMatcher();
      const matches = distinctSpans(matcher.getAllMatches(text));
      return { found: matches > 0 ? { profanity: matches } : {}, score: toxicityScore(matches) };
    },
  };
}

/** Matches of different terms over the same characters (`ass`, `asshole`) count once. */
function distinctSpans(matches: MatchPayload[]): number {
  if (matches.length < 2) return matches.length;
  const sorted = [...matches].sort((a, b) => a.startIndex - b.startIndex);
  let count = 0;
  let end = -1;
  for (const match of sorted) {
    if (match.startIndex > end) count++;
    end = Math.max(end, match.endIndex);
  }
  return count;
}
