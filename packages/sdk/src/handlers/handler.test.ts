import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import ts from 'typescript';
import { afterAll, describe, expect, it } from 'vitest';
import { LocalInvoker } from '../invoker/local-invoker.js';
import { run, thrown } from '../test-support/context.js';
import { decoratedHandlers, handler, parseHandlerKey } from './handler.js';

/**
 * Source of a module using `@handler` as a user writes it. It is compiled by TypeScript itself
 * (TC39 decorators, target ES2022), because the test runner's transform leaves decorator syntax
 * as it is and Node 20 cannot parse it.
 */
const USER_MODULE = `
export default function define(handler) {
  class Greeter {
    constructor(greeting) { this.greeting = greeting; }
    @handler('greet.hello')
    hello(input, context) { return { text: this.greeting + ', ' + input.name, step: context.stepName }; }
    @handler('greet.bye')
    static bye() { return { text: 'bye' }; }
  }
  return Greeter;
}
`;

const dirs: string[] = [];
afterAll(() => Promise.all(dirs.map((dir) => rm(dir, { recursive: true, force: true }))));

async function compileUserModule(): Promise<(h: typeof handler) => new (g: string) => object> {
  const { outputText } = ts.transpileModule(USER_MODULE, {
    compilerOptions: { target: ts.ScriptTarget.ES2022, module: ts.ModuleKind.ES2022 },
  });
  const dir = await mkdtemp(join(tmpdir(), 'weft-decorator-'));
  dirs.push(dir);
  const file = join(dir, 'greeter.mjs');
  await writeFile(file, outputText);
  const module = (await import(pathToFileURL(file).href)) as {
    default: (h: typeof handler) => new (g: string) => object;
  };
  return module.default;
}

describe('the @handler decorator', () => {
  it('registers decorated methods bound to their instance, and static ones on the class', async () => {
    const Greeter = (await compileUserModule())(handler);
    const invoker = new LocalInvoker()
      .registerHandlers(new Greeter('Hi'))
      .registerHandlers(Greeter);
    expect(await run(invoker, 'greet.hello', { name: 'Ada' })).toEqual({
      text: 'Hi, Ada',
      step: 'step',
    });
    expect(await run(invoker, 'greet.bye')).toEqual({ text: 'bye' });
  });

  it('records nothing on an object without decorated methods', () => {
    expect(decoratedHandlers({})).toEqual([]);
  });

  it('checks the key when the decorator is made', () => {
    expect(thrown(() => handler('Bad Key'))['details']).toEqual({
      field: 'handler',
      constraint: 'pattern',
    });
  });
});

describe('handler keys', () => {
  it('split into plugin and action', () => {
    expect(parseHandlerKey('slack.send_message')).toEqual({
      plugin: 'slack',
      action: 'send_message',
    });
  });

  it.each(['slack', '.send', 'slack.', 'Slack.send', 'slack.send.now'])('refuses %s', (key) => {
    expect(thrown(() => parseHandlerKey(key))['code']).toBe('VALIDATION');
  });
});
