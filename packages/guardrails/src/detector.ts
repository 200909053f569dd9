import type { ContentCheck, DetectorNames, PiiKind } from '@weft/core';

export type { ContentCheck } from '@weft/core';

/** What a detector is asked: the text of one step output, and what the step's guardrails ask. */
export interface DetectionRequest {
  /** The output's text (strings, keys and numbers, one per line). */
  readonly text: string;
  /** `pii`: the kinds to look for. */
  readonly kinds: readonly PiiKind[];
  /** `topics`: the blocked topics, as the workflow spells them. */
  readonly topics: readonly string[];
  /** Fires when the step is aborted (time limit, cancel); a slow detector should stop. */
  readonly signal?: AbortSignal | undefined;
}

/**
 * What a detector found. `found` counts occurrences by name: PII kinds (`email`,
 * `credit_card`, …), topics as the workflow spells them, or toxicity categories. It never holds
 * the text that matched: it goes into error details, events and logs.
 */
export interface Detection {
  readonly found: Readonly<Record<string, number>>;
  /** `toxicity`: the score, 0 (clean) to 1. */
  readonly score?: number;
}

/**
 * A content detector: the default lexical ones (`piiDetector`, `toxicityDetector`,
 * `topicDetector`) or one of your own (a model-judged one, a moderation endpoint), put in a
 * {@link DetectorRegistry} in place of the default for its check.
 */
export interface Detector {
  /** Names the detector in diagnostics (`pii`, `obscenity`, `moderation:…`). */
  readonly name: string;
  /** Which guardrail it serves. */
  readonly check: ContentCheck;
  detect(request: DetectionRequest): Detection | Promise<Detection>;
}

/** A detector that answers at once (the default lexical ones). */
export interface SyncDetector extends Detector {
  detect(request: DetectionRequest): Detection;
}

/**
 * The detectors guardrails run. Per check, one serves by default, as the secrets provider is
 * one per process: start from `defaultDetectors()` and `register` a detector to replace the one
 * of its check. Others can be `offer`ed: a workflow chooses them by name
 * (`guardrails.detectors`, docs/workflow-language.md#choosing-detectors), and so can the
 * lexical defaults once replaced.
 */
export class DetectorRegistry {
  private readonly serving = new Map<ContentCheck, Detector>();
  private readonly named = new Map<string, Detector>();

  constructor(detectors: Iterable<Detector> = []) {
    for (const detector of detectors) this.register(detector);
  }

  /** Puts `detector` in place of the one serving its check by default; gives the registry. */
  register(detector: Detector): this {
    this.serving.set(detector.check, detector);
    return this.offer(detector);
  }

  /** Makes `detector` available to workflows that choose it by name; gives the registry. */
  offer(detector: Detector): this {
    if (detector.name === 'default') {
      throw new Error('a detector cannot be named "default": that name means the one serving');
    }
    this.named.set(`${detector.check}/${detector.name}`, detector);
    return this;
  }

  /**
   * The detector serving `check`: the one named `name`, or the default one when `name` is
   * undefined or `default`. Undefined when there is none.
   */
  get(check: ContentCheck, name?: string): Detector | undefined {
    if (name === undefined || name === 'default') return this.serving.get(check);
    return this.named.get(`${check}/${name}`);
  }

  /** Every detector serving a check by default, one per check. */
  list(): Detector[] {
    return [...this.serving.values()];
  }

  /** The names a workflow may choose per check (besides `default`), for the workflow loader. */
  names(): DetectorNames {
    const names: Partial<Record<ContentCheck, string[]>> = {};
    for (const detector of this.named.values()) (names[detector.check] ??= []).push(detector.name);
    return names;
  }
}
