import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Weft } from '@weft/sdk';
import { configuredDetectors, defaultDetectors } from './defaults.js';
import { moderationDetector } from './moderation.js';

/** What the scripted server answers next, and what it was asked. */
let answer: { status: number; body: string } = { status: 200, body: '{}' };
const asked: { url: string; headers: IncomingHttpHeaders; body: unknown }[] = [];
let server: Server;
let baseUrl: string;

beforeAll(async () => {
  server = createServer((request, response) => {
    let body = '';
    request.on('data', (chunk) => (body += String(chunk)));
    request.on('end', () => {
      asked.push({ url: request.url ?? '', headers: request.headers, body: JSON.parse(body) });
      response.writeHead(answer.status, { 'content-type': 'application/json' });
      response.end(answer.body);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1/`;
});

afterAll(() => new Promise((resolve) => server.close(resolve)));

const request = { text: 'some answer', kinds: [], topics: [] };

describe('moderationDetector', () => {
  it('asks the moderation endpoint and scores by the highest category score', async () => {
    answer = {
      status: 200,
      body: JSON.stringify({
        id: 'modr-1',
        results: [
          {
            flagged: true,
            categories: { harassment: true, hate: false, violence: true },
            category_scores: { harassment: 0.91, hate: 0.02, violence: 0.64 },
          },
        ],
      }),
    };
    asked.length = 0;
    const detector = moderationDetector({
      baseUrl,
      apiKey: 'sk-test',
      model: 'omni-moderation-latest',
    });
    expect(await detector.detect(request)).toEqual({
      found: { harassment: 1, violence: 1 },
      score: 0.91,
    });
    expect(asked).toEqual([
      {
        url: '/v1/moderations',
        headers: expect.objectContaining({ authorization: 'Bearer sk-test' }),
        body: { input: 'some answer', model: 'omni-moderation-latest' },
      },
    ]);
  });

  it('scores a clean answer by its scores, with nothing found', async () => {
    answer = {
      status: 200,
      body: JSON.stringify({
        results: [{ flagged: false, categories: { hate: false }, category_scores: { hate: 0.01 } }],
      }),
    };
    expect(await moderationDetector({ baseUrl }).detect(request)).toEqual({
      found: {},
      score: 0.01,
    });
  });

  it('fails closed with BACKEND_ERROR on an error status, a malformed answer or no server', async () => {
    const detector = moderationDetector({ baseUrl });
    for (const [status, body, why] of [
      [500, '{"error":"boom"}', 'HTTP 500'],
      [429, '{}', 'HTTP 429'],
      [200, 'not json', 'the answer is not JSON'],
      [200, '{"results":[]}', 'the answer has no results'],
      [
        200,
        '{"results":[{"category_scores":{"hate":"high"}}]}',
        'a category score is not a number from 0 to 1',
      ],
    ] as const) {
      answer = { status, body };
      await expect(detector.detect(request)).rejects.toMatchObject({
        code: 'BACKEND_ERROR',
        details: { backend: 'moderation', original_error: why },
      });
    }
    await expect(
      moderationDetector({ baseUrl: 'http://127.0.0.1:1/v1' }).detect(request),
    ).rejects.toMatchObject({ code: 'BACKEND_ERROR' });
  });

  it('replaces the lexical toxicity detector in a run', async () => {
    answer = {
      status: 200,
      body: JSON.stringify({
        results: [
          { flagged: true, categories: { harassment: true }, category_scores: { harassment: 0.8 } },
        ],
      }),
    };
    const file = join(mkdtempSync(join(tmpdir(), 'weft-moderation-')), 'flow.yaml');
    writeFileSync(
      file,
      "workflows:\n  - name: polite\n    steps:\n      - { name: answer, type: transform, input: { text: 'you people again' }, guardrails: { toxicityThreshold: 0.5 } }\n",
    );
    const detectors = defaultDetectors().register(moderationDetector({ baseUrl }));
    const weft = new Weft({
      logLevel: 'silent',
      inheritEnvironment: false,
      guardrails: { detectors },
    });
    await weft.loadWorkflows(file);
    const result = await weft.execute('polite', {});
    expect(result.steps['answer']!.error).toMatchObject({
      code: 'VALIDATION',
      details: { field: 'guardrails.toxicityThreshold', score: 0.8, found: { harassment: 1 } },
    });
  });

  it('judges only the workflows that choose it (guardrails.detectors.toxicity: moderation)', async () => {
    answer = {
      status: 200,
      body: JSON.stringify({
        results: [{ flagged: true, categories: { hate: true }, category_scores: { hate: 0.9 } }],
      }),
    };
    asked.length = 0;
    const step =
      "      - { name: answer, type: transform, input: { text: 'you people again' }, guardrails: { toxicityThreshold: 0.5 } }\n";
    const file = join(mkdtempSync(join(tmpdir(), 'weft-moderation-')), 'flows.yaml');
    writeFileSync(
      file,
      `workflows:\n  - name: judged\n    guardrails: { detectors: { toxicity: moderation } }\n    steps:\n${step}` +
        `  - name: lexical\n    steps:\n${step}`,
    );
    const detectors = configuredDetectors({ moderation: { baseUrl } });
    const weft = new Weft({
      logLevel: 'silent',
      inheritEnvironment: false,
      guardrails: { detectors },
    });
    await weft.loadWorkflows(file);
    const judged = await weft.execute('judged', {});
    expect(judged.steps['answer']!.error).toMatchObject({
      code: 'VALIDATION',
      details: { field: 'guardrails.toxicityThreshold', score: 0.9, found: { hate: 1 } },
    });
    expect(asked).toHaveLength(1);
    const lexical = await weft.execute('lexical', {});
    expect(lexical.status).toBe('completed');
    expect(asked).toHaveLength(1);
  });

  it('refuses at load a workflow choosing a detector this process lacks, and fails closed at run', async () => {
    const file = join(mkdtempSync(join(tmpdir(), 'weft-moderation-')), 'flow.yaml');
    writeFileSync(
      file,
      "workflows:\n  - name: judged\n    guardrails: { detectors: { toxicity: moderation } }\n    steps:\n      - { name: answer, type: transform, input: { text: 'hi' }, guardrails: { toxicityThreshold: 0.5 } }\n",
    );
    const bare = new Weft({ logLevel: 'silent', inheritEnvironment: false });
    await expect(bare.loadWorkflows(file)).rejects.toMatchObject({ code: 'VALIDATION' });
    const unreachable = new Weft({
      logLevel: 'silent',
      inheritEnvironment: false,
      guardrails: {
        detectors: configuredDetectors({ moderation: { baseUrl: 'http://127.0.0.1:1/v1' } }),
      },
    });
    const [workflow] = await unreachable.loadWorkflows(file);
    const down = await unreachable.execute('judged', {});
    expect(down.steps['answer']!.error).toMatchObject({
      code: 'BACKEND_ERROR',
      message: expect.stringContaining('toxicity detector "moderation"'),
      details: { detector: 'moderation' },
    });
    bare.addWorkflows([workflow!]); // loaded elsewhere: the run refuses what it cannot check
    const missing = await bare.execute('judged', {});
    expect(missing.steps['answer']!.error).toMatchObject({
      code: 'UNAVAILABLE',
      details: { backend: 'guardrails.toxicity', detector: 'moderation' },
    });
  });
});
