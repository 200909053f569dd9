import {
  ForbiddenError,
  NotFoundError,
  ValidationError,
  WeftError,
  type AnalyticsResponse,
  type CreatedKey,
  type CreateKeyRequest,
  type Decision,
  type PluginState,
  type DeprecateResponse,
  type Principal,
  type PublishResponse,
  type RemoveResponse,
  type RevokedKey,
  type SearchResponse,
  type SigningKeyInfo,
  type UpdateResponse,
  type VersionRecord,
} from '@weft/core';
import { createApiKey, revokeApiKey } from '@weft/identity';
import { AnswerCache, MAX_CACHED_SCHEMA_BYTES } from './answer-cache.js';
import type { DefinitionFormat } from './definition/parse.js';
import { buildDetail, pickVersion } from './detail.js';
import { DownloadCounter } from './download-counter.js';
import type { CompiledRegistryOptions } from './options.js';
import { diffWithPublished, prepareVersion } from './prepare-version.js';
import { isoNow } from './rules/clock.js';
import type { VersionDiff } from './rules/breaking.js';
import { decideDeprecate, decidePublish, decideRemove, decideUpdate } from './rules/decide.js';
import { slugKey, slugProblem, versionProblem } from './rules/names.js';
import { toSearchQuery, type SearchParams } from './search-query.js';
import { SharedReads } from './shared-reads.js';
import { readPublicKey } from './signatures.js';

/** A definition as received: its exact bytes and format (and its parsed data, when known). */
export interface Submission {
  bytes: Uint8Array;
  format: DefinitionFormat;
  /** The bytes already parsed by the hardened parser (the HTTP body parser does it). */
  parsed?: unknown;
}

/** A schema download: the version record (checksum, content type) and its exact bytes. */
export interface SchemaAnswer {
  record: VersionRecord;
  body: Uint8Array;
}

/**
 * The registry's operations, independent of HTTP. Search and detail answers are cached until a
 * change of this process makes them stale (see {@link AnswerCache}).
 */
export class RegistryService {
  private readonly cache: AnswerCache<SchemaAnswer>;
  /** Answers being read from the store (see {@link SharedReads}). */
  private readonly reads = new SharedReads();
  private readonly downloads: DownloadCounter;
  /** Stops watching other processes' changes (see {@link watchOtherProcesses}). */
  private unwatch: (() => Promise<void>) | undefined;

  constructor(readonly options: CompiledRegistryOptions) {
    this.cache = new AnswerCache(options.cacheTtlMs, options.cacheSize, () => options.clock.now());
    this.downloads = new DownloadCounter(options.store, options.downloadFlushMs, (slugs) =>
      this.cache.countsWritten(slugs),
    );
  }

  /**
   * Drops cached answers as soon as another process on the same database (a replica sharing
   * PostgreSQL) changes a plugin, instead of when their time to live runs out.
   */
  async watchOtherProcesses(): Promise<void> {
    this.unwatch ??= await this.options.store.watchPluginChanges((slug) =>
      slug === null ? this.cache.changedAll() : this.cache.changed(slug),
    );
  }

  /** Writes the download counts not yet written and stops watching; call before the store closes. */
  async close(): Promise<void> {
    await this.unwatch?.();
    this.unwatch = undefined;
    await this.downloads.close();
  }

  /** The caller of a write (the options' authenticator, bound); throws UNAUTHORIZED. */
  readonly authenticate = (header: string | undefined): Promise<Principal> =>
    this.options.authenticate(header);

  /** Checks read access: anyone on a public registry, key holders on a private one. */
  async authorizeRead(header: string | undefined): Promise<void> {
    if (this.options.private) await this.authenticate(header);
  }

  /** `GET /plugins/search`, serialised. */
  async search(params: SearchParams): Promise<string> {
    const query = toSearchQuery(params);
    if (query === null) return NO_RESULTS;
    const key = `s\0${query.exact}\0${query.tag ?? ''}\0${query.kind ?? ''}\0${query.limit}\0${query.offset}`;
    return this.reads.answer(
      this.cache.search(key),
      `search\0${key}`,
      this.cache.searchStamp(),
      () => this.cache.dropSearch(key),
      async (stamp) => {
        const { total, plugins } = await this.options.store.search(query);
        const answer: SearchResponse = {
          total,
          results: plugins.map(({ slug, kind, listing, downloads, created_at, updated_at }) => ({
            slug,
            kind,
            name: listing!.name,
            description: listing!.description,
            version: listing!.latest_version,
            author: listing!.author,
            tags: listing!.tags,
            downloads,
            created_at,
            updated_at,
          })),
        };
        const text = JSON.stringify(answer);
        this.cache.keepSearch(key, text, stamp);
        return text;
      },
    );
  }

