/**
 * What checking a caller costs. The target: verifying a cached-key token adds < 50 µs per
 * request.
 * 1. In process, per call: the authenticator with a weft API key (SQLite store, key cached), with
 *    an identity-provider token whose keys are cached (the same token again: the verified-token
 *    cache; a new token each time: jose's signature check, RS256 and ES256), and the bare jose
 *    `jwtVerify` on a local key set (the library's floor), next to a bare `await` (the limit).
 * 2. Over HTTP under 16 connections, through a real server (child process): `GET /auth/whoami`
 *    with an API key and with a token, next to a bare route without authentication on the same
 *    server; median of interleaved rounds. µs/request is the server's time per request at
 *    saturation (1 / req/s); "added" is that minus the bare route's.
 */
import { fork } from 'node:child_process';
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { cpus, tmpdir } from 'node:os';
import { fileURLToPath } from 'node:url';
import autocannon from 'autocannon';
import { createLocalJWKSet, exportJWK, generateKeyPair, jwtVerify, SignJWT } from 'jose';
import { Authenticator, compileOidcOptions, createApiKey, OidcVerifier } from '@weft/identity';
import { TestIdentityProvider } from '@weft/identity/testing';
import { openStore } from '@weft/store';
import { shuffler } from './harness.js';

const SECONDS = Number(process.env['WEFT_BENCH_SECONDS'] ?? 3);
const ROUNDS = Number(process.env['WEFT_BENCH_ROUNDS'] ?? 3);
const serverScript = fileURLToPath(new URL('./identity/server.ts', import.meta.url));

interface Row {
  name: string;
  usPerOp: number;
  target: string;
}

/** One in-process case: `count` sequential calls make one round. */
interface AsyncCase {
  name: string;
  fn: () => Promise<unknown>;
  count: number;
  /** µs per call not to exceed. */
  targetUs?: number;
}

/**
 * Median µs per call of each case over interleaved rounds (after one warm-up round each), the
 * cases in a new seeded order each round.
 */
async function timeAll(cases: readonly AsyncCase[], rounds = 7): Promise<Row[]> {
  const samples = cases.map(() => [] as number[]);
  const shuffle = shuffler(3);
  const order = cases.map((_, i) => i);
  for (let round = -1; round < rounds; round++) {
    for (const i of shuffle(order)) {
      const c = cases[i]!;
      const start = process.hrtime.bigint();
      for (let n = 0; n < c.count; n++) await c.fn();
      if (round >= 0) samples[i]!.push(Number(process.hrtime.bigint() - start) / c.count / 1000);
    }
  }
  return cases.map((c, i) => {
    const usPerOp = samples[i]!.sort((x, y) => x - y)[Math.floor(rounds / 2)]!;
    const target =
      c.targetUs === undefined
        ? ''
        : `< ${c.targetUs} µs ${usPerOp < c.targetUs ? 'ok' : 'MISSED'}`;
    return { name: c.name, usPerOp, target };
  });
}

async function inProcess(idp: TestIdentityProvider): Promise<Row[]> {
  const opened = await openStore({ kind: 'sqlite', dataDir: mkdtempSync(`${tmpdir()}/weft-id-`) });
  const key = (await createApiKey(opened.registry, { name: 'bench' }, new Date().toISOString()))
    .key;
  const options = compileOidcOptions({ issuer: idp.url, audience: 'weft' });
  const cached = new Authenticator({ keys: opened.registry, tokens: new OidcVerifier(options) });
  const uncached = new Authenticator({
    keys: opened.registry,
    tokens: new OidcVerifier({ ...options, verifiedCacheSize: 0 }),
  });
  await idp.addKey('ec', 'ES256');
  const rsa = await idp.sign({ roles: ['finance'] }, { kid: 'k1' });
  const ec = await idp.sign({ roles: ['finance'] }, { kid: 'ec' });
  await cached.authenticate(`Bearer ${rsa}`);
  await uncached.authenticate(`Bearer ${rsa}`);

  const { publicKey, privateKey } = await generateKeyPair('RS256');
  const local = createLocalJWKSet({
    keys: [{ ...(await exportJWK(publicKey)), kid: 'l', alg: 'RS256' }],
  });
  const bare = await new SignJWT({ sub: 'u' })
    .setProtectedHeader({ alg: 'RS256', kid: 'l' })
    .setIssuer('https://i')
    .setAudience('weft')
    .setExpirationTime('1h')
    .sign(privateKey);

  const rows = await timeAll([
    { name: 'bare await (limit)', fn: async () => undefined, count: 20_000 },
    {
      name: 'API key (SQLite, cached)',
      fn: () => cached.authenticate(`Bearer ${key}`),
      count: 5000,
    },
    {
      name: 'token, cached key, seen before',
      fn: () => cached.authenticate(`Bearer ${rsa}`),
      count: 5000,
      targetUs: 50,
    },
    {
      name: 'token, cached key, RS256 checked',
      fn: () => uncached.authenticate(`Bearer ${rsa}`),
      count: 500,
    },
    {
      name: 'token, cached key, ES256 checked',
      fn: () => uncached.authenticate(`Bearer ${ec}`),
      count: 500,
    },
    {
      name: 'bare jose jwtVerify RS256 (floor)',
      fn: () =>
        jwtVerify(bare, local, { issuer: 'https://i', audience: 'weft', algorithms: ['RS256'] }),
      count: 500,
    },
  ]);
  await opened.registry.close();
  return rows;
}

