/** Deterministic plugin definitions for the registry benchmark: 10,000 distinct, searchable plugins. */
import type { PluginDefinition } from '@weft/core';

const NOUNS = [
  'slack',
  'github',
  'postgres',
  'mysql',
  'redis',
  'kafka',
  'stripe',
  'twilio',
  'jira',
  'notion',
  'linear',
  'sentry',
  'datadog',
  'openai',
  'anthropic',
  'gmail',
  'calendar',
  'drive',
  'dropbox',
  'salesforce',
  'hubspot',
  'zendesk',
  'shopify',
  'airtable',
  'sheets',
  'bigquery',
  'snowflake',
  'mongo',
  'elastic',
  's3',
  'sqs',
  'sns',
  'pubsub',
  'teams',
  'discord',
  'telegram',
  'whatsapp',
  'sendgrid',
  'mailgun',
  'pagerduty',
];
const VERBS = [
  'sync',
  'export',
  'import',
  'notify',
  'report',
  'backup',
  'monitor',
  'audit',
  'relay',
  'bridge',
  'archive',
  'digest',
  'alert',
  'transform',
  'query',
];
const TAGS = [
  'chat',
  'database',
  'devops',
  'ai',
  'email',
  'crm',
  'payments',
  'storage',
  'analytics',
  'messaging',
  'cloud',
  'monitoring',
  'sales',
  'support',
  'files',
];

/** The i-th seeded definition (i from 0). */
export function seededDefinition(i: number): PluginDefinition {
  const noun = NOUNS[i % NOUNS.length]!;
  const verb = VERBS[Math.floor(i / NOUNS.length) % VERBS.length]!;
  const slug = `${noun}-${verb}-${i}`;
  return {
    slug,
    version: '1.0.0',
    name: `${noun[0]!.toUpperCase()}${noun.slice(1)} ${verb} ${i}`,
    description: `${verb[0]!.toUpperCase()}${verb.slice(1)} records between ${noun} and your workflows, variant ${i}.`,
    author: `vendor-${i % 97}`,
    homepage: `https://example.com/${slug}`,
    repository: `https://github.com/example/${slug}`,
    license: 'MIT',
    icon: `https://example.com/${slug}.svg`,
    tags: [TAGS[i % TAGS.length]!, TAGS[(i * 7) % TAGS.length]!].filter(
      (t, k, all) => all.indexOf(t) === k,
    ),
    actions: [
      {
        name: 'run',
        description: `Runs ${verb} on ${noun}`,
        input_schema: { type: 'object', properties: { id: { type: 'string' } } },
        output_schema: { type: 'object', properties: { ok: { type: 'boolean' } } },
      },
    ],
  };
}

/** Search queries of the benchmark: single words, prefixes and two-word queries. */
export function searchQueries(): string[] {
  return [
    ...NOUNS,
    ...VERBS,
    ...NOUNS.map((n) => n.slice(0, 3)),
    ...NOUNS.slice(0, 20).map((n, k) => `${n} ${VERBS[k % VERBS.length]}`),
  ];
}

/** Slugs of the first `count` seeded plugins. */
export function seededSlugs(count: number): string[] {
  return Array.from({ length: count }, (_, i) => seededDefinition(i).slug);
}

/**
 * Search paths as users send them: what a search box sends while typing (every prefix of two
 * letters or more of each word), whole words, word pairs, tag filters and words within a tag,
 * each drawn with Zipf popularity (the k-th most popular query k times rarer than the first),
 * `count` paths in a fixed pseudo-random order. Most of these queries are not among
 * {@link searchQueries}, so the answer cache meets many of them for the first time.
 */
export function searchMix(count: number): string[] {
  const words = [...NOUNS, ...VERBS];
  const queries = new Set<string>();
  for (const word of words) {
    for (let end = 2; end <= word.length; end++) queries.add(`q=${word.slice(0, end)}`);
  }
  for (const noun of NOUNS) for (const verb of VERBS) queries.add(`q=${noun}%20${verb}`);
  for (const tag of TAGS) {
    queries.add(`tag=${tag}`);
    for (const word of words) queries.add(`q=${word}&tag=${tag}`);
  }
  let seed = 42;
  const random = () => (seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31) / 2 ** 31;
  const ranked = [...queries].sort(() => random() - 0.5);
  const weights = ranked.map((_, k) => 1 / (k + 1));
  const cumulative: number[] = [];
  let sum = 0;
  for (const w of weights) cumulative.push((sum += w));
  return Array.from({ length: count }, () => {
    const x = random() * sum;
    let lo = 0;
    let hi = cumulative.length - 1;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (cumulative[mid]! < x) lo = mid + 1;
      else hi = mid;
    }
    return `/plugins/search?${ranked[lo]!}`;
  });
}
