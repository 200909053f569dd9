import {
  RegExpMatcher,
  SyntaxKind,
  englishDataset,
  englishRecommendedTransformers,
  type Node,
} from 'obscenity';
import { describe, expect, it } from 'vitest';
import { englishProfanityMatcher } from './profanity-matcher.js';

const options = { ...englishDataset.build(), ...englishRecommendedTransformers };
const obscenity = new RegExpMatcher(options);
const ours = englishProfanityMatcher();

/** A deterministic pseudo-random source (mulberry32), so the corpus is the same on every run. */
function random(seed: number): () => number {
  return () => {
    seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** A text one of the dataset's patterns matches: optionals in or out, wildcards as `x`. */
function sample(nodes: readonly Node[], take: () => boolean): string {
  let text = '';
  for (const node of nodes) {
    if (node.kind === SyntaxKind.Literal) text += String.fromCodePoint(...node.chars);
    else if (node.kind === SyntaxKind.Wildcard) text += 'x';
    else if (take()) text += sample([node.childNode], take);
  }
  return text;
}

const LEET: Record<string, string[]> = {
  a: ['@', '4', 'A', 'а', 'Ａ'],
  e: ['3', 'E', 'е', 'ee'],
  i: ['1', '!', '|', 'I', 'і'],
  o: ['0', 'O', 'о', 'oo', '𝐨'],
  s: ['$', '5', 'S', 'ss', 'sss'],
  t: ['7', 'T'],
  c: ['(', 'C', 'с'],
  u: ['U', 'uuuu', 'ü', 'ｕ'],
  k: ['K', 'kk', '🅺'],
  g: ['6', 'gg', 'G'],
  l: ['/', 'll'],
};

/** `word` disguised: look-alikes, leet speak, capitals, repeated letters, separators. */
function disguise(word: string, next: () => number): string {
  let text = '';
  for (const char of word) {
    const options = LEET[char];
    const roll = next();
    if (options && roll < 0.5) text += options[Math.floor(next() * options.length)];
    else if (roll < 0.6) text += char + char + char;
    else if (roll < 0.65) text += `${char}.`;
    else if (roll < 0.7) text += `${char} `;
    else text += char;
  }
  return text;
}

const NOISE = [
  ' ',
  '. ',
  '\n',
  ', ',
  'the ',
  'class ',
  'assessment ',
  '😀',
  '\ud83d',
  '\ude00',
  'ß',
  'İ',
  'ﬁ',
  '𝒻𝓊𝒸𝓀',
  '🅵🆄🅲🅺',
];

function corpus(): string[] {
  const next = random(17);
  const take = () => next() < 0.5;
  const { blacklistedTerms, whitelistedTerms = [] } = englishDataset.build();
  const words = blacklistedTerms.map(({ pattern }) => sample(pattern.nodes, take));
  const texts = [
    ...words,
    ...whitelistedTerms,
    ...words.map((word) => disguise(word, next)),
    ...words.map((word) => word.toUpperCase()),
    ...whitelistedTerms.map((term) => `${term.toUpperCase()}s and ${term}`),
    'f.u.c.k',
    'f u c k',
    'sh1t',
    'fuuuuuck',
    'FUCK',
    'ｆｕｃｋ',
    '$h!7',
    'b1tch',
    'a$$hole',
    'Scunthorpe',
    'Dick Grayson',
    'cocktail hour in the assembly room of the class',
    'pen is mightier, penistone',
    'what the fuck you fucking asshole, shit',
  ];
  for (let i = 0; i < 1500; i++) {
    let text = '';
    const parts = 1 + Math.floor(next() * 6);
    for (let p = 0; p < parts; p++) {
      const roll = next();
      if (roll < 0.35) text += disguise(words[Math.floor(next() * words.length)]!, next);
      else if (roll < 0.55) text += whitelistedTerms[Math.floor(next() * whitelistedTerms.length)];
      else if (roll < 0.8) text += NOISE[Math.floor(next() * NOISE.length)];
      else text += String.fromCodePoint(Math.floor(next() * 0x3000));
      text += next() < 0.5 ? ' ' : '';
    }
    texts.push(text);
  }
  return texts;
}

describe('ProfanityMatcher', () => {
  it("finds exactly obscenity's matches on a corpus of words, disguises and innocent words", () => {
    const texts = corpus();
    let matched = 0;
    for (const text of texts) {
      const expected = obscenity.getAllMatches(text);
      expect(ours.getAllMatches(text), JSON.stringify(text)).toEqual(expected);
      if (expected.length > 0) matched++;
    }
    // the corpus is not trivially clean, nor trivially profane
    expect(matched).toBeGreaterThan(texts.length / 4);
    expect(matched).toBeLessThan(texts.length);
  });

  it('finds nothing in clean text and in the whitelisted false positives', () => {
    for (const text of ['Scunthorpe', 'an assassin in class', 'assessment', 'cocktail hour']) {
      expect(ours.getAllMatches(text), text).toEqual([]);
    }
  });

  it('maps matches back to the original text, surrogate pairs included', () => {
    const text = 'ok 😀 sh1iit and 🅵🆄🅲🅺!';
    const matches = ours.getAllMatches(text);
    expect(matches).toEqual(obscenity.getAllMatches(text));
    expect(new Set(matches.map((m) => text.slice(m.startIndex, m.endIndex + 1)))).toEqual(
      new Set(['sh1iit', '🅵🆄🅲🅺']),
    );
  });

  it('reads long texts as short ones', () => {
    const long = `${'All good here. '.repeat(5_000)}then fuuuck`;
    expect(ours.getAllMatches(long)).toEqual(obscenity.getAllMatches(long));
    expect(ours.getAllMatches('fuck')).toEqual(obscenity.getAllMatches('fuck'));
  });
});
