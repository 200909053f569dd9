/** A string a secret can take in data: its value, an encoding of it, or a field of it. */
export interface SecretForm {
  /** The secret's name (named by the error when an output carries it). */
  readonly name: string;
  readonly form: string;
}

/**
 * Shortest string leaf of a JSON secret that is a secret of its own. Shorter leaves (a user
 * name such as "svc", a port, a flag) are common words: masking them wherever they appear would
 * destroy the output while protecting little.
 */
export const MIN_JSON_LEAF_LENGTH = 8;

/** Most leaves taken from one JSON secret (a secret is a credential, not a data set). */
const MAX_JSON_LEAVES = 1_000;

/**
 * The forms a secret value can take in data: the value as is, base64, base64url and hex; and,
 * when the value parses as a JSON object or array, the same forms of each string leaf of
 * {@link MIN_JSON_LEAF_LENGTH} characters or more (`{"password": "…"}`: a connector that parses
 * the secret and returns the password still carries it).
 */
export function secretForms(name: string, value: string): SecretForm[] {
  if (value === '') return [];
  const forms = new Set<string>();
  encodings(value, forms);
  for (const leaf of jsonLeaves(value)) encodings(leaf, forms);
  return [...forms].map((form) => ({ name, form }));
}

function encodings(value: string, into: Set<string>): void {
  const buffer = Buffer.from(value, 'utf8');
  into.add(value);
  into.add(buffer.toString('base64'));
  into.add(buffer.toString('base64url'));
  into.add(buffer.toString('hex'));
}

/** The string leaves of at least MIN_JSON_LEAF_LENGTH characters of a JSON object or array. */
function jsonLeaves(value: string): string[] {
  const first = value.trimStart()[0];
  if (first !== '{' && first !== '[') return [];
  let parsed: unknown;
  try {
    parsed = JSON.parse(value);
  } catch {
    return [];
  }
  const leaves: string[] = [];
  const stack = [parsed];
  while (stack.length > 0 && leaves.length < MAX_JSON_LEAVES) {
    const item = stack.pop();
    if (typeof item === 'string') {
      if (item.length >= MIN_JSON_LEAF_LENGTH && item !== value) leaves.push(item);
    } else if (typeof item === 'object' && item !== null) {
      for (const child of Object.values(item)) stack.push(child);
    }
  }
  return leaves;
}
