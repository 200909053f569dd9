import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { createLogger } from './logging.js';

/** A destination that keeps what was written. */
function capture(): { stream: PassThrough; text: () => string } {
  const stream = new PassThrough();
  const chunks: Buffer[] = [];
  stream.on('data', (chunk: Buffer) => chunks.push(chunk));
  return { stream, text: () => Buffer.concat(chunks).toString('utf8') };
}

describe('the SDK logger', () => {
  it('writes readable text lines in order, without pid, hostname or service', () => {
    const out = capture();
    const logger = createLogger('info', 'text', out.stream);
    logger.debug('not at this level');
    logger.info({ step: 'greet' }, 'step greet success');
    logger.warn('step charge failed');
    const text = out.text();
    expect(text).toMatch(/INFO: step greet success\n\s+step: "greet"\n/);
    expect(text.indexOf('step greet success')).toBeLessThan(text.indexOf('step charge failed'));
    expect(text).not.toContain('not at this level');
    expect(text).not.toMatch(/pid|hostname|service/);
  });

  it('writes JSON lines with the service name', () => {
    const out = capture();
    createLogger('info', 'json', out.stream).info({ step: 'a' }, 'done');
    expect(JSON.parse(out.text())).toMatchObject({ service: 'weft', step: 'a', msg: 'done' });
  });
});
