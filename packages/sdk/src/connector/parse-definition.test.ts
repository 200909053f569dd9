import { describe, expect, it } from 'vitest';
import { parseConnectorDefinition } from './parse-definition.js';
import { thrown } from '../test-support/context.js';

const parse = (text: string, environment: Record<string, string> = {}) =>
  parseConnectorDefinition(text, { file: 'c.yaml', environment }).definition;
const failure = (text: string, environment: Record<string, string> = {}) =>
  thrown(() => parse(text, environment));

const GOOD = `connector:
  type: connector
  kind: function
  name: slack
  namespace: acme
  version: 1.0.0
actions:
  - name: send
    description: Send a message
    input_schema:
      type: object
      required: [channel]
`;

describe('connector definitions', () => {
  it('reads a YAML definition with its connector block and actions', () => {
    const definition = parse(GOOD);
    expect(definition.connector).toMatchObject({
      kind: 'function',
      name: 'slack',
      namespace: 'acme',
    });
    expect(definition.actions[0]?.input_schema).toEqual({ type: 'object', required: ['channel'] });
  });

  it('reads a JSON definition and an in-memory object alike', () => {
    const object = {
      connector: { kind: 'function', name: 'x', namespace: 'n', version: '1.0.0' },
      actions: [{ name: 'go' }],
    };
    expect(parse(JSON.stringify(object)).connector.name).toBe('x');
    const fromObject = parseConnectorDefinition(object, { environment: {} }).definition;
    expect(fromObject.actions[0]?.name).toBe('go');
  });

  it('accepts plugin metadata (docs/registry.md#plugin-definitions) beside connector and actions', () => {
    const text = `slug: slack\nversion: 1.0.0\nname: Slack\nauthor: Acme\nlicense: MIT\ntags: [chat]\n${GOOD}`;
    expect(parse(text).slug).toBe('slack');
  });

  it('refuses an unknown top-level key with a did-you-mean and its line and column', () => {
    const error = failure(`${GOOD}auhtor: me\n`);
    expect(error['code']).toBe('VALIDATION');
    expect(error['message']).toContain(
      'c.yaml:13:1: error: auhtor: unknown key "auhtor" (did you mean "author"?)',
    );
    expect(error['details']).toMatchObject({ field: 'auhtor', constraint: 'unknown_key' });
  });

  it('refuses runtime quantities that are malformed or over the limits, naming the field', () => {
    const text = GOOD.replace(
      '  version: 1.0.0\n',
      "  version: 1.0.0\n  runtime:\n    resources: { cpu: '8', memory: 8GB }\n    network: { bandwidth: 200MB/s }\n",
    );
    const error = failure(text);
    expect(error['code']).toBe('VALIDATION');
    expect(error['message']).toContain(
      'connector.runtime.resources.cpu: cpu 8 is over the limit of 4 cores',
    );
    expect(error['message']).toContain(
      'connector.runtime.resources.memory: memory 8GB is over the limit of 4GB',
    );
    expect(error['message']).toContain(
      'connector.runtime.network.bandwidth: bandwidth 200MB/s is over',
    );
  });

  it('refuses an unknown kind and an unknown key inside an action', () => {
    const error = failure(
      GOOD.replace('kind: function', 'kind: shel').replace('description:', 'descripton:'),
    );
    expect(error['message']).toContain('did you mean "shell"?');
    expect(error['message']).toContain('did you mean "description"?');
  });

  it.each([
    ['duplicate keys', `${GOOD}connector: {}\n`, 'duplicate_key'],
    ['custom tags', GOOD.replace('name: send', 'name: !!js/function send'), 'tag'],
    ['__proto__ keys', `${GOOD}__proto__: {polluted: true}\n`, 'forbidden_key'],
    [
      'alias bombs',
      `a: &a [x, x, x, x, x, x, x, x, x, x]\nb: &b [*a, *a, *a, *a, *a, *a, *a, *a, *a, *a]\nc: &c [*b, *b, *b, *b, *b, *b, *b, *b, *b, *b]\nd: [*c, *c, *c, *c, *c, *c, *c, *c, *c, *c]\n${GOOD}`,
      'aliases',
    ],
  ])('refuses hostile files: %s', (_name, text, constraint) => {
    expect(failure(text)['details']).toMatchObject({ constraint });
  });

  it('refuses a file over the size limit', () => {
    const error = thrown(() =>
      parseConnectorDefinition(`${GOOD}#${'x'.repeat(200)}`, { environment: {}, maxFileSize: 100 }),
    );
    expect(error['details']).toMatchObject({ constraint: 'too_large' });
  });

  it('interpolates ${VAR} and ${VAR:-default} from the given environment, not the process', () => {
    const text = GOOD.replace(
      'description: Send a message',
      () => 'description: "to ${CHANNEL} via ${HOST:-slack.com} $${LITERAL}"',
    );
    expect(parse(text, { CHANNEL: 'general' }).actions[0]?.description).toBe(
      'to general via slack.com ${LITERAL}',
    );
  });

  it('reports an unset variable at its position', () => {
    const text = GOOD.replace('description: Send a message', 'description: "to ${NOPE_NOT_SET}"');
    const error = failure(text);
    expect(error['message']).toContain(
      'c.yaml:9:22: error: actions[0].description: environment variable NOPE_NOT_SET is not set',
    );
  });

  it('requires a command for shell actions and refuses one elsewhere', () => {
    const shell = failure(GOOD.replace('kind: function', 'kind: shell'));
    expect(shell['message']).toContain('shell action "send" needs a command');
    const misplaced = failure(
      GOOD.replace('    description: Send', '    command: [echo]\n    description: Send'),
    );
    expect(misplaced['message']).toContain('command is for shell connectors, this one is function');
  });

  it('requires base_url or a request for http actions', () => {
    expect(failure(GOOD.replace('kind: function', 'kind: http'))['message']).toContain(
      'needs a request, or the connector a base_url',
    );
  });

  it('refuses duplicate action names and template syntax errors', () => {
    const text = GOOD.replace('kind: function', 'kind: shell').replace(
      '    description: Send a message',
      '    command: ["echo", "{{ inputs. }}"]',
    );
    const error = failure(`${text}  - name: send\n    command: [echo]\n`);
    expect(error['message']).toContain('action "send" is defined twice');
    expect(error['message']).toContain('actions[0].command[1]');
  });

  it('refuses templates that read workflow roots a connector cannot see', () => {
    const text = GOOD.replace('kind: function', 'kind: shell').replace(
      '    description: Send a message',
      '    command: ["echo", "{{ steps.a.output }}"]',
    );
    expect(failure(text)['message']).toContain(
      'read only inputs (the action input) and env, not steps',
    );
  });
});
