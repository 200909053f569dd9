import { ValidationError, WeftError } from '@weft/core';
import type { AgentRequest } from '../run/contract.js';

/** The user message: the prompt, and the step's other input keys as JSON context. */
export function userMessage(request: AgentRequest): string {
  if (!request.context) return request.prompt;
  return `${request.prompt}\n\nContext (JSON):\n${JSON.stringify(request.context)}`;
}

/** What goes back to the model when a tool call fails: `CODE: message` for weft errors. */
export function errorText(error: unknown): string {
  if (error instanceof WeftError) return `${error.code}: ${error.message}`;
  return error instanceof Error ? error.message : String(error);
}

/** The failure of a model still calling tools after `max_steps` turns. */
export function maxStepsError(maxSteps: number): ValidationError {
  return new ValidationError(
    `the model was still calling tools after max_steps (${maxSteps}) turns; raise the agent's max_steps or give it clearer instructions`,
    { field: 'agent.max_steps', constraint: 'max_steps', limit: maxSteps },
  );
}
