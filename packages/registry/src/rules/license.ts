import { createRequire } from 'node:module';
import { didYouMean } from '@weft/core';

/** `spdx-expression-parse`: throws on a string that is not an SPDX license expression. */
type ParseSpdx = (expression: string) => unknown;

const require = createRequire(import.meta.url);
let parseSpdx: ParseSpdx | undefined;
let knownIds: readonly string[] | undefined;

/**
 * Why a definition's `license` is refused, or undefined when it is an SPDX license expression:
 * an identifier of the SPDX license list (`MIT`, deprecated ones too), `LicenseRef-…`, an
 * identifier `WITH` an exception, and `AND` / `OR` combinations with brackets. Checked with the
 * SPDX list and expression parser npm itself uses (`spdx-expression-parse`, `spdx-license-ids`),
 * loaded at the first definition checked. Identifiers are case-sensitive, as in the list: `mit`
 * is refused with the suggestion `MIT`.
 */
export function licenseProblem(
  expression: string,
): { constraint: string; message: string } | undefined {
  parseSpdx ??= require('spdx-expression-parse') as ParseSpdx;
  try {
    parseSpdx(expression);
    return undefined;
  } catch {
    knownIds ??= [
      ...(require('spdx-license-ids') as string[]),
      ...(require('spdx-license-ids/deprecated.json') as string[]),
    ];
    const words = expression.split(/[\s()]+/).filter(Boolean);
    const ids = knownIds;
    // The first word that should be a list identifier and is not (exceptions follow `WITH`).
    const unknown = words.find(
      (word, i) =>
        !OPERATORS.has(word) &&
        words[i - 1] !== 'WITH' &&
        !/^(LicenseRef|DocumentRef)-/.test(word) &&
        !ids.includes(word),
    );
    const suggestion = unknown === undefined ? undefined : didYouMean(unknown, ids);
    const what =
      unknown === undefined || unknown === expression
        ? `"${expression}" is not an SPDX license expression`
        : `"${expression}" is not an SPDX license expression: "${unknown}" is not on the SPDX license list`;
    return {
      constraint: 'spdx',
      message: `${what}${suggestion ? ` (did you mean "${suggestion}"?)` : ''}; write an identifier such as MIT or Apache-2.0, an expression such as "Apache-2.0 OR MIT", or LicenseRef-<name> for a license of your own`,
    };
  }
}

/** The words of an SPDX expression that are not identifiers. */
const OPERATORS = new Set(['AND', 'OR', 'WITH']);
