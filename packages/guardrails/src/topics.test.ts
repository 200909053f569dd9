import { describe, expect, it } from 'vitest';
import { topicDetector, topicStems } from './topics.js';

const detector = topicDetector();
const detect = (text: string, topics: string[]) => detector.detect({ text, kinds: [], topics });

describe('topicDetector', () => {
  it('matches a topic in its inflected forms', () => {
    expect(detect('He gambled, she gambles, they love gambling.', ['gambling'])).toEqual({
      found: { gambling: 3 },
    });
    expect(detect('Weapons were sold.', ['weapon'])).toEqual({ found: { weapon: 1 } });
    expect(detect('one Cryptocurrency, two cryptocurrencies', ['cryptocurrency'])).toEqual({
      found: { cryptocurrency: 2 },
    });
  });

  it('matches the words of a topic in a row, case aside', () => {
    expect(detect('Nuclear Weapons treaties', ['nuclear weapon'])).toEqual({
      found: { 'nuclear weapon': 1 },
    });
    expect(detect('nuclear power, and weapons', ['nuclear weapon'])).toEqual({ found: {} });
  });

  it('does not match other words that share letters', () => {
    expect(detect('the gamut of gamers', ['gambling'])).toEqual({ found: {} });
    expect(detect('a catalogue of catapults', ['cats'])).toEqual({ found: {} });
  });

  it('reports each topic as the workflow spells it', () => {
    expect(detect('Politics and an election', ['Politics', 'Elections', 'sport'])).toEqual({
      found: { Politics: 1, Elections: 1 },
    });
  });

  it('ignores topics without a word', () => {
    expect(topicStems('!!!')).toEqual([]);
    expect(detect('anything !!!', ['!!!'])).toEqual({ found: {} });
  });
});
