import type { LogWarningsFunction, Warning } from 'ai';

/** Where the AI SDK's warnings go: the `warn` of a pino-style logger. */
export interface WarningLogger {
  warn(fields: Record<string, unknown>, message: string): void;
}

/**
 * Routes the AI SDK's warnings (an unsupported setting, a compatibility mode...) to `logger`
 * as one `warn` line each, with the provider, the model and the warning. The SDK's own default
 * prints them with `console.info`/`console.warn`, the first on standard output, where it would
 * corrupt machine-readable output such as `weft workflow run -o json`. The hook is the AI SDK's
 * global (`AI_SDK_LOG_WARNINGS`): the last logger routed wins.
 */
export function routeAiSdkWarnings(logger: WarningLogger): void {
  const hook: LogWarningsFunction = ({ warnings, provider, model }) => {
    for (const warning of warnings) {
      logger.warn(
        { provider, model, warning },
        `AI SDK warning (${provider} / ${model}): ${describeWarning(warning)}`,
      );
    }
  };
  globalThis.AI_SDK_LOG_WARNINGS = hook;
}

/**
 * Makes sure the AI SDK never writes its warnings to standard output: when nobody routed them
 * (neither weft nor the program embedding it), they go to standard error as plain lines.
 */
export function keepAiSdkWarningsOffStdout(): void {
  if (globalThis.AI_SDK_LOG_WARNINGS !== undefined) return;
  routeAiSdkWarnings({
    warn: (_fields, message) => void process.stderr.write(`warning: ${message}\n`),
  });
}

/** One line for a warning. */
export function describeWarning(warning: Warning): string {
  switch (warning.type) {
    case 'unsupported':
    case 'compatibility': {
      const what =
        warning.type === 'unsupported' ? 'is not supported' : 'runs in a compatibility mode';
      return `the feature "${warning.feature}" ${what}${warning.details ? `: ${warning.details}` : ''}`;
    }
    case 'other':
      return warning.message;
    default:
      return JSON.stringify(warning);
  }
}