  /** `GET /plugins/{slug}`, serialised. */
  async detail(slug: string, version: string | undefined, baseUrl: string): Promise<string> {
    requireSlug(slug);
    const key = `${slug}\0${version ?? ''}\0${baseUrl}`;
    return this.reads.answer(
      this.cache.detail(slug, key),
      `detail\0${key}`,
      this.cache.detailStamp(slug),
      () => this.cache.dropDetail(key),
      async (stamp) => {
        const found = await this.options.store.getDetail(slug, version);
        if (!found) throw new NotFoundError(`no plugin ${slug}`, { slug });
        const { state } = found;
        const record = pickVersion(state, slug, version);
        // The store read the listing's latest; the rules decide which version is latest.
        const definition =
          version !== undefined || record.version === state.plugin.listing?.latest_version
            ? found.definition
            : await this.options.store.getDefinition(slug, record.version);
        if (!definition)
          throw new NotFoundError(`${slug}@${record.version} has no definition`, { slug });
        const text = JSON.stringify(buildDetail(state, record, definition, baseUrl));
        this.cache.keepDetail(slug, key, text, stamp);
        return text;
      },
    );
  }

  /**
   * `GET /plugins/{slug}/{version}/schema`: the exact bytes, and `count` to count the download.
   * Bodies up to 64 KiB are cached until a change of the slug (a removed version is never
   * served from the cache).
   */
  async schema(slug: string, version: string): Promise<SchemaAnswer & { count(): Promise<void> }> {
    requireSlug(slug);
    const key = `${slug}\0${version}`;
    const answer = await this.reads.answer(
      this.cache.schema(slug, key),
      `schema\0${key}`,
      this.cache.schemaStamp(slug),
      () => this.cache.dropSchema(key),
      async (stamp) => {
        const state = await this.options.store.getPlugin(slug);
        if (!state) throw new NotFoundError(`no plugin ${slug}`, { slug });
        const record = pickVersion(state, slug, version);
        const body = await this.options.store.getBody(slug, record.version);
        if (!body)
          throw new NotFoundError(`${slug}@${version} has no definition`, { slug, version });
        const read = { record, body };
        if (body.byteLength <= MAX_CACHED_SCHEMA_BYTES)
          this.cache.keepSchema(slug, key, read, stamp);
        return read;
      },
    );
    const counted = answer.record.version;
    return {
      ...answer,
      count: () => this.downloads.count(slug, counted, isoNow(this.options.clock)),
    };
  }

  /** `POST /plugins`. */
  async publish(
    principal: Principal,
    submission: Submission,
    dryRun: boolean,
    baseUrl: string,
  ): Promise<PublishResponse> {
    const at = isoNow(this.options.clock);
    const { definition, version } = await prepareVersion(
      this.options.store,
      submission,
      principal.owner,
      at,
      this.options.agents,
    );
    const slug = definition.slug;
    const key = slugKey(slug);
    await this.modify(slug, key, dryRun, (state, confusable) =>
      decidePublish(state, confusable, slug, key, version, { principal, at, dryRun }),
    );
    return {
      status: 'published',
      slug,
      version: version.version,
      url: `${baseUrl}/plugins/${slug}`,
      checksum: version.checksum,
      ...(dryRun ? { dry_run: true } : {}),
    };
  }

  /** `PUT /plugins/{slug}`. */
  async update(
    principal: Principal,
    slug: string,
    submission: Submission,
    dryRun: boolean,
    baseUrl: string,
  ): Promise<UpdateResponse & { diff?: VersionDiff }> {
    requireSlug(slug);
    const at = isoNow(this.options.clock);
    const { definition, version } = await prepareVersion(
      this.options.store,
      submission,
      principal.owner,
      at,
      this.options.agents,
    );
    if (definition.slug !== slug) {
      throw new ValidationError(
        `the definition's slug ${definition.slug} is not ${slug}, the plugin being updated`,
        {
          field: 'slug',
          constraint: 'matches_path',
        },
      );
    }
    const diff =
      version.kind === 'plugin'
        ? await diffWithPublished(this.options.store, slug, definition)
        : undefined;
    const { previous } = await this.modify(slug, slugKey(slug), dryRun, (state) =>
      decideUpdate(state, slug, version, { principal, at, dryRun, diff }),
    );
    return {
      status: 'updated',
      slug,
      version: version.version,
      previous_version: previous,
      url: `${baseUrl}/plugins/${slug}`,
      checksum: version.checksum,
      ...(dryRun ? { dry_run: true, ...(diff ? { diff } : {}) } : {}),
    };
  }

  /** `POST /plugins/{slug}/{version}/deprecate`. */
  async deprecate(
    principal: Principal,
    slug: string,
    version: string,
    reason: string,
    replacement: string | null,
  ): Promise<DeprecateResponse> {
    requireSlugVersion(slug, version);
    const at = isoNow(this.options.clock);
    await this.modify(slug, slugKey(slug), false, (state) =>
      decideDeprecate(state, slug, version, reason, replacement, { principal, at, dryRun: false }),
    );
    return { status: 'deprecated', slug, version, reason, replacement_version: replacement };
  }

