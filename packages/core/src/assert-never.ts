/** Exhaustiveness guard for `switch` over discriminated unions (DESIGN.md §6). */
export function assertNever(value: never, what = 'value'): never {
  throw new Error(`unexpected ${what}: ${JSON.stringify(value)}`);
}