interface HttpRow {
  name: string;
  requestsPerSec: number;
  usPerRequest: number;
  addedUs: number;
  p50Ms: number;
  p99Ms: number;
  failures: number;
}

async function measure(
  url: string,
  path: string,
  authorization: string | undefined,
  seconds: number,
) {
  const result = await autocannon({
    url,
    connections: 16,
    duration: seconds,
    requests: [
      {
        method: 'GET',
        path,
        ...(authorization ? { headers: { authorization: `Bearer ${authorization}` } } : {}),
      },
    ],
  });
  return {
    requestsPerSec: result.requests.average,
    p50Ms: result.latency.p50,
    p99Ms: result.latency.p99,
    failures: result.errors + result.timeouts + result.non2xx,
  };
}

async function overHttp(idp: TestIdentityProvider): Promise<HttpRow[]> {
  const child = fork(serverScript, [], {
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    env: { ...process.env, WEFT_BENCH_ISSUER: idp.url },
  });
  const { url, key } = await new Promise<{ url: string; key: string }>((resolve, reject) => {
    child.once('message', (m) => resolve(m as { url: string; key: string }));
    child.once('exit', (code) => reject(new Error(`bench server exited with ${code}`)));
  });
  try {
    const token = await idp.sign({ roles: ['finance'] });
    const cases = [
      { name: 'bare route, no authentication (limit)', path: '/bare', credential: undefined },
      { name: 'GET /auth/whoami, API key', path: '/auth/whoami', credential: key },
      { name: 'GET /auth/whoami, token (cached key)', path: '/auth/whoami', credential: token },
    ];
    for (const c of cases) await measure(url, c.path, c.credential, 1); // warm-up
    // Interleaved rounds in a new order each, median req/s per case: drift of the machine hits
    // every case alike.
    const rounds = cases.map(() => [] as Awaited<ReturnType<typeof measure>>[]);
    const shuffle = shuffler(4);
    const order = cases.map((_, i) => i);
    for (let round = 0; round < ROUNDS; round++) {
      for (const i of shuffle(order)) {
        const c = cases[i]!;
        rounds[i]!.push(await measure(url, c.path, c.credential, SECONDS));
      }
    }
    const medians = cases.map((c, i) => {
      const sorted = [...rounds[i]!].sort((a, b) => a.requestsPerSec - b.requestsPerSec);
      return { name: c.name, ...sorted[Math.floor(sorted.length / 2)]! };
    });
    const bareUs = 1e6 / medians[0]!.requestsPerSec;
    return medians.map((c) => ({
      ...c,
      usPerRequest: 1e6 / c.requestsPerSec,
      addedUs: 1e6 / c.requestsPerSec - bareUs,
    }));
  } finally {
    const exited = new Promise((resolve) => child.once('exit', resolve));
    child.send('stop');
    await exited;
  }
}

export async function run(): Promise<void> {
  const idp = await new TestIdentityProvider().start();
  try {
    const rows = await inProcess(idp);
    const limit = rows[0]!.usPerOp;
    console.log('\nidentity: per call, in process');
    console.log(`${'case'.padEnd(36)}  ${'µs/op'.padStart(8)}  ${'× limit'.padStart(8)}  target`);
    for (const r of rows) {
      console.log(
        `${r.name.padEnd(36)}  ${r.usPerOp.toFixed(2).padStart(8)}  ${(r.usPerOp / limit).toFixed(1).padStart(8)}  ${r.target}`,
      );
    }
    const http = await overHttp(idp);
    console.log(
      `\nidentity: over HTTP (16 connections, median of ${ROUNDS} interleaved rounds of ${SECONDS} s)`,
    );
    console.log(
      `${'case'.padEnd(40)}  ${'req/s'.padStart(7)}  ${'µs/req'.padStart(7)}  ${'added µs'.padStart(8)}  ${'p50 ms'.padStart(6)}  ${'p99 ms'.padStart(6)}  failures`,
    );
    for (const r of http) {
      console.log(
        `${r.name.padEnd(40)}  ${Math.round(r.requestsPerSec).toString().padStart(7)}  ${r.usPerRequest.toFixed(1).padStart(7)}  ${r.addedUs.toFixed(1).padStart(8)}  ${r.p50Ms.toFixed(2).padStart(6)}  ${r.p99Ms.toFixed(2).padStart(6)}  ${r.failures}`,
      );
    }
    const directory = fileURLToPath(new URL('./results/', import.meta.url));
    mkdirSync(directory, { recursive: true });
    writeFileSync(
      `${directory}identity.json`,
      `${JSON.stringify(
        {
          suite: 'identity',
          date: new Date().toISOString(),
          node: process.version,
          cpu: cpus()[0]?.model ?? 'unknown',
          cores: cpus().length,
          seconds: SECONDS,
          inProcess: rows,
          http,
        },
        null,
        2,
      )}\n`,
    );
  } finally {
    await idp.stop();
  }
}
