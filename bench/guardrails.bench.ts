/**
 * Content guardrails on a clean 10 KB model answer (the common case: every byte is read and
 * nothing is found): PII of every kind, toxicity and two blocked topics, as the guardrails
 * interceptor runs them, next to each default detector alone, the libraries they build on
 * alone (obscenity's matcher, libphonenumber-js's own text scan, Porter stemming of every
 * word), weft's ProfanityMatcher (obscenity's matches, compiled for speed) beside obscenity's
 * own, and a bare function call over the same text (the physical limit).
 */
import { PII_KINDS } from '@weft/core';
import {
  englishProfanityMatcher,
  outputText,
  piiDetector,
  topicDetector,
  toxicityDetector,
  type DetectionRequest,
} from '@weft/guardrails';
import { findPhoneNumbersInText } from 'libphonenumber-js/max';
import { RegExpMatcher, englishDataset, englishRecommendedTransformers } from 'obscenity';
import { stemmer } from 'stemmer';
import { runSuite, type BenchCase, type BenchResult } from './harness.js';

/** Budget for PII + toxicity + topics on a 10 KB answer (ns). */
export const TARGET_NS = 3_000_000;

const SENTENCES = [
  'Thanks for reaching out about order 48213; it shipped on 2024-03-15 and should arrive within 3-5 business days.',
  'The invoice total is 1,299.99 EUR including VAT at 19%, payable within 30 days of receipt.',
  'Release 4.2.1 fixes the login timeout reported in ticket #5521 and improves sync by about 40%.',
  'If the problem persists, restart the application, clear its cache and try again after 10:30.',
  'Our support team is available on weekdays from 9:00 to 17:00, and the knowledge base is open around the clock.',
  'We reviewed the configuration you attached: the retry policy uses three attempts with exponential backoff.',
];

/** A clean answer of about 10 KB, with the numbers, dates and versions of a real one. */
function answer(): { text: string; rest: string } {
  let text = '';
  for (let i = 0; text.length < 10 * 1024; i++) text += `${SENTENCES[i % SENTENCES.length]} `;
  return { text, rest: '' };
}

function cases(): BenchCase[] {
  const output = { text: answer().text, usage: { input_tokens: 812, output_tokens: 2304 } };
  const text = outputText(output, 'guardrails');
  const request: DetectionRequest = {
    text,
    kinds: PII_KINDS,
    topics: ['gambling', 'nuclear weapon'],
  };
  const pii = piiDetector();
  const toxicity = toxicityDetector();
  const topics = topicDetector();
  const matcher = new RegExpMatcher({
    ...englishDataset.build(),
    ...englishRecommendedTransformers,
  });
  const ours = englishProfanityMatcher();
  const all = () => {
    const read: DetectionRequest = { ...request, text: outputText(output, 'guardrails') };
    return [pii.detect(read), topics.detect(read), toxicity.detect(read)];
  };
  let count = 0;
  const bare = (t: string) => (count += t.length);
  return [
    { name: 'bare function call over the text (limit)', fn: () => bare(text), limit: true },
    { name: 'weft: PII + toxicity + topics (interceptor work)', fn: all, targetNs: TARGET_NS },
    { name: 'weft PII detector (6 kinds)', fn: () => pii.detect(request) },
    { name: 'weft toxicity detector', fn: () => toxicity.detect(request) },
    { name: 'weft topic detector (2 topics)', fn: () => topics.detect(request) },
    { name: 'weft output text walk', fn: () => outputText(output, 'guardrails') },
    { name: 'bare obscenity getAllMatches', fn: () => matcher.getAllMatches(text) },
    { name: 'weft ProfanityMatcher getAllMatches', fn: () => ours.getAllMatches(text) },
    {
      name: 'bare libphonenumber-js findPhoneNumbersInText',
      fn: () => findPhoneNumbersInText(text, 'US'),
    },
    {
      name: 'bare stemmer on every word',
      fn: () => text.split(/[^\p{L}\p{N}]+/u).map((w) => stemmer(w)),
    },
  ];
}

/** Runs the suite after checking the answer is clean for every detector. */
export function run(): BenchResult[] {
  const all = cases();
  const found = all[1]!.fn() as { found: Record<string, number> }[];
  if (found.some((d) => Object.keys(d.found).length > 0)) {
    throw new Error(`the bench answer is not clean: ${JSON.stringify(found)}`);
  }
  return runSuite('guardrails', all, { warmupMs: 600, rounds: 7, roundMs: 300 });
}
