/** Exhaustiveness guard for `switch` over discriminated unions (docs/design.md#how-we-build). */
export function assertNever(value: never, what = 'value'): never {
  throw new Error(`unexpected ${what}: ${JSON.stringify(value)}`);
}
