import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { BackendError } from '@weft/core';
import { traceFields } from '@weft/telemetry';
import type { ReadableSpan } from '@weft/telemetry/setup';
import { describe, expect, it } from 'vitest';
import { Weft } from './weft.js';

const SECRET = 'pa55-never-in-spans-or-logs';
const dir = mkdtempSync(join(tmpdir(), 'weft-observability-'));
const flow = join(dir, 'flow.yaml');
writeFileSync(
  flow,
  `workflows:
  - name: shop
    version: 3.0.0
    inputs: { card: { type: string } }
    steps:
      - name: charge
        plugin: pay
        action: charge
        input: { card: '{{ inputs.card }}', key: '{{ secrets.PAY_KEY }}' }
        retry: { max_attempts: 2, backoff_factor: 0.001 }
`,
);

/** A span exporter keeping what it is given (an OpenTelemetry `SpanExporter`). */
function collecting() {
  const spans: ReadableSpan[] = [];
  return {
    spans,
    export(batch: ReadableSpan[], done: (result: { code: number }) => void) {
      spans.push(...batch);
      done({ code: 0 });
    },
    shutdown: async () => {},
  };
}

function lines(): { stream: Writable; text: () => string } {
  let text = '';
  return {
    stream: new Writable({ write: (chunk, _e, done) => ((text += String(chunk)), done()) }),
    text: () => text,
  };
}

describe('observability of local runs', () => {
  it('traces a run, counts its calls, and correlates its log lines; no secret anywhere', async () => {
    const exporter = collecting();
    const log = lines();
    const weft = new Weft({
      observability: { enabled: true, exporter },
      environment: { PAY_KEY: SECRET },
      inheritEnvironment: false,
      logLevel: 'debug',
      logDestination: log.stream,
    });
    let calls = 0;
    const activeInHandler: (string | undefined)[] = [];
    weft.registerHandler('pay.charge', async () => {
      await Promise.resolve();
      activeInHandler.push(traceFields().span_id);
      if (++calls === 1)
        throw new BackendError(`card refused (${SECRET})`, {
          backend: 'pay',
          original_error: SECRET,
        });
      return { ok: true };
    });
    await weft.loadWorkflows(flow);
    const result = await weft.execute('shop', { card: SECRET });
    expect(result.status).toBe('completed');
    const metrics = await weft.metrics();
    await weft.close();

    const names = exporter.spans.map((s) => s.name);
    expect(names).toEqual(
      expect.arrayContaining(['workflow shop', 'step charge', 'action pay.charge']),
    );
    const run = exporter.spans.find((s) => s.name === 'workflow shop')!;
    expect(run.attributes).toMatchObject({
      'weft.execution_id': result.execution_id,
      'weft.workflow.version': '3.0.0',
      'weft.execution_mode': 'local',
    });
    const charges = exporter.spans.filter((s) => s.name === 'action pay.charge');
    expect(charges).toHaveLength(2);
    // Each attempt's handler ran with its action span active (across an await).
    expect(activeInHandler).toEqual(charges.map((s) => s.spanContext().spanId));
    expect(
      JSON.stringify(exporter.spans.map((s) => [s.attributes, s.events, s.status])),
    ).not.toContain(SECRET);

    expect(metrics).toMatch(
      /^weft_action_executions_total\{plugin="pay",action="charge",status="success"\} 1$/m,
    );
    expect(metrics).toMatch(/^weft_action_executions_total\{[^}]*status="failed"[^}]*\} 1$/m);
    expect(metrics).toMatch(/^weft_step_retries_total\{plugin="pay",action="charge"\} 1$/m);
    expect(metrics).toMatch(/^weft_executions_total\{workflow="shop",status="completed"\} 1$/m);
    expect(metrics).toMatch(/^weft_action_duration_seconds_bucket\{[^}]*le="0\.005"\} \d+$/m);

    // Log lines of the run carry its trace id.
    const traceId = run.spanContext().traceId;
    const stepLine = log
      .text()
      .split('\n')
      .filter((line) => line.includes('"step":"charge"'))
      .map((line) => JSON.parse(line) as Record<string, unknown>);
    expect(stepLine.length).toBeGreaterThan(0);
    expect(stepLine.every((line) => line['trace_id'] === traceId)).toBe(true);
    expect(log.text()).not.toContain(SECRET);
  });

  it('refuses to enable tracing with nowhere to send the spans, and checks sampleRate', async () => {
    const weft = new Weft({
      observability: { enabled: true },
      inheritEnvironment: false,
      logLevel: 'silent',
    });
    await weft.loadWorkflows(flow);
    await expect(weft.execute('shop', { card: 'x' })).rejects.toMatchObject({
      code: 'VALIDATION',
      details: { field: 'observability.endpoint' },
    });
    expect(() => new Weft({ observability: { enabled: true, sampleRate: 2 } })).toThrow(
      /sampleRate/,
    );
  });

  it('costs nothing when off: no metrics, no spans', async () => {
    const weft = new Weft({ inheritEnvironment: false, logLevel: 'silent' });
    expect(await weft.metrics()).toBe('');
  });
});
