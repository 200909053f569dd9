import { describe, expect, it } from 'vitest';
import { AgentCatalog, agentRef } from './catalog.js';
import { effectiveGuardrails } from './guardrails.js';
import { parseAgentSource } from './load.js';
import type { AgentDefinition } from './schema.js';
import { toolsOf, withStepApprovals } from './tools.js';

const valid = `agent:
  namespace: acme
  name: support
  version: 1.0.0
  model: openai-compatible:llama3.1
  base_url: http://127.0.0.1:11434/v1
  tools: [crm.lookup, { connector: "connector:acme/billing@2.0.0", action: refund }]
  guardrails: { maxToolCalls: 4 }
`;

const messages = (text: string) =>
  parseAgentSource(text, 'a.yaml').diagnostics.map((d) => `${d.line}:${d.path}: ${d.message}`);

describe('agent definition files', () => {
  it('loads a valid definition', () => {
    const loaded = parseAgentSource(valid, 'a.yaml');
    expect(loaded.ok).toBe(true);
    expect(agentRef(loaded.agent!)).toBe('agent:acme/support@1.0.0');
  });

  it('reports schema errors with their line', () => {
    expect(
      messages(
        valid.replace('model: openai-compatible:llama3.1', 'model: gpt-4o\n  tempreature: 1'),
      ),
    ).toEqual([
      expect.stringMatching(/^5:agent.model: expected <provider>:<model id>/),
      expect.stringMatching(
        /^6:agent.tempreature: unknown key "tempreature" \(did you mean "temperature"\?\)/,
      ),
    ]);
  });

  it('needs base_url for openai-compatible, unique tool names and pricing behind maxCost', () => {
    const text = valid
      .replace('  base_url: http://127.0.0.1:11434/v1\n', '')
      .replace('crm.lookup,', 'crm.lookup, { plugin: crm, action: lookup },')
      .replace('maxToolCalls: 4', 'maxCost: 2');
    expect(messages(text)).toEqual([
      expect.stringMatching(/needs base_url/),
      expect.stringMatching(/two tools are named "crm_lookup"/),
      expect.stringMatching(/maxCost needs the agent's pricing/),
    ]);
  });
});

describe('tool approvals in an agent definition', () => {
  const withApproval = (approval: string) =>
    valid.replace('action: refund }', `action: refund, approval: ${approval} }`);

  it('loads approvers, timeout and on_reject, and gives them to the tool', () => {
    const loaded = parseAgentSource(
      withApproval('{ approvers: [finance], timeout: 600, on_reject: fail }'),
      'a.yaml',
    );
    expect(loaded.diagnostics).toEqual([]);
    expect(toolsOf(loaded.agent!)[1]).toMatchObject({
      name: 'billing_refund',
      approval: { approvers: ['finance'], timeout: 600, on_reject: 'fail' },
    });
  });

  it('refuses unknown keys, no approvers, a bad timeout and a bad on_reject, by field', () => {
    const paths = (approval: string) =>
      parseAgentSource(withApproval(approval), 'a.yaml').diagnostics.map((d) => d.path);
    expect(paths('{ approvers: [finance], timeout: 60, approver: x }')).toEqual([
      'agent.tools[1].approval.approver',
    ]);
    expect(paths('{ approvers: [], timeout: 60 }')).toEqual(['agent.tools[1].approval.approvers']);
    expect(paths('{ approvers: [finance], timeout: 0 }')).toEqual([
      'agent.tools[1].approval.timeout',
    ]);
    expect(paths('{ approvers: [finance], timeout: 1.5 }')).toEqual([
      'agent.tools[1].approval.timeout',
    ]);
    expect(messages(withApproval('{ approvers: [finance] }'))).toEqual([
      expect.stringMatching(/agent\.tools\[1\]\.approval: .*timeout/),
    ]);
    expect(paths('{ approvers: [finance], timeout: 60, on_reject: ignore }')).toEqual([
      'agent.tools[1].approval.on_reject',
    ]);
  });

  it('lets a step add or replace approvals of its agent’s tools, never of unknown ones', () => {
    const specs = toolsOf(parseAgentSource(valid, 'a.yaml').agent!);
    const approval = { approvers: ['lead'], timeout: 30 };
    expect(withStepApprovals(specs, { crm_lookup: approval })[0]).toMatchObject({ approval });
    expect(() => withStepApprovals(specs, { crm_delete: approval })).toThrow(
      expect.objectContaining({
        code: 'VALIDATION',
        details: expect.objectContaining({
          field: 'tool_approvals.crm_delete',
          constraint: 'tool',
        }),
      }),
    );
  });
});

const agent = (version: string): AgentDefinition => ({
  namespace: 'acme',
  name: 'support',
  version,
  model: 'openai:gpt-4o-mini',
});

describe('agent references', () => {
  const catalog = new AgentCatalog([
    agent('1.0.0'),
    agent('1.4.2'),
    agent('2.0.0'),
    agent('2.1.0-beta.1'),
  ]);

  it('pick the exact version, or the highest match of a range', () => {
    expect(catalog.find('agent:acme/support@1.0.0')!.version).toBe('1.0.0');
    expect(catalog.find('agent:acme/support@^1')!.version).toBe('1.4.2');
    expect(catalog.find('agent:acme/support@>=1')!.version).toBe('2.0.0');
    expect(catalog.find('agent:acme/support@2.1.0-beta.1')!.version).toBe('2.1.0-beta.1');
  });

  it('name what is there when nothing matches', () => {
    expect(() => catalog.resolve('agent:acme/support@^3')).toThrow(
      /no version of agent acme\/support matches "\^3" \(there are 1.0.0, 1.4.2, 2.0.0, 2.1.0-beta.1\)/,
    );
    expect(() => catalog.resolve('agent:acme/suport@1.0.0')).toThrow(
      /unknown agent .*did you mean "acme\/support"/,
    );
  });
});

describe('effectiveGuardrails', () => {
  it("lets the step's fields override the agent's, false included", () => {
    expect(
      effectiveGuardrails(
        { guardrails: { piiDetection: true, maxTokens: 100 } },
        { piiDetection: false, maxToolCalls: 2 },
      ),
    ).toEqual({ piiDetection: false, maxTokens: 100, maxToolCalls: 2 });
    expect(effectiveGuardrails({}, undefined)).toBeUndefined();
    expect(effectiveGuardrails(undefined, { maxTokens: 5 })).toEqual({ maxTokens: 5 });
  });
});
