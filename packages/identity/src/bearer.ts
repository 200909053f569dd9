import { UnauthorizedError } from '@weft/core';

/**
 * Longest bearer token accepted, in characters (8 KiB). A longer one is refused before anything
 * parses it: identity-provider tokens with hundreds of groups are the usual culprit.
 */
export const MAX_TOKEN_LENGTH = 8192;

const BEARER = /^Bearer[ \t]+(\S*)[ \t]*$/i;
const BLANK = /^\s*$/;

/**
 * The token of an `Authorization: Bearer <token>` header. Throws `UNAUTHORIZED` with
 * `details.reason` `missing` (no header), `malformed` (another scheme, no token, spaces inside)
 * or `too_large` (over {@link MAX_TOKEN_LENGTH}).
 */
export function bearerToken(header: string | undefined): string {
  if (header === undefined || BLANK.test(header)) {
    throw new UnauthorizedError(
      'this needs a credential: send Authorization: Bearer <key or token> (create a key with weft auth create-key)',
      { reason: 'missing' },
    );
  }
  if (header.length > MAX_TOKEN_LENGTH + 16) throw tooLarge();
  const token = BEARER.exec(header)?.[1] ?? '';
  if (token === '') {
    throw new UnauthorizedError(
      'the Authorization header must be "Bearer <key or token>" with a non-empty credential',
      { reason: 'malformed' },
    );
  }
  if (token.length > MAX_TOKEN_LENGTH) throw tooLarge();
  return token;
}

function tooLarge(): UnauthorizedError {
  return new UnauthorizedError(
    `the bearer token is longer than ${MAX_TOKEN_LENGTH} characters: ask the identity provider for a smaller token (fewer groups in it)`,
    { reason: 'too_large', limit: MAX_TOKEN_LENGTH },
  );
}
