/**
 * Template evaluation: `{{ steps.fetch.output.items[0].name | upper }}` compiled once, evaluated
 * many times — against a hand-written function (the physical limit), nunjucks and liquidjs.
 * weft runs twice: on ordinary objects (each step checked with `Object.getOwnPropertyDescriptor`)
 * and on data passed through `freezeData` (verified once, then read with plain property loads).
 */
import { compileTemplate, freezeData, type Scope } from '@weft/expr';
import { Liquid } from 'liquidjs';
import nunjucks from 'nunjucks';
import { runSuite, type BenchCase, type BenchResult } from './harness.js';

/** Budget for one evaluation of the template (ns). */
export const TARGET_NS = 300;

interface Item {
  name: string;
  id: number;
}
interface BenchScope {
  inputs: Record<string, unknown>;
  steps: { fetch: { status: string; output: { items: Item[]; total: number } } };
}

function makeScope(): BenchScope {
  return {
    inputs: { region: 'eu-west-1', limit: 10 },
    steps: {
      fetch: {
        status: 'success',
        output: {
          items: [
            { name: 'widget', id: 1 },
            { name: 'gadget', id: 2 },
          ],
          total: 2,
        },
      },
    },
  };
}

function cases(): BenchCase[] {
  const scope = makeScope();
  const frozen = freezeData(makeScope());
  const weft = compileTemplate('{{ steps.fetch.output.items[0].name | upper }}');
  const env = new nunjucks.Environment(null, { autoescape: false });
  const nunjucksTemplate = nunjucks.compile('{{ steps.fetch.output.items[0].name | upper }}', env);
  const liquid = new Liquid();
  const liquidTemplate = liquid.parse('{{ steps.fetch.output.items[0].name | upcase }}');
  const limit = (s: BenchScope): string => s.steps.fetch.output.items[0]!.name.toUpperCase();
  return [
    { name: 'hand-written JS (limit)', fn: () => limit(scope), limit: true },
    {
      name: 'weft compileTemplate().evaluate',
      fn: () => weft.evaluate(scope as Scope),
      targetNs: TARGET_NS,
    },
    {
      name: 'weft, data frozen by freezeData',
      fn: () => weft.evaluate(frozen as Scope),
      targetNs: TARGET_NS,
    },
    { name: 'nunjucks compiled render', fn: () => nunjucksTemplate.render(scope) },
    { name: 'liquidjs parsed renderSync', fn: () => liquid.renderSync(liquidTemplate, scope) },
  ];
}

/** Runs the suite after checking every contestant gives the same output. */
export function run(): BenchResult[] {
  const all = cases();
  for (const c of all) {
    const output = c.fn();
    if (output !== 'WIDGET') {
      throw new Error(`${c.name} produced ${JSON.stringify(output)}, expected "WIDGET"`);
    }
  }
  return runSuite('expr', all);
}
