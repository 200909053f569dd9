import { describe, expect, it } from 'vitest';
import { errors, load, warnings } from '../test-support/load.js';

const file = (testing: string) =>
  'workflows:\n  - name: w\n    inputs:\n      n: { type: number, required: true }\n    steps:\n      - { name: a, plugin: http, action: get }\n' +
  "    outputs:\n      total: { value: '{{ steps.a.output }}' }\n    testing:\n" +
  testing;

describe('testing block checks', () => {
  it('checks fixture names, inputs and expected outputs', () => {
    const result = load(
      file(
        "      fixtures:\n        - { name: one, inputs: { n: 'x', m: 1 }, expectedOutputs: { totl: 1 } }\n        - { name: one, inputs: {} }\n",
      ),
    );
    expect(errors(result)).toEqual([
      'workflows[0].testing.fixtures[0].inputs.n: input "n" is a number, found "x" (a string)',
      'workflows[0].testing.fixtures[0].inputs.m: unknown input "m" (did you mean "n"?)',
      'workflows[0].testing.fixtures[0].expectedOutputs.totl: the workflow has no output "totl" (did you mean "total"?)',
      'workflows[0].testing.fixtures[1]: fixture "one" lacks the required input "n"',
      'workflows[0].testing.fixtures[1].name: duplicate fixture name "one"',
    ]);
  });

  it('checks the steps and secret inputs a recorded fixture names', () => {
    const result = load(
      file(
        '      fixtures:\n        - name: rec\n          inputs: { n: 1 }\n          secretInputs: [n]\n          mockData: { b: { output: 1 } }\n          expectedSteps: { a: { status: success }, c: { status: success } }\n',
      ),
    );
    expect(errors(result)).toEqual([
      'workflows[0].testing.fixtures[0].secretInputs[0]: workflow "w" has no input "n" declared secret: true',
    ]);
    expect(warnings(result)).toEqual([
      'workflows[0].testing.fixtures[0].mockData.b: workflow "w" has no step "b" (did you mean "a"?)',
      'workflows[0].testing.fixtures[0].expectedSteps.c: workflow "w" has no step "c" (did you mean "a"?)',
    ]);
  });

  it('warns about mocks of connectors or actions no step uses', () => {
    const result = load(
      file(
        '      dryRun:\n        enabled: true\n        mockData:\n          htp: { get: {} }\n          http: { post: {} }\n',
      ),
    );
    expect(warnings(result)).toEqual([
      'workflows[0].testing.dryRun.mockData.htp: no step uses "htp" (did you mean "http"?)',
      'workflows[0].testing.dryRun.mockData.http.post: no step calls http action "post"',
    ]);
  });

  it('counts a mock keyed by connector reference as used by steps written with its slug', () => {
    const result = load(
      file(
        "      dryRun:\n        enabled: true\n        mockData:\n          'connector:acme/http@1.0.0': { get: {}, put: {} }\n",
      ),
    );
    expect(warnings(result)).toEqual([
      'workflows[0].testing.dryRun.mockData["connector:acme/http@1.0.0"].put: no step calls connector:acme/http@1.0.0 action "put"',
    ]);
  });
});
