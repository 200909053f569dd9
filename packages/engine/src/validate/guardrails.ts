import { AGENT_ONLY_GUARDRAILS, type Step } from '@weft/core';
import { Ajv } from 'ajv';
import type { Path } from '../diagnostics.js';
import type { Reporter } from '../load/reporter.js';
import { inferStepType } from '../model.js';

const ajv = new Ajv({ strict: false, allErrors: false, validateSchema: true });
const WORD = /[\p{L}\p{N}]/u;

/**
 * Checks what the schema cannot about a step's `guardrails` (docs/workflow-language.md#guardrails):
 * `outputSchema` is a valid JSON Schema, every blocked topic has a word to match, and the
 * budgets of model turns (`maxCost`, `maxTokens`, `maxToolCalls`) are only on agent steps.
 */
export function checkGuardrails(step: Step, at: Path, reporter: Reporter): void {
  const guardrails = step.guardrails;
  if (guardrails === undefined) return;
  const here = [...at, 'guardrails'];
  if (guardrails.outputSchema) {
    try {
      ajv.compile(guardrails.outputSchema);
    } catch (error) {
      reporter.error(
        [...here, 'outputSchema'],
        'schema',
        `not a valid JSON Schema: ${(error as Error).message}`,
      );
    }
  }
  guardrails.blockedTopics?.forEach((topic, index) => {
    if (!WORD.test(topic)) {
      reporter.error(
        [...here, 'blockedTopics', index],
        'topic_words',
        `blocked topic "${topic}" has no word to match: write the topic in words`,
      );
    }
  });
  const kind = inferStepType(step);
  if (kind === undefined || kind === 'agent') return;
  for (const name of AGENT_ONLY_GUARDRAILS) {
    if (guardrails[name] === undefined) continue;
    reporter.error(
      [...here, name],
      'agent_only',
      `guardrails.${name} budgets an agent's model turns and means nothing on ${kind === 'action' ? 'an' : 'a'} ${kind} step: ` +
        'remove it, or use timeLimit to bound the step',
      { key: true },
    );
  }
}
