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
