import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, extname, join } from 'node:path';
// `schema.hide` (keeps these routes out of the OpenAPI document) is @fastify/swagger's.
import type {} from '@fastify/swagger';
import type { FastifyInstance, FastifyReply, FastifyRequest, RouteShorthandOptions } from 'fastify';
import { NotFoundError } from '@weft/core';

/**
 * The console's Content-Security-Policy: scripts, styles and API calls from this origin only (no
 * inline script or style, no eval), no plugins, no framing (docs/console.md#security).
 */
export const CONSOLE_CSP = consoleCsp([]);

/**
 * The console's Content-Security-Policy, its pages also connecting to `connect` (origins: the
 * identity provider's token endpoint, where the browser exchanges its sign-in code).
 */
export function consoleCsp(connect: readonly string[]): string {
  return [
    "default-src 'none'",
    "script-src 'self'",
    "style-src 'self'",
    "img-src 'self'",
    "font-src 'self'",
    ["connect-src 'self'", ...connect].join(' '),
    "manifest-src 'self'",
    "base-uri 'none'",
    "form-action 'self'",
    "frame-ancestors 'none'",
  ].join('; ');
}

/** Headers of every console answer. */
const SECURITY_HEADERS = {
  'x-content-type-options': 'nosniff',
  'x-frame-options': 'DENY',
  'referrer-policy': 'no-referrer',
  'cross-origin-opener-policy': 'same-origin',
  'cross-origin-resource-policy': 'same-origin',
};

/** Hashed assets never change under their name: cached for a year. */
const ASSET_CACHE = 'public, max-age=31536000, immutable';
/** The page itself is checked on every load, so a new build is picked up at once. */
const PAGE_CACHE = 'no-cache';

const TYPES: Record<string, string> = {
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.html': 'text/html; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.woff2': 'font/woff2',
  '.json': 'application/json',
  '.map': 'application/json',
};

/** One file of the console, held in memory (the whole build is some tens of kilobytes). */
interface ConsoleFile {
  body: Buffer;
  type: string;
  etag: string;
}

/** The built console: its page and its hashed assets by name. */
export interface ConsoleFiles {
  page: ConsoleFile;
  assets: Map<string, ConsoleFile>;
}

/** Where `npm install` (the `@weft/console` build) put the console; undefined when not built. */
export function consoleDistDir(): string | undefined {
  try {
    const manifest = createRequire(import.meta.url).resolve('@weft/console/package.json');
    const dir = join(dirname(manifest), 'dist');
    return existsSync(join(dir, 'index.html')) ? dir : undefined;
  } catch {
    return undefined;
  }
}

/** Reads a console build (`index.html` and `assets/`) into memory. */
export function loadConsoleFiles(dir: string): ConsoleFiles {
  const assets = new Map<string, ConsoleFile>();
  const assetsDir = join(dir, 'assets');
  if (existsSync(assetsDir)) {
    for (const name of readdirSync(assetsDir)) {
      assets.set(name, fileOf(readFileSync(join(assetsDir, name)), name));
    }
  }
  return { page: fileOf(readFileSync(join(dir, 'index.html')), 'index.html'), assets };
}

/**
 * Serves the console at `/console` (every path under it is the single page, but for
 * `/console/assets/<hashed name>`) and redirects a browser asking for `/` there. Without a build
 * (`files` undefined) `/console` answers NOT_FOUND saying how to build it. The page's CSP lets it
 * connect to `connectSources()` too (the identity provider's token endpoint).
 */
export function registerConsole(
  app: FastifyInstance,
  files: ConsoleFiles | undefined,
  connectSources: () => Promise<readonly string[]> = async () => [],
): void {
  const hide: RouteShorthandOptions = { schema: { hide: true } };
  app.get('/', hide, (_request, reply) => reply.redirect('/console/', 302));
  const page = (request: FastifyRequest, reply: FastifyReply) => {
    if (!files) {
      throw new NotFoundError(
        'the web console is not built in this installation: run `npm run build` in the weft checkout',
        { resource: 'console' },
      );
    }
    return connectSources().then((connect) =>
      send(request, reply, files.page, PAGE_CACHE, consoleCsp(connect)),
    );
  };
  app.get('/console', hide, page);
  app.get('/console/*', hide, (request, reply) => {
    const path = (request.params as { '*': string })['*'];
    if (!path.startsWith('assets/')) return page(request, reply);
    const asset = files?.assets.get(path.slice('assets/'.length));
    if (!asset) {
      throw new NotFoundError(`no console asset ${path}`, { resource: 'console_asset' });
    }
    return send(request, reply, asset, ASSET_CACHE, CONSOLE_CSP);
  });
}

function send(
  request: FastifyRequest,
  reply: FastifyReply,
  file: ConsoleFile,
  cache: string,
  csp: string,
) {
  reply.headers({
    ...SECURITY_HEADERS,
    'content-security-policy': csp,
    'cache-control': cache,
    etag: file.etag,
  });
  if (request.headers['if-none-match'] === file.etag) return reply.code(304).send();
  return reply.type(file.type).send(file.body);
}

function fileOf(body: Buffer, name: string): ConsoleFile {
  const hash = createHash('sha256').update(body).digest('base64url').slice(0, 22);
  return {
    body,
    type: TYPES[extname(name)] ?? 'application/octet-stream',
    etag: `"${hash}"`,
  };
}
