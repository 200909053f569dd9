import type { Clock } from '@weft/core';

/** Time as the registry sees it: only `now()` of the core {@link Clock}. */
export type RegistryClock = Pick<Clock, 'now'>;

/** ISO 8601 UTC text of a clock reading. */
export function isoNow(clock: RegistryClock): string {
  return new Date(clock.now()).toISOString();
}
