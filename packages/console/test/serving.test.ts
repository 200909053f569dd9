import { readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startConsoleServer, type ConsoleServer } from './server.js';

const DIST = fileURLToPath(new URL('../dist/', import.meta.url));
let weft: ConsoleServer;

beforeAll(async () => {
  weft = await startConsoleServer();
}, 30_000);
afterAll(async () => {
  await weft?.close();
});

describe('the console as weft server serves it', () => {
  it('redirects / to /console/', async () => {
    const answer = await fetch(`${weft.url}/`, { redirect: 'manual' });
    expect(answer.status).toBe(302);
    expect(answer.headers.get('location')).toBe('/console/');
  });

  it('serves the page under every /console path with a strict CSP and no caching', async () => {
    for (const path of ['/console', '/console/', '/console/executions/abc', '/console/plugins']) {
      const answer = await fetch(`${weft.url}${path}`);
      expect(answer.status).toBe(200);
      expect(answer.headers.get('content-type')).toBe('text/html; charset=utf-8');
      expect(answer.headers.get('cache-control')).toBe('no-cache');
      const csp = answer.headers.get('content-security-policy') ?? '';
      const directives = Object.fromEntries(
        csp.split(';').map((part) => {
          const [name, ...values] = part.trim().split(/\s+/);
          return [name, values.join(' ')];
        }),
      );
      expect(directives).toMatchObject({
        'default-src': "'none'",
        'script-src': "'self'",
        'style-src': "'self'",
        'connect-src': "'self'",
        'frame-ancestors': "'none'",
        'base-uri': "'none'",
      });
      expect(csp).not.toMatch(/unsafe-|data:|\*/);
      expect(answer.headers.get('x-frame-options')).toBe('DENY');
      expect(answer.headers.get('x-content-type-options')).toBe('nosniff');
    }
  });

  it('has no inline script, handler or style in the built HTML', async () => {
    const html = await (await fetch(`${weft.url}/console/`)).text();
    const scripts = [...html.matchAll(/<script\b([^>]*)>([\s\S]*?)<\/script>/gi)];
    expect(scripts.length).toBeGreaterThan(0);
    for (const [, attributes, body] of scripts) {
      expect(attributes).toMatch(/\bsrc="\/console\/assets\/[^"]+\.js"/);
      expect(body!.trim()).toBe('');
    }
    expect(html).not.toMatch(/\son[a-z]+\s*=/i);
    expect(html).not.toMatch(/<style\b|\sstyle\s*=/i);
    expect(html).not.toMatch(/javascript:/i);
  });

  it('caches hashed assets for a year and answers an unknown one with NOT_FOUND', async () => {
    const html = await (await fetch(`${weft.url}/console/`)).text();
    const asset = /src="(\/console\/assets\/[^"]+)"/.exec(html)![1]!;
    const answer = await fetch(`${weft.url}${asset}`);
    expect(answer.status).toBe(200);
    expect(answer.headers.get('content-type')).toBe('text/javascript; charset=utf-8');
    expect(answer.headers.get('cache-control')).toBe('public, max-age=31536000, immutable');
    const etag = answer.headers.get('etag')!;
    const again = await fetch(`${weft.url}${asset}`, { headers: { 'if-none-match': etag } });
    expect(again.status).toBe(304);

    const missing = await fetch(`${weft.url}/console/assets/nope-123.js`);
    expect(missing.status).toBe(404);
    expect(await missing.json()).toMatchObject({ status: 'error', code: 'NOT_FOUND' });
  });

  it('keeps its JavaScript under 150 KB gzipped', () => {
    const js = readdirSync(`${DIST}assets`).filter((name) => name.endsWith('.js'));
    const gzipped = js.reduce(
      (sum, name) => sum + gzipSync(readFileSync(`${DIST}assets/${name}`)).byteLength,
      0,
    );
    expect(gzipped).toBeLessThan(150 * 1024);
  });

  it('keeps its JavaScript under 400 KB uncompressed', () => {
    const js = readdirSync(`${DIST}assets`).filter((name) => name.endsWith('.js'));
    const bytes = js.reduce((sum, name) => sum + readFileSync(`${DIST}assets/${name}`).length, 0);
    expect(bytes).toBeLessThan(400 * 1024);
  });

  it('is not in the OpenAPI document (it is no API)', async () => {
    const answer = await fetch(`${weft.url}/openapi.json`);
    if (answer.status === 404) return;
    const paths = Object.keys(((await answer.json()) as { paths: object }).paths);
    expect(paths.filter((path) => path === '/' || path.startsWith('/console'))).toEqual([]);
  });
});
