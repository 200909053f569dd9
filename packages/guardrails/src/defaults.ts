import { DetectorRegistry } from './detector.js';
import { moderationDetector, type ModerationDetectorOptions } from './moderation.js';
import { piiDetector, type PiiDetectorOptions } from './pii/pii-detector.js';
import { topicDetector } from './topics.js';
import { toxicityDetector } from './toxicity.js';

/** The default detectors: PII by kind, `obscenity` toxicity, topics by word forms. */
export function defaultDetectors(options: { pii?: PiiDetectorOptions } = {}): DetectorRegistry {
  return new DetectorRegistry([piiDetector(options.pii), toxicityDetector(), topicDetector()]);
}

/** What {@link configuredDetectors} builds on: the settings of `weft server` and `weft workflow run`. */
export interface DetectorSettings {
  pii?: PiiDetectorOptions;
  /**
   * An OpenAI-compatible moderation endpoint (`WEFT_MODERATION_URL`): offered as the toxicity
   * detector `moderation` to the workflows that choose it (`guardrails.detectors.toxicity`).
   */
  moderation?: ModerationDetectorOptions;
}

/** The default detectors, plus those the settings configure, offered by name. */
export function configuredDetectors(settings: DetectorSettings = {}): DetectorRegistry {
  const registry = defaultDetectors(settings.pii ? { pii: settings.pii } : {});
  if (settings.moderation) registry.offer(moderationDetector(settings.moderation));
  return registry;
}
