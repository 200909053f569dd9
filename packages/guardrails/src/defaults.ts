import { DetectorRegistry } from './detector.js';
import { piiDetector, type PiiDetectorOptions } from './pii/pii-detector.js';
import { topicDetector } from './topics.js';
import { toxicityDetector } from './toxicity.js';

/** The default detectors: PII by kind, `obscenity` toxicity, topics by word forms. */
export function defaultDetectors(options: { pii?: PiiDetectorOptions } = {}): DetectorRegistry {
  return new DetectorRegistry([piiDetector(options.pii), toxicityDetector(), topicDetector()]);
}
