import { mkdtempSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { run } from '../test-support.js';

/** `--moderation-url` of weft workflow run and validate, against a loopback /moderations. */
let moderation: Server;
let url: string;
let file: string;

beforeAll(async () => {
  moderation = createServer((request, response) => {
    let body = '';
    request.on('data', (chunk) => (body += String(chunk)));
    request.on('end', () => {
      const rude = body.includes('idiot');
      response.writeHead(200, { 'content-type': 'application/json' }).end(
        JSON.stringify({
          results: [
            {
              flagged: rude,
              categories: { harassment: rude },
              category_scores: { harassment: rude ? 0.9 : 0.02 },
            },
          ],
        }),
      );
    });
  });
  await new Promise<void>((resolve) => moderation.listen(0, '127.0.0.1', resolve));
  url = `http://127.0.0.1:${(moderation.address() as AddressInfo).port}/v1`;
  file = join(mkdtempSync(join(tmpdir(), 'weft-cli-moderation-')), 'flow.yaml');
  writeFileSync(
    file,
    [
      'workflows:',
      '  - name: polite',
      '    inputs: { text: { type: string } }',
      '    guardrails: { detectors: { toxicity: moderation } }',
      '    steps:',
      "      - { name: answer, type: transform, input: { text: '{{ inputs.text }}' }, guardrails: { toxicityThreshold: 0.5 } }",
      '',
    ].join('\n'),
  );
});

afterAll(() => new Promise<void>((resolve) => moderation.close(() => resolve())));

describe('weft workflow run --moderation-url', () => {
  it('validate refuses a workflow choosing moderation unless it is configured', async () => {
    const refused = await run('workflow', 'validate', file);
    expect(refused.code).toBe(2);
    expect(refused.out + refused.err).toContain('no toxicity detector "moderation" is configured');
    const accepted = await run('workflow', 'validate', file, '--moderation-url', url);
    expect(accepted.code, accepted.err).toBe(0);
  });

  it('judges the output with the endpoint', async () => {
    const polite = await run('workflow', 'run', file, '-i', 'text=thanks', '--moderation-url', url);
    expect(polite.code, polite.err).toBe(0);
    const rude = await run(
      'workflow',
      'run',
      file,
      '-i',
      'text=you idiot',
      '--moderation-url',
      url,
    );
    expect(rude.code).toBe(1);
    expect(rude.out + rude.err).toContain('guardrails.toxicityThreshold');
  });

  it('fails closed, naming the detector, when the endpoint is unreachable', async () => {
    const down = await run(
      'workflow',
      'run',
      file,
      '-i',
      'text=thanks',
      '--moderation-url',
      'http://127.0.0.1:1/v1',
    );
    expect(down.code).toBe(1);
    expect(down.out + down.err).toContain('toxicity detector "moderation"');
  });

  it('refuses a moderation URL it cannot use', async () => {
    const bad = await run('workflow', 'run', file, '-i', 'text=x', '--moderation-url', 'ftp://x');
    expect(bad.code).toBe(2);
    expect(bad.err).toContain('http(s) URL');
  });
});
