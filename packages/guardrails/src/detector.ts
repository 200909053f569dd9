import type { PiiKind } from '@weft/core';

/** The content guardrails a detector can serve. */
export type ContentCheck = 'pii' | 'toxicity' | 'topics';

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
 * The detectors guardrails run, one per check, as the secrets provider is one per process:
 * start from `defaultDetectors()` and `register` a detector to replace the one of its check.
 */
export class DetectorRegistry {
  private readonly detectors = new Map<ContentCheck, Detector>();

  constructor(detectors: Iterable<Detector> = []) {
    for (const detector of detectors) this.register(detector);
  }

  /** Puts `detector` in place of the one serving its check; gives the registry. */
  register(detector: Detector): this {
    this.detectors.set(detector.check, detector);
    return this;
  }

  /** The detector serving `check`; undefined when there is none. */
  get(check: ContentCheck): Detector | undefined {
    return this.detectors.get(check);
  }

  /** Every detector, one per check. */
  list(): Detector[] {
    return [...this.detectors.values()];
  }
}
