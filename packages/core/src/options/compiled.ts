/**
 * The compiled form of an options type `O`, derived from it rather than written out again:
 *
 * - a field with a default (a key of `D`, the package's `satisfies Partial<O>` defaults
 *   constant) is always present and never undefined;
 * - a field the compiler turns into another shape takes its type from `R`;
 * - every other field is present as given: a required one as it is, an optional one
 *   `undefined` when the caller left it out.
 *
 * So a field added to `O` appears in the compiled type at once, and a default added to the
 * constant makes it non-optional there without a second edit.
 */
export type CompiledOptions<O, D extends Partial<O>, R extends object = object> = Flat<
  { [K in Exclude<keyof O, keyof D | keyof R>]-?: Given<O, K> } & {
    [K in Exclude<keyof D & keyof O, keyof R>]-?: NonNullable<O[K]>;
  } & R
>;

/** One object type instead of an intersection, so editors show the fields. */
type Flat<T> = { [K in keyof T]: T[K] } & {};

/** A field as the caller gave it: optional ones may be undefined. */
type Given<O, K extends keyof O> = object extends Pick<O, K> ? O[K] | undefined : O[K];
