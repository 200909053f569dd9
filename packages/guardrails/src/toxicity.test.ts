import { describe, expect, it } from 'vitest';
import { toxicityDetector, toxicityScore } from './toxicity.js';

const detector = toxicityDetector();
const detect = (text: string) => detector.detect({ text, kinds: [], topics: [] });

describe('toxicityDetector', () => {
  it('scores clean text 0', () => {
    expect(detect('Thank you for your order; it ships tomorrow.')).toEqual({ found: {}, score: 0 });
  });

  it('scores 1 − 0.5^n for n profane terms, overlapping terms once', () => {
    expect(detect('what the fuck')).toEqual({ found: { profanity: 1 }, score: 0.5 });
    expect(detect('you fucking asshole, shit')).toEqual({ found: { profanity: 3 }, score: 0.875 });
    expect(toxicityScore(0)).toBe(0);
    expect(toxicityScore(2)).toBe(0.75);
  });

  it('sees through leet speak and repeated letters', () => {
    expect(detect('f u c k').score ?? 0).toBe(0);
    expect(detect('fuuuuck').score).toBe(0.5);
    expect(detect('sh1t').score).toBe(0.5);
  });

  it('does not flag innocent words that contain a profane one', () => {
    for (const text of [
      'Scunthorpe',
      'an assassin in class',
      'Dick Grayson',
      'cocktail hour',
      'assessment',
    ])
      expect(detect(text).score, text).toBeLessThan(1);
    expect(detect('Scunthorpe, assessment, cocktail, classic').score).toBe(0);
  });
});
