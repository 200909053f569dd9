/**
 * Edit distance (Levenshtein, with adjacent transposition counted as one edit) between two
 * strings, stopping early once it exceeds `limit`.
 */
export function editDistance(a: string, b: string, limit = Infinity): number {
  if (a === b) return 0;
  if (Math.abs(a.length - b.length) > limit) return limit + 1;
  let previous2: number[] = [];
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const current = [i];
    let rowMin = i;
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let value = Math.min(previous[j]! + 1, current[j - 1]! + 1, previous[j - 1]! + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) {
        value = Math.min(value, previous2[j - 2]! + 1);
      }
      current.push(value);
      rowMin = Math.min(rowMin, value);
    }
    if (rowMin > limit) return limit + 1;
    previous2 = previous;
    previous = current;
  }
  return previous[b.length]!;
}

/**
 * The candidate closest to `input`, when one is close enough to be a likely typo (a third of
 * the length, at least one edit; case differences are free), else `undefined`.
 */
export function didYouMean(input: string, candidates: Iterable<string>): string | undefined {
  const limit = Math.max(1, Math.floor(input.length / 3));
  const lower = input.toLowerCase();
  let best: string | undefined;
  let bestDistance = limit + 1;
  for (const candidate of candidates) {
    if (candidate === input) continue;
    const distance = editDistance(lower, candidate.toLowerCase(), limit);
    if (distance < bestDistance) {
      best = candidate;
      bestDistance = distance;
    }
  }
  return best;
}

/** `" (did you mean \"x\"?)"` when a close candidate exists, else the empty string. */
export function suggestion(input: string, candidates: Iterable<string>): string {
  const match = didYouMean(input, candidates);
  return match === undefined ? '' : ` (did you mean "${match}"?)`;
}
