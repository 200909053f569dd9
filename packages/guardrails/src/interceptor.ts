import {
  PII_KINDS,
  TimeoutError,
  UnavailableError,
  ValidationError,
  type Guardrails,
  type PiiKind,
  type StepType,
  type WorkflowGuardrails,
} from '@weft/core';
import type { RunInterceptor, StepCall, StepInfo, StepOutcome } from '@weft/engine';
import type { ContentCheck, Detection, DetectionRequest, DetectorRegistry } from './detector.js';
import { defaultDetectors } from './defaults.js';
import { checkOutputSchema } from './output-schema.js';
import { DEFAULT_MAX_TEXT_CHARS, outputText } from './text.js';

/** Options of {@link guardrailsInterceptor}. */
export interface GuardrailsOptions {
  /** The detectors; default `defaultDetectors()`. */
  detectors?: DetectorRegistry;
  /**
   * The guardrails in force for a step; default its own `guardrails`. Agent steps pass the
   * agent's defaults merged with the step's (field by field) through this.
   */
  resolve?: (step: StepInfo) => Guardrails | undefined;
  /** The step kinds whose `timeLimit` this interceptor enforces; default all that have one. */
  timeLimitOn?: readonly StepType[];
  /**
   * Characters of output text the content detectors read at most (default 1 MiB); a step whose
   * output has more fails with `VALIDATION` (`constraint: "max_text_size"`).
   */
  maxTextChars?: number;
}

/** A workflow's choice of detectors (`guardrails.detectors`). */
type WorkflowDetectors = NonNullable<WorkflowGuardrails['detectors']> | undefined;

/** The step kinds whose output guardrails are checked. */
const CHECKED_KINDS: ReadonlySet<StepType> = new Set(['action', 'transform', 'agent']);

/**
 * The interceptor that enforces a step's guardrails on action, transform and agent steps
 * (docs/workflow-language.md#guardrails): `timeLimit` over the whole step (`TIMEOUT`), then on
 * its output `outputSchema`, `piiDetection`, `blockedTopics` and `toxicityThreshold`, each
 * tripped one failing the step with `VALIDATION` (`details.field: "guardrails.<name>"`,
 * `details.constraint`, `details.found` by kind, never the matched text). Each check runs the
 * detector the workflow chose (`guardrails.detectors`) or the registry's default; a chosen one
 * this process lacks fails the step with `UNAVAILABLE` (fail closed). `continue_on_error`
 * applies as to any failure. Steps without guardrails pass at the cost of a property read.
 * Install it only when {@link needsGuardrails} says a run needs it.
 */
export function guardrailsInterceptor(options: GuardrailsOptions = {}): RunInterceptor {
  const detectors = options.detectors ?? defaultDetectors();
  const resolve = options.resolve ?? ((step: StepInfo) => step.definition.guardrails);
  const timeLimitOn = new Set(options.timeLimitOn ?? CHECKED_KINDS);
  const maxChars = options.maxTextChars ?? DEFAULT_MAX_TEXT_CHARS;

  const detect = async (
    check: ContentCheck,
    request: DetectionRequest,
    chosen: WorkflowDetectors,
  ): Promise<Detection> => {
    const name = chosen?.[check];
    const detector = detectors.get(check, name);
    if (!detector) {
      const which = name === undefined || name === 'default' ? '' : ` "${name}"`;
      throw new UnavailableError(
        `no ${check} detector${which} is configured in this process to enforce the guardrail; the output is blocked`,
        {
          backend: `guardrails.${check}`,
          ...(which ? { detector: name } : {}),
          suggestion: suggestionFor(check, which ? name : undefined),
        },
      );
    }
    return detector.detect(request);
  };

  const checkOutput = async (
    step: string,
    rails: Guardrails,
    output: unknown,
    signal: AbortSignal | undefined,
    chosen: WorkflowDetectors,
  ): Promise<void> => {
    if (rails.outputSchema) checkOutputSchema(step, rails.outputSchema, output);
    const kinds = piiKinds(rails.piiDetection);
    const topics = rails.blockedTopics ?? [];
    const threshold = rails.toxicityThreshold;
    if (kinds.length === 0 && topics.length === 0 && threshold === undefined) return;
    const field = contentField(kinds, topics);
    const text = outputText(output, field, maxChars);
    const request: DetectionRequest = { text, kinds, topics, signal };
    if (kinds.length > 0) {
      const { found } = await detect('pii', request, chosen);
      if (Object.keys(found).length > 0) {
        throw tripped(step, 'piiDetection', 'no_pii', 'contains personal data', found);
      }
    }
    if (topics.length > 0) {
      const { found } = await detect('topics', request, chosen);
      if (Object.keys(found).length > 0) {
        throw tripped(step, 'blockedTopics', 'blocked_topic', 'touches a blocked topic', found);
      }
    }
    if (threshold !== undefined) {
      const { found, score = 0 } = await detect('toxicity', request, chosen);
      if (score > threshold) {
        throw tripped(step, 'toxicityThreshold', 'max_toxicity', 'is too toxic', found, {
          score: Math.round(score * 1000) / 1000,
          threshold,
        });
      }
    }
  };

  return {
    name: 'guardrails',
    async step(call, next) {
      if (!CHECKED_KINDS.has(call.step.kind)) return next();
      const rails = resolve(call.step);
      if (rails === undefined) return next();
      const limit = timeLimitOn.has(call.step.kind) ? rails.timeLimit : undefined;
      const work = async (signal?: AbortSignal): Promise<StepOutcome> => {
        const outcome = await next();
        const chosen = call.run.workflow.guardrails?.detectors;
        await checkOutput(call.step.path, rails, outcome.output, signal, chosen);
        return outcome;
      };
      return limit === undefined ? work() : withTimeLimit(call, limit, work);
    },
  };
}

