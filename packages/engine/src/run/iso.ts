/**
 * `toISOString` remembering its last answer: the events and records of steps that take less
 * than a millisecond share their timestamp, and formatting a `Date` is a fair share of an
 * event's cost (~4% of a journaled step's CPU).
 */
export function isoFormatter(): (ms: number) => string {
  let lastMs = NaN;
  let last = '';
  return (ms) => {
    if (ms !== lastMs) {
      lastMs = ms;
      last = new Date(ms).toISOString();
    }
    return last;
  };
}
