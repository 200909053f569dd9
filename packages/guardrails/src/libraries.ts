import { createRequire } from 'node:module';

// The detectors' libraries are read at their detector's first use, not when this package is
// imported: obscenity (which builds its English dataset as it loads) and libphonenumber-js (a
// hundred modules and 150 kB of metadata) cost more to load than the rest of the package, and a
// process that checks no text (`weft workflow validate`, a run without guardrails) should not
// pay for them. Their CommonJS builds, through `require`, load synchronously, so the lexical
// detectors stay synchronous. obscenity's ES module only wraps that same CommonJS build, so a
// program that imports obscenity itself shares the one instance (and its `SyntaxKind`).
const require = createRequire(import.meta.url);

type Obscenity = typeof import('obscenity');
type PhoneNumbers = typeof import('libphonenumber-js/max');

let obscenity: Obscenity | undefined;
let phoneNumbers: PhoneNumbers | undefined;

/** `obscenity`, loaded at the first call. */
export function obscenityLibrary(): Obscenity {
  return (obscenity ??= require('obscenity') as Obscenity);
}

/** `libphonenumber-js` with its full metadata (`/max`), loaded at the first call. */
export function phoneNumberLibrary(): PhoneNumbers {
  return (phoneNumbers ??= require('libphonenumber-js/max') as PhoneNumbers);
}
