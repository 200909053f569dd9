import { describe, expect, it } from 'vitest';
import { LocalInvoker } from '../invoker/local-invoker.js';
import { ConnectorHost } from './host.js';

const TOKEN = 'tok-service-own-credential-7';

/** A connector service's own credentials (its declared environment) never leave in an answer. */
describe('a connector service answering with its own credential', () => {
  const environment = { CRM_TOKEN: TOKEN, CRM_REGION: 'eu-west-1' };
  const invoker = new LocalInvoker({ environment });
  invoker.registerConnector({
    connector: { kind: 'function', name: 'crm', namespace: 'acme', version: '1.0.0' },
    environment: [
      { name: 'CRM_TOKEN', description: 'API token', required: true },
      { name: 'CRM_REGION', description: 'region', required: false, secret: false },
    ],
    actions: [{ name: 'whoami' }, { name: 'fail' }],
  });
  invoker.registerHandler('crm.whoami', (_input, context) => ({
    auth: `Bearer ${String(context.environment['CRM_TOKEN'])}`,
    region: context.environment['CRM_REGION'],
  }));
  invoker.registerHandler('crm.fail', (_input, context) => {
    throw new Error(`401 from upstream for ${String(context.environment['CRM_TOKEN'])}`);
  });
  const host = new ConnectorHost({ invoker, environment });

  it('masks it in a success answer; a setting declared secret: false stays', async () => {
    const answer = await host.execute({ action: 'crm.whoami', input: {} }, undefined, 'e/s');
    expect(answer.statusCode).toBe(200);
    expect(answer.body).toEqual({
      status: 'success',
      data: { auth: 'Bearer ***', region: 'eu-west-1' },
    });
  });

  it('masks it in an error answer', async () => {
    const answer = await host.execute({ action: 'crm.fail', input: {} }, undefined, 'e/t');
    expect(answer.statusCode).toBe(502);
    expect(JSON.stringify(answer.body)).toContain('401 from upstream for ***');
    expect(JSON.stringify(answer.body)).not.toContain(TOKEN);
  });
});
