import { afterEach, beforeEach } from 'vitest';
import { stringify } from 'yaml';
import type { FastifyInstance, LightMyRequestResponse } from 'fastify';
import type { PluginDefinition, PluginUsage, RegistryStore } from '@weft/core';
import { createApiKey } from '@weft/identity';
import { openTestStore, type TestStore } from '@weft/store';
import { buildServer, type BuiltServer } from '../build.js';
import { ManualClock } from '@weft/core/testing';

const databaseUrl = process.env['WEFT_TEST_DATABASE_URL'];

/** The stores every registry API test runs on; PostgreSQL only with WEFT_TEST_DATABASE_URL. */
export const TEST_STORES = [
  { name: 'SQLite', kind: 'sqlite' as const, skip: false },
  {
    name: 'PostgreSQL (set WEFT_TEST_DATABASE_URL to run)',
    kind: 'postgres' as const,
    skip: !databaseUrl,
  },
];

/** A clock tests move by hand (shared by every package's tests). */
export { ManualClock };

/** Active workflows by `slug@version`, set by tests. */
export class FakeUsage implements PluginUsage {
  readonly uses = new Map<string, string[]>();
  async activeWorkflows(slug: string, version: string): Promise<string[]> {
    return this.uses.get(`${slug}@${version}`) ?? [];
  }
}

/** A server on a fresh store, with keys for two owners and an admin. */
export interface Harness {
  app: FastifyInstance;
  server: BuiltServer;
  /** The registry store under the server. */
  store: RegistryStore;
  clock: ManualClock;
  usage: FakeUsage;
  /** Bearer keys: `acme` (owner acme), `other` (owner other), `admin` (owner ops, admin). */
  keys: { acme: string; other: string; admin: string };
  /** POST /plugins (or PUT with `method`) of a definition as JSON or YAML. */
  publish(definition: object, options?: PublishOptions): Promise<LightMyRequestResponse>;
  get(url: string, headers?: Record<string, string>): Promise<LightMyRequestResponse>;
}

/** How {@link Harness.publish} sends. */
export interface PublishOptions {
  key?: string | null;
  format?: 'json' | 'yaml';
  method?: 'POST' | 'PUT';
  query?: string;
}

/**
 * Sets up a fresh {@link Harness} before each test (options: private registry, answer cache,
 * download write interval).
 */
export function useHarness(
  kind: 'sqlite' | 'postgres',
  options: { private?: boolean; cacheTtlMs?: number; downloadFlushMs?: number } = {},
): () => Harness {
  let current: (Harness & { test: TestStore }) | undefined;
  beforeEach(async () => {
    const test = await openTestStore(kind, databaseUrl);
    const clock = new ManualClock();
    const usage = new FakeUsage();
    const server = await buildServer(
      {
        private: options.private ?? false,
        cacheTtlMs: options.cacheTtlMs ?? 0,
        // Downloads written before their answer unless a test says otherwise.
        downloadFlushMs: options.downloadFlushMs ?? 0,
      },
      { store: test.store, clock, usage, logger: false },
    );
    const at = new Date(clock.ms).toISOString();
    const keys = {
      acme: (await createApiKey(test.store, { name: 'acme' }, at)).key,
      other: (await createApiKey(test.store, { name: 'other' }, at)).key,
      admin: (await createApiKey(test.store, { name: 'ops', admin: true }, at)).key,
    };
    const app = server.app;
    current = {
      app,
      server,
      store: test.store,
      clock,
      usage,
      keys,
      test,
      publish: (definition, o = {}) => {
        const format = o.format ?? 'json';
        const slug = (definition as { slug?: string }).slug ?? '';
        const key = o.key === undefined ? keys.acme : o.key;
        return app.inject({
          method: o.method ?? 'POST',
          url: `${o.method === 'PUT' ? `/plugins/${slug}` : '/plugins'}${o.query ?? ''}`,
          headers: {
            'content-type': format === 'json' ? 'application/json' : 'application/yaml',
            ...(key === null ? {} : { authorization: `Bearer ${key}` }),
          },
          payload: format === 'json' ? JSON.stringify(definition) : stringify(definition),
        });
      },
      get: (url, headers = {}) => app.inject({ method: 'GET', url, headers }),
    };
  });
  afterEach(async () => {
    await current?.server.close();
    await current?.test.dispose();
    current = undefined;
  });
  return () => {
    if (!current) throw new Error('harness used outside a test');
    return current;
  };
}

/** A complete, valid definition; `overrides` replace top-level keys. */
export function pluginDefinition(
  slug: string,
  version = '1.0.0',
  overrides: Record<string, unknown> = {},
): PluginDefinition {
  return {
    slug,
    version,
    name: `${slug[0]!.toUpperCase()}${slug.slice(1)}`,
    description: `Talks to ${slug}.`,
    author: 'Acme Corp',
    homepage: `https://example.com/${slug}`,
    repository: `https://github.com/acme/${slug}`,
    license: 'MIT',
    tags: ['test'],
    icon: `https://example.com/${slug}.svg`,
    actions: [
      {
        name: 'send',
        description: 'Sends something',
        input_schema: {
          type: 'object',
          properties: { text: { type: 'string' } },
          required: ['text'],
        },
        output_schema: { type: 'object', properties: { id: { type: 'string' } } },
      },
    ],
    ...overrides,
  };
}

/** Bearer header of a key. */
export const bearer = (key: string) => ({ authorization: `Bearer ${key}` });
