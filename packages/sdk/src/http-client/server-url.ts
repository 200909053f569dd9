import { ValidationError } from '@weft/core';

/** How a server address is named in errors. */
export interface ServerUrlNaming {
  /** Whose address it is: `router`, `server`. */
  role: string;
  /** An example address for the message. */
  example: string;
  /** Added to the message when no address was given at all. */
  unsetHint?: string;
}

/**
 * Checks the address of a weft server the SDK calls: absolute http(s), no credentials in it.
 * Throws `VALIDATION` naming `field`.
 */
export function checkServerUrl(
  text: string | undefined,
  field: string,
  naming: ServerUrlNaming,
): URL {
  let url: URL | undefined;
  try {
    url = text ? new URL(text) : undefined;
  } catch {
    url = undefined;
  }
  if (
    !url ||
    (url.protocol !== 'http:' && url.protocol !== 'https:') ||
    url.username ||
    url.password
  ) {
    throw new ValidationError(
      `${field} must be the ${naming.role}'s absolute http(s) URL, e.g. ${naming.example}${text ? `, not "${text}"` : (naming.unsetHint ?? '')}`,
      { field, constraint: 'url' },
    );
  }
  return url;
}
