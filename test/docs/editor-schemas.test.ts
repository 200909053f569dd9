import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import Ajv2020 from 'ajv/dist/2020.js';
import { parse } from 'yaml';
import { describe, expect, it } from 'vitest';
import { renderPluginJsonSchema, renderWorkflowJsonSchema } from '@weft/core';
import { renderAgentJsonSchema } from '@weft/agents';

// The editor schemas of schemas/ are generated (`npm run schema`) from the TypeBox types the
// loaders check files with; here they must equal the generator's output and accept the example
// files a user copies, and refuse a broken one.

const root = fileURLToPath(new URL('../../', import.meta.url));
const read = (path: string) => readFileSync(`${root}${path}`, 'utf8');
const load = (path: string): unknown =>
  path.endsWith('.json') ? JSON.parse(read(path)) : parse(read(path));

function validator(file: string) {
  // `x-expected` and the other annotations are not keywords; formats are the loaders' business.
  const ajv = new Ajv2020.default({ strict: false, validateFormats: false, allErrors: true });
  return ajv.compile(JSON.parse(read(`schemas/${file}`)) as object);
}

describe('the committed editor schemas (run `npm run schema` when this fails)', () => {
  it.each([
    ['workflow.schema.json', renderWorkflowJsonSchema],
    ['plugin.schema.json', renderPluginJsonSchema],
    ['agent.schema.json', renderAgentJsonSchema],
  ])('%s is what the generator writes', (file, render) => {
    expect(read(`schemas/${file}`)).toBe(render());
  });
});

describe('schemas/plugin.schema.json', () => {
  const validate = validator('plugin.schema.json');

  it.each([
    'examples/plugins/github.yaml',
    'examples/plugins/http.yaml',
    'examples/plugins/openai.yaml',
    'examples/plugins/postgres.yaml',
    'examples/plugins/slack.yaml',
    'examples/connectors/greeter.yaml',
    'examples/connectors/placeholder-api.yaml',
    'examples/connectors/text-tools.yaml',
    'examples/connectors/notify-service.json',
    'examples/connector-service/inventory.yaml',
    'examples/agents/plugins/crm.yaml',
  ])('accepts %s', (path) => {
    expect(validate(load(path)), JSON.stringify(validate.errors)).toBe(true);
  });

  it('refuses a connector of an unknown kind, and a plugin without its required metadata', () => {
    const connector = load('examples/connectors/greeter.yaml') as { connector: { kind: string } };
    expect(validate({ ...connector, connector: { ...connector.connector, kind: 'ftp' } })).toBe(
      false,
    );
    expect(validate.errors?.some((e) => e.instancePath === '/connector/kind')).toBe(true);
    const plugin = load('examples/plugins/http.yaml') as Record<string, unknown>;
    const { license, ...unlicensed } = plugin;
    void license;
    expect(validate(unlicensed)).toBe(false);
    expect(
      validate.errors?.some(
        (e) => e.params && 'missingProperty' in e.params && e.params.missingProperty === 'license',
      ),
    ).toBe(true);
  });

  it('checks a plugin with a connector block against the connector definition too', () => {
    const plugin = load('examples/plugins/http.yaml') as { connector: Record<string, unknown> };
    expect(validate({ ...plugin, connector: { ...plugin.connector, timeout: 'soon' } })).toBe(
      false,
    );
  });
});

describe('schemas/agent.schema.json', () => {
  const validate = validator('agent.schema.json');

  it('accepts examples/agents/agents/support.yaml', () => {
    const file = load('examples/agents/agents/support.yaml');
    expect(validate(file), JSON.stringify(validate.errors)).toBe(true);
  });

  it('refuses an agent whose model names no provider, and an unknown key', () => {
    const { agent } = load('examples/agents/agents/support.yaml') as {
      agent: Record<string, unknown>;
    };
    expect(validate({ agent: { ...agent, model: 'llama3.1' } })).toBe(false);
    expect(validate.errors?.some((e) => e.instancePath === '/agent/model')).toBe(true);
    expect(validate({ agent: { ...agent, temprature: 0.2 } })).toBe(false);
  });
});
