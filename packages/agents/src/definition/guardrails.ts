import type { Guardrails } from '@weft/core';
import type { AgentDefinition } from './schema.js';

/**
 * The guardrails of an agent step: the agent's defaults, overridden field by field by the step's
 * (a field the step sets wins, `piiDetection: false` included; a field it leaves out keeps the
 * agent's). Undefined when neither sets any.
 */
export function effectiveGuardrails(
  agent: Pick<AgentDefinition, 'guardrails'> | undefined,
  step: Guardrails | undefined,
): Guardrails | undefined {
  const defaults = agent?.guardrails;
  if (!defaults) return step;
  if (!step) return defaults;
  const merged: Record<string, unknown> = { ...defaults };
  for (const [field, value] of Object.entries(step)) if (value !== undefined) merged[field] = value;
  return merged;
}