  /** `DELETE /plugins/{slug}/{version}`. */
  async remove(principal: Principal, slug: string, version: string): Promise<RemoveResponse> {
    requireSlugVersion(slug, version);
    const nowMs = this.options.clock.now();
    const usedBy = await this.options.usage.activeWorkflows(slug, version);
    await this.modify(slug, slugKey(slug), false, (state) =>
      decideRemove(state, slug, version, {
        principal,
        at: new Date(nowMs).toISOString(),
        dryRun: false,
        nowMs,
        windowMs: this.options.unpublishWindowMs,
        usedBy,
      }),
    );
    return { status: 'removed', slug, version };
  }

  /**
   * Runs a write through the store and marks the cached answers of `slug` stale, unless nothing
   * was written: a dry run, or a refusal by the rules (a {@link WeftError} from `decide`). A
   * failure of another kind may have happened after the commit, so it counts as a change.
   */
  private async modify<T>(
    slug: string,
    key: string,
    dryRun: boolean,
    decide: (state: PluginState | undefined, confusableWith: string | undefined) => Decision<T>,
  ): Promise<T> {
    let changed = !dryRun;
    let result: T;
    try {
      result = await this.options.store.modifyPlugin<T>(slug, key, decide);
    } catch (error) {
      if (error instanceof WeftError) changed = false;
      throw error;
    } finally {
      if (changed) this.cache.changed(slug);
    }
    if (changed) await this.options.onChange?.(slug);
    return result;
  }

  /** `GET /plugins/{slug}/analytics`: owner only. */
  async analytics(principal: Principal, slug: string, days: number): Promise<AnalyticsResponse> {
    requireSlug(slug);
    // The owner sees every download counted so far, not only those already written.
    await this.downloads.flush();
    const state = await this.options.store.getPlugin(slug);
    if (!state) throw new NotFoundError(`no plugin ${slug}`, { slug });
    if (state.plugin.owner !== principal.owner) {
      throw new ForbiddenError(
        `analytics of ${slug} are for its owner ${state.plugin.owner} only`,
        { slug },
      );
    }
    const since = new Date(this.options.clock.now() - (days - 1) * 86_400_000)
      .toISOString()
      .slice(0, 10);
    const stats = await this.options.store.downloadStats(slug, since);
    return { slug, downloads: state.plugin.downloads, ...stats };
  }

  /** `POST /keys`: uploads an owner's OpenPGP public key. */
  async addSigningKey(
    principal: Principal,
    armored: string,
  ): Promise<{ created: boolean; key: SigningKeyInfo }> {
    const record = await readPublicKey(armored, principal.owner, isoNow(this.options.clock));
    const created = await this.options.store.insertSigningKey(record);
    const { key_ids: _ids, armored: armored_key, ...info } = record;
    return { created, key: { ...info, armored_key } };
  }

  /** `GET /owners/{owner}/keys`: the public keys of an owner. */
  async signingKeys(owner: string): Promise<SigningKeyInfo[]> {
    const records = await this.options.store.listSigningKeys(owner);
    return records.map(({ key_ids: _ids, armored: armored_key, ...info }) => ({
      ...info,
      armored_key,
    }));
  }

  /** `POST /auth/keys`: an admin creates a key. */
  async createKey(principal: Principal, request: CreateKeyRequest): Promise<CreatedKey> {
    if (!principal.admin)
      throw new ForbiddenError('only admin keys may create keys', { reason: 'not_admin' });
    return createApiKey(this.options.store, request, isoNow(this.options.clock));
  }

  /** Revokes a key (admin keys only); every server refuses it within 0.5 s. */
  async revokeKey(principal: Principal, id: string): Promise<RevokedKey> {
    if (!principal.admin)
      throw new ForbiddenError('only admin keys may revoke keys', { reason: 'not_admin' });
    return revokeApiKey(this.options.store, id, isoNow(this.options.clock));
  }
}

/** The answer to a query that holds no word. */
const NO_RESULTS = JSON.stringify({ total: 0, results: [] } satisfies SearchResponse);

/** A slug in a path: what may exist (a new definition's own slug is checked with its body). */
function requireSlug(slug: string): void {
  const problem = slugProblem(slug, { existing: true });
  if (problem)
    throw new ValidationError(problem.message, { field: 'slug', constraint: problem.constraint });
}

function requireSlugVersion(slug: string, version: string): void {
  requireSlug(slug);
  const problem = versionProblem(version);
  if (problem)
    throw new ValidationError(problem.message, {
      field: 'version',
      constraint: problem.constraint,
    });
}
