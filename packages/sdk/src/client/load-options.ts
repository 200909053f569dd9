import type { LoadOptions } from '@weft/engine';
import type { WeftOptions } from './options.js';

/**
 * How `loadWorkflows` loads a file: subworkflow steps may call the workflows already loaded,
 * and `guardrails.detectors` may name the detectors of `options.guardrails` (in cloud mode,
 * any: the server checks them).
 */
export function loadOptions(options: WeftOptions, loaded: Map<string, unknown>): LoadOptions {
  return {
    knownWorkflows: [...loaded.keys()],
    detectors:
      options.executionMode === 'cloud' ? 'any' : (options.guardrails?.detectors?.names() ?? {}),
  };
}
