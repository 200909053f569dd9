/** The Vercel AI SDK's module (`ai`). */
export type AiSdk = typeof import('ai');

let sdk: Promise<AiSdk> | undefined;

/**
 * The Vercel AI SDK, imported at the first model call rather than with this package: `ai` and
 * zod, which it brings, are the largest modules a CLI command would otherwise load, and most
 * processes (`weft workflow validate`, runs without agent steps or a judge) never call a model.
 * The provider packages (`@ai-sdk/openai`...) are likewise imported by `providerModel` when it
 * first makes a model of theirs.
 */
export function loadAiSdk(): Promise<AiSdk> {
  return (sdk ??= import('ai'));
}
