import { createRequire } from 'node:module';
import {
  AGENT_ONLY_GUARDRAILS,
  CONTENT_CHECKS,
  DETECTOR_NAME_PATTERN,
  type Step,
} from '@weft/core';
import type { CompiledLoadOptions } from '../load/options.js';
import type { Ajv } from 'ajv';
import type { Path } from '../diagnostics.js';
import type { Reporter } from '../load/reporter.js';
import { inferStepType, type WorkflowDefinition } from '../model.js';

// Made on first use: an ajv instance compiles its meta-schema, which every importer would pay.
// ajv itself (some 60 modules) is required then too: it is CommonJS, so `require` loads it
// synchronously, and a process that compiles no schema here (`weft workflow validate` of a file
// without output schemas) never loads it.
const require = createRequire(import.meta.url);
let ajv: Ajv | undefined;
const WORD = /[\p{L}\p{N}]/u;
const DETECTOR_NAME = new RegExp(DETECTOR_NAME_PATTERN);

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
      (ajv ??= new (require('ajv') as typeof import('ajv')).Ajv({
        strict: false,
        allErrors: false,
        validateSchema: true,
      })).compile(guardrails.outputSchema);
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

/**
 * Checks a workflow's `guardrails.detectors` (docs/workflow-language.md#choosing-detectors):
 * each names `default`, the lexical detector of its check, or one the process offers
 * (`LoadOptions.detectors`); another is an error, since the check could not be made as asked.
 */
export function checkWorkflowDetectors(
  workflow: WorkflowDefinition,
  at: Path,
  options: CompiledLoadOptions,
  reporter: Reporter,
): void {
  const chosen = workflow.guardrails?.detectors;
  if (chosen === undefined || options.detectors === undefined) return;
  for (const check of CONTENT_CHECKS) {
    const name = chosen[check];
    const offered = options.detectors.get(check);
    if (name === undefined || !DETECTOR_NAME.test(name) || offered?.has(name) !== false) continue;
    reporter.error(
      [...at, 'guardrails', 'detectors', check],
      'unknown_detector',
      `no ${check} detector "${name}" is configured here; the ${check} detectors are: ` +
        `${[...offered].join(', ')} (the server or CLI offers the toxicity detector moderation ` +
        'when WEFT_MODERATION_URL is set, and judge for every check when WEFT_JUDGE_MODEL is set)',
    );
  }
}
