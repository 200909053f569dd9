import { Type } from '@weft/core/typebox';

/** Pattern of step identifiers and input/output names: a letter or `_`, then letters, digits, `_`, `-`. */
export const IDENTIFIER_PATTERN = '^[A-Za-z_][A-Za-z0-9_-]{0,63}$';

/** Step identifier or input/output name (see {@link IDENTIFIER_PATTERN}). */
export const Identifier = (description: string) =>
  Type.String({
    pattern: IDENTIFIER_PATTERN,
    description,
    'x-expected':
      'an identifier: a letter or _, then letters, digits, _ or - (64 characters at most)',
  });

/** A `{{ ... }}` template, or plain text. */
export const TemplateString = (description: string) =>
  Type.String({ maxLength: 65536, description });

/** A semantic version such as `1.2.0` (checked with `semver` by the validator). */
export const SemverString = (description: string) =>
  Type.String({
    minLength: 1,
    maxLength: 256,
    description,
    'x-expected': 'a semantic version such as 1.0.0',
  });

/** A non-empty string of bounded length. */
export const Text = (description: string, maxLength = 4096) =>
  Type.String({ minLength: 1, maxLength, description });

/** Any JSON value. */
export const AnyValue = (description: string) => Type.Unknown({ description });
