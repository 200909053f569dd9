import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { systemClock } from '@weft/core';
import { createApiKey } from '@weft/identity';
import { buildServer, type BuiltServer } from './build.js';
import { compileServerOptions, serverOptionsFromEnv } from './config.js';
import { bearer, ManualClock } from './test-support/harness.js';

let server: BuiltServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

describe('retention on the server', () => {
  it("deletes a deployed workflow's runs after its own retention_days, others after the default", async () => {
    const clock = new ManualClock();
    server = await buildServer(
      { dataDir: mkdtempSync(join(tmpdir(), 'weft-retention-')), retentionDays: 30 },
      { logger: false, runtime: { clock: { ...systemClock, now: clock.now } } },
    );
    const at = new Date(clock.ms).toISOString();
    const acme = (await createApiKey(server.store, { name: 'acme' }, at)).key;
    const other = (await createApiKey(server.store, { name: 'other' }, at)).key;
    const steps = [{ name: 't', type: 'transform', input: { ok: true } }];
    const deployed = await server.app.inject({
      method: 'PUT',
      url: '/workflows/pings',
      headers: bearer(acme),
      payload: { name: 'pings', execution: { retention_days: 1 }, steps },
    });
    expect(deployed.statusCode, deployed.body).toBeLessThan(300);
    const run = async (key: string, url: string, payload: object) => {
      const answer = await server!.app.inject({
        method: 'POST',
        url,
        headers: { ...bearer(key), prefer: 'wait=10' },
        payload,
      });
      expect(answer.statusCode, answer.body).toBeLessThan(300);
      const id = answer.json<{ execution_id: string }>().execution_id;
      await server!.runtime!.waitFor(id, key === acme ? 'acme' : 'other', 5000);
      return id;
    };
    const ping = await run(acme, '/workflows/pings/executions', {});
    const inline = await run(acme, '/workflows/executions', { workflow: { name: 'other', steps } });
    // Another owner's inline workflow of the same name keeps the default.
    const namesake = await run(other, '/workflows/executions', {
      workflow: { name: 'pings', steps },
    });

    clock.advanceHours(48);
    const pass = await server.runtime!.retention.runOnce();
    expect(pass.executions).toBe(1);
    const status = async (id: string, key: string) =>
      (await server!.app.inject({ url: `/workflows/executions/${id}`, headers: bearer(key) }))
        .statusCode;
    expect(await status(ping, acme)).toBe(404);
    expect(await status(inline, acme)).toBe(200);
    expect(await status(namesake, other)).toBe(200);

    clock.advanceHours(31 * 24);
    expect((await server.runtime!.retention.runOnce()).executions).toBe(2);
    expect(await status(inline, acme)).toBe(404);
  });
});

describe('retention settings', () => {
  it('keeps executions 30 days and audit entries forever unless told otherwise', () => {
    const defaults = compileServerOptions(serverOptionsFromEnv({}));
    expect(defaults).toMatchObject({ retentionDays: 30, auditRetentionDays: 0 });
    const set = compileServerOptions(
      serverOptionsFromEnv({ WEFT_RETENTION_DAYS: '0', WEFT_AUDIT_RETENTION_DAYS: '400' }),
    );
    expect(set).toMatchObject({ retentionDays: 0, auditRetentionDays: 400 });
  });

  it('refuses a setting that is not a number of days, naming it', () => {
    for (const value of ['-1', '1.5', 'thirty', '99999']) {
      expect(() => serverOptionsFromEnv({ WEFT_RETENTION_DAYS: value })).toThrow(
        /WEFT_RETENTION_DAYS must be a whole number of days/,
      );
    }
    expect(() => compileServerOptions({ auditRetentionDays: -3 })).toThrow(/auditRetentionDays/);
  });
});
