/** Exit codes of the `weft` command. */
export const EXIT = {
  /** Everything went well. */
  ok: 0,
  /** Something unexpected broke (a bug, an I/O failure). */
  failure: 1,
  /** The input was wrong: a usage error, or a file with errors. */
  invalid: 2,
} as const;
