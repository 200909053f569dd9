import { describe, expect, it } from 'vitest';
import { errors, load, withSteps } from '../test-support/load.js';

describe('step structure', () => {
  it('requires an identifier and keeps identifiers unique across parallel children', () => {
    const steps =
      '      - plugin: p\n        action: a\n' +
      '      - name: group\n        parallel:\n          - { name: a, plugin: p, action: a }\n          - { id: a, plugin: p, action: a }\n';
    expect(errors(load(withSteps(steps)))).toEqual([
      'workflows[0].steps[0]: missing required key "name" (or "id"): every step needs an identifier',
      'workflows[0].steps[1].parallel[1].id: duplicate step name "a" (first used at workflows[0].steps[1].parallel[0])',
    ]);
  });

  it('infers the kind of a step and says what a step that does nothing needs', () => {
    expect(errors(load(withSteps('      - name: idle\n        timeout: 5\n')))).toEqual([
      'workflows[0].steps[0]: the step does nothing: give it plugin + action, connector + action, type: agent with agent, workflow, parallel, or type: transform with input',
    ]);
  });

  it('refuses fields that do not belong to the kind of step', () => {
    const steps =
      '      - name: a\n        type: agent\n        agent: agent:acme/x@1.0.0\n        plugin: p\n' +
      '      - name: b\n        plugin: p\n        connector: connector:acme/x@1.0.0\n        action: go\n' +
      '      - name: c\n        plugin: p\n';
    expect(errors(load(withSteps(steps)))).toEqual([
      'workflows[0].steps[0].plugin: "plugin" does not belong on a agent step',
      'workflows[0].steps[1].connector: give plugin or connector, not both',
      'workflows[0].steps[2]: a action step needs "action" (it takes plugin (or connector) and action)',
    ]);
  });

  it('checks connector and agent reference shapes and their versions', () => {
    const steps =
      '      - name: a\n        connector: acme/x@1.0.0\n        action: go\n' +
      '      - name: b\n        connector: connector:acme/x@latest\n        action: go\n' +
      '      - name: c\n        type: agent\n        agent: agent:acme/helper@latest\n' +
      '      - name: d\n        type: agent\n        agent: agent:acme/helper@^1.2\n';
    expect(errors(load(withSteps(steps)))).toEqual([
      'workflows[0].steps[0].connector: expected a connector reference connector:<namespace>/<name>@<version>, found "acme/x@1.0.0" (a string)',
      'workflows[0].steps[1].connector: the version after @ must be a semantic version such as 1.0.0, found "latest"',
      'workflows[0].steps[2].agent: the version after @ must be a version or range such as 1.0.0 or ^1.2, found "latest"',
    ]);
  });

  it('refuses the agent budgets (maxTokens, maxCost, maxToolCalls) on action steps', () => {
    const steps =
      '      - name: a\n        plugin: p\n        action: go\n        guardrails: { maxTokens: 10, maxCost: 1, maxToolCalls: 2, timeLimit: 5 }\n' +
      '      - name: b\n        type: agent\n        agent: agent:acme/x@1.0.0\n        guardrails: { maxTokens: 10, maxCost: 1, maxToolCalls: 2 }\n';
    expect(errors(load(withSteps(steps)))).toEqual([
      "workflows[0].steps[0].guardrails.maxTokens: guardrails.maxTokens budgets an agent's model turns and means nothing on an action step: remove it, or use timeLimit to bound the step",
      "workflows[0].steps[0].guardrails.maxCost: guardrails.maxCost budgets an agent's model turns and means nothing on an action step: remove it, or use timeLimit to bound the step",
      "workflows[0].steps[0].guardrails.maxToolCalls: guardrails.maxToolCalls budgets an agent's model turns and means nothing on an action step: remove it, or use timeLimit to bound the step",
    ]);
  });

  it('only accepts parallel: true together with for_each', () => {
    expect(
      errors(
        load(
          withSteps(
            '      - name: a\n        plugin: p\n        action: x\n        parallel: true\n',
          ),
        ),
      ),
    ).toEqual([
      'workflows[0].steps[0].parallel: "parallel: true" only means something with for_each',
    ]);
  });

  it('holds connector runtime settings to the limits of the spec', () => {
    const steps =
      '      - name: a\n        plugin: p\n        action: x\n        runtime:\n          resources: { cpu: "8", memory: 16GB, timeout: 900 }\n          network: { bandwidth: 1GB/s }\n';
    expect(errors(load(withSteps(steps)))).toEqual([
      'workflows[0].steps[0].runtime.resources.cpu: cpu 8 is over the limit of 4 cores',
      'workflows[0].steps[0].runtime.resources.memory: memory 16GB is over the limit of 4GB',
      'workflows[0].steps[0].runtime.resources.timeout: expected an integer ≥ 1 and ≤ 600, found 900',
      'workflows[0].steps[0].runtime.network.bandwidth: bandwidth 1GB/s is over the limit of 100MB/s',
    ]);
  });

  it('refuses an action step timeout over 600 s and keeps longer ones for subworkflows and agents', () => {
    const steps =
      '      - { name: a, plugin: p, action: x, timeout: 601 }\n' +
      '      - { name: b, connector: "connector:acme/x@1.0.0", action: x, timeout: 600 }\n' +
      '      - { name: c, workflow: other, timeout: 3600 }\n' +
      '      - { name: d, type: agent, agent: "agent:acme/x@1.0.0", timeout: 3600 }\n';
    const result = load(withSteps(steps));
    expect(errors(result)).toEqual([
      'workflows[0].steps[0].timeout: timeout 601 s is over the limit of 600 s of an action step (connector executions; a subworkflow step may wait longer)',
    ]);
    expect(result.diagnostics[0]).toMatchObject({
      code: 'limit',
      path: 'workflows[0].steps[0].timeout',
    });
  });

  it('refuses a guardrail output schema that is not JSON Schema', () => {
    const steps =
      '      - name: a\n        type: agent\n        agent: agent:acme/x@1.0.0\n        guardrails:\n          outputSchema: { type: objekt }\n';
    const [message] = errors(load(withSteps(steps)));
    expect(message).toMatch(
      /^workflows\[0\]\.steps\[0\]\.guardrails\.outputSchema: not a valid JSON Schema/,
    );
  });

  it('refuses bad guardrail values with the field that holds them', () => {
    const steps =
      '      - name: a\n        plugin: p\n        action: x\n        guardrails:\n' +
      '          toxicityThreshold: 1.5\n          piiDetection: [email, passport]\n' +
      '          blockedTopics: ["!!!", gambling]\n          maxTokens: 100\n          maxToolCalls: 2\n';
    expect(errors(load(withSteps(steps)))).toEqual([
      expect.stringMatching(/^workflows\[0\]\.steps\[0\]\.guardrails\.toxicityThreshold: .*1/),
      expect.stringMatching(
        /^workflows\[0\]\.steps\[0\]\.guardrails\.piiDetection(\[1\])?: .*passport/,
      ),
      'workflows[0].steps[0].guardrails.blockedTopics[0]: blocked topic "!!!" has no word to match: write the topic in words',
      "workflows[0].steps[0].guardrails.maxTokens: guardrails.maxTokens budgets an agent's model turns and means nothing on an action step: remove it, or use timeLimit to bound the step",
      "workflows[0].steps[0].guardrails.maxToolCalls: guardrails.maxToolCalls budgets an agent's model turns and means nothing on an action step: remove it, or use timeLimit to bound the step",
    ]);
  });

  it('accepts every guardrail an agent step may set, and PII kinds by name', () => {
    const steps =
      '      - name: a\n        type: agent\n        agent: agent:acme/x@1.0.0\n        guardrails:\n' +
      '          { piiDetection: [email, credit_card], toxicityThreshold: 0.5, maxTokens: 10, maxCost: 0.1, maxToolCalls: 3, timeLimit: 5, blockedTopics: [gambling] }\n' +
      '      - name: b\n        type: transform\n        input: { x: 1 }\n        guardrails: { piiDetection: true, timeLimit: 1, outputSchema: { type: object, required: [x] } }\n';
    expect(errors(load(withSteps(steps)))).toEqual([]);
  });

  it('checks permission shapes', () => {
    const steps =
      "      - name: a\n        plugin: p\n        action: x\n        authorization: { permissions: ['Reports'] }\n";
    expect(errors(load(withSteps(steps)))).toEqual([
      'workflows[0].steps[0].authorization.permissions[0]: expected a permission in <resource>:<verb> form (lowercase), e.g. reports:read, found "Reports" (a string)',
    ]);
  });
});

describe('reserved step names', () => {
  it('refuses step names that clash with the fields read from a step', () => {
    expect(errors(load(withSteps('      - { name: output, plugin: p, action: x }\n')))).toEqual([
      'workflows[0].steps[0].name: "output" is reserved (steps.<id>.output reads a field); name the step otherwise',
    ]);
  });
});
