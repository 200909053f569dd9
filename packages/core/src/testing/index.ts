/**
 * `@weft/core/testing`: test doubles of core's ports that every package's tests share.
 * Production code never imports this subpath.
 */
export { MANUAL_CLOCK_START, ManualClock } from './manual-clock.js';
