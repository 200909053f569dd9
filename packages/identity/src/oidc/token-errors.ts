import { UnauthorizedError, WeftError } from '@weft/core';
import { errors } from 'jose';
import { unavailable } from './discovery.js';

/**
 * Thrown from the key lookup when the key set cannot be read (the JWKS endpoint is down, times
 * out, answers garbage): the token is then refused with `UNAVAILABLE`, never accepted.
 */
export class KeySetUnreachable extends Error {
  override readonly name = 'KeySetUnreachable';
}

/** Thrown from the key lookup for a `kid` that cannot be a key id (not a short string). */
export class KidRefused extends Error {
  override readonly name = 'KidRefused';
}

/**
 * The wire error of a token that failed verification: `UNAUTHORIZED` with `details.reason`
 * (`expired`, `not_yet_valid`, `wrong_issuer`, `wrong_audience`, `missing_claim`,
 * `alg_not_allowed`, `unknown_key`, `bad_signature`, `bad_kid`, `bad_type`, `malformed`), or
 * `UNAVAILABLE` when the identity provider's keys cannot be read. Nothing of the token is echoed.
 */
export function tokenError(error: unknown, jwksUrl: string): WeftError {
  if (error instanceof WeftError) return error;
  if (error instanceof KeySetUnreachable) {
    return unavailable(
      `cannot read the identity provider's keys from ${jwksUrl}: ${error.message}`,
      error.cause,
    );
  }
  if (error instanceof KidRefused)
    return refused('the token header has an unusable kid', 'bad_kid');
  if (error instanceof errors.JWTExpired) return refused('the token has expired', 'expired');
  if (error instanceof errors.JWTClaimValidationFailed) return claimFailure(error);
  if (error instanceof errors.JOSEAlgNotAllowed) {
    return refused(
      'the token is not signed with an accepted algorithm (asymmetric only)',
      'alg_not_allowed',
    );
  }
  if (error instanceof errors.JWKSNoMatchingKey) {
    return refused(
      "the token is signed with a key the identity provider's key set does not have",
      'unknown_key',
    );
  }
  if (error instanceof errors.JWKSMultipleMatchingKeys) {
    return refused('the token does not say which of several keys signed it', 'ambiguous_key');
  }
  if (error instanceof errors.JWSSignatureVerificationFailed) {
    return refused('the token signature is not valid', 'bad_signature');
  }
  return refused('the bearer token is not a well-formed signed JWT', 'malformed');
}

function claimFailure(error: InstanceType<typeof errors.JWTClaimValidationFailed>): WeftError {
  if (error.reason === 'missing') {
    return refused(`the token has no ${error.claim} claim`, 'missing_claim', error.claim);
  }
  switch (error.claim) {
    case 'iss':
      return refused('the token was issued by another issuer', 'wrong_issuer', 'iss');
    case 'aud':
      return refused('the token is meant for another audience', 'wrong_audience', 'aud');
    case 'nbf':
      return refused('the token is not valid yet', 'not_yet_valid', 'nbf');
    case 'iat':
      return refused('the token was issued in the future', 'not_yet_valid', 'iat');
    default:
      return refused(`the token's ${error.claim} claim is not valid`, 'bad_claim', error.claim);
  }
}

/** An `UNAUTHORIZED` error of a refused token. */
export function refused(message: string, reason: string, claim?: string): UnauthorizedError {
  return new UnauthorizedError(message, { reason, ...(claim !== undefined ? { claim } : {}) });
}
