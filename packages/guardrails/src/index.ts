export * from './detector.js';
export { configuredDetectors, defaultDetectors, type DetectorSettings } from './defaults.js';
export { guardrailsInterceptor, type GuardrailsOptions } from './interceptor.js';
export { needsGuardrails } from './needs.js';
export { checkOutputSchema } from './output-schema.js';
export { DEFAULT_MAX_TEXT_CHARS, outputText } from './text.js';
export { piiDetector, type PiiDetectorOptions } from './pii/pii-detector.js';
export { luhn } from './pii/card.js';
export { toxicityDetector, toxicityScore } from './toxicity.js';
export {
  CompiledTransformers,
  ProfanityMatcher,
  englishProfanityMatcher,
  type ProfanityMatcherOptions,
} from './profanity-matcher.js';
export { topicDetector } from './topics.js';
export { moderationDetector, type ModerationDetectorOptions } from './moderation.js';