/** What to do when the detector a workflow chose is not in this process. */
function suggestionFor(check: ContentCheck, name: string | undefined): string {
  if (name === 'moderation') {
    return 'set WEFT_MODERATION_URL (weft server, weft workflow run) or offer a moderation detector (DetectorRegistry.offer)';
  }
  if (name === 'judge') {
    return 'set WEFT_JUDGE_MODEL (weft server, weft workflow run) or offer the judge detectors of @weft/agents (judgeDetectors, DetectorRegistry.offer)';
  }
  return `register a ${check} detector (DetectorRegistry.register or offer)`;
}

/** The kinds `piiDetection` asks for: all for `true`, none for `false` or unset. */
function piiKinds(setting: Guardrails['piiDetection']): readonly PiiKind[] {
  if (setting === true) return PII_KINDS;
  return Array.isArray(setting) ? setting : [];
}

/** The guardrail named in a "too large to read" error: the first content check asked. */
function contentField(kinds: readonly PiiKind[], topics: readonly string[]): string {
  if (kinds.length > 0) return 'guardrails.piiDetection';
  return topics.length > 0 ? 'guardrails.blockedTopics' : 'guardrails.toxicityThreshold';
}

function tripped(
  step: string,
  name: string,
  constraint: string,
  what: string,
  found: Readonly<Record<string, number>>,
  extra: Record<string, unknown> = {},
): ValidationError {
  const listed = Object.entries(found)
    .map(([kind, count]) => (count > 1 ? `${kind} ×${count}` : kind))
    .join(', ');
  return new ValidationError(
    `step "${step}": the output ${what}${listed ? ` (${listed})` : ''}; guardrails.${name} blocks it`,
    { field: `guardrails.${name}`, constraint, step, found: { ...found }, ...extra },
  );
}

/**
 * Runs the step and its checks, ending them with `TIMEOUT` once `seconds` have passed: the
 * step is aborted (its actions' signals fire), and a detector still judging its output gets the
 * signal and is not waited for.
 */
async function withTimeLimit(
  call: StepCall,
  seconds: number,
  work: (signal: AbortSignal) => Promise<StepOutcome>,
): Promise<StepOutcome> {
  const started = performance.now();
  const timeoutMs = seconds * 1000;
  const controller = new AbortController();
  let timer: NodeJS.Timeout | undefined;
  const expired = new Promise<never>((_resolve, reject) => {
    timer = setTimeout(() => {
      const error = new TimeoutError(
        `step "${call.step.path}" passed its time limit of ${seconds} s`,
        {
          timeout_ms: timeoutMs,
          elapsed_ms: Math.round(performance.now() - started),
          field: 'guardrails.timeLimit',
          step: call.step.path,
        },
      );
      controller.abort(error);
      call.abort(error);
      reject(error);
    }, timeoutMs);
  });
  expired.catch(() => {});
  try {
    const running = work(controller.signal);
    running.catch(() => {}); // after the time limit, what it settles to no longer matters
    return await Promise.race([running, expired]);
  } finally {
    clearTimeout(timer);
  }
}
