import { assertNever } from '@weft/core';
import type { MemberNode, Node, RootNode } from './ast.js';
import { errorAt } from './errors.js';
import type { Root } from './roots.js';

/** A path read by a template, found statically. */
export interface Reference {
  root: Root;
  /** Literal segments after the root, up to the first computed one. */
  path: readonly (string | number)[];
  /** True when a computed (non-literal) segment follows `path`. */
  computed: boolean;
  /** True when the path is the direct operand of `default(...)`: missing is allowed. */
  optional: boolean;
  /** Position in the template source, from the root to the end of the last segment of `path`. */
  offset: number;
  length: number;
}

/**
 * Every path of an expression that starts at a root, in source order, including paths inside
 * computed keys and filter arguments. Throws `computed_secret` when `secrets` is read without a
 * literal name (`secrets[expr]`, or the whole `secrets` object): which secret a template reads
 * must be visible before it runs.
 */
export function collectReferences(node: Node, source: string): Reference[] {
  const found: Reference[] = [];
  visit(node, false, found, source);
  return found.sort((a, b) => a.offset - b.offset);
}

function visit(node: Node, optional: boolean, found: Reference[], source: string): void {
  switch (node.type) {
    case 'literal':
      return;
    case 'root':
    case 'member':
      return path(node, optional, found, source);
    case 'unary':
      return visit(node.operand, false, found, source);
    case 'binary':
    case 'logical':
      visit(node.left, false, found, source);
      return visit(node.right, false, found, source);
    case 'conditional':
      visit(node.test, false, found, source);
      visit(node.consequent, false, found, source);
      return visit(node.alternate, false, found, source);
    case 'filter':
      visit(node.input, node.name === 'default', found, source);
      for (const argument of node.args) visit(argument, false, found, source);
      return;
    default:
      return assertNever(node, 'expression node');
  }
}

function path(
  node: RootNode | MemberNode,
  optional: boolean,
  found: Reference[],
  source: string,
): void {
  const members: MemberNode[] = [];
  let base: Node = node;
  while (base.type === 'member') {
    members.unshift(base);
    base = base.object;
  }
  if (base.type !== 'root') visit(base, false, found, source);
  const keys: (string | number)[] = [];
  let computed = false;
  let end: { offset: number; length: number } = base;
  for (const member of members) {
    if (member.key.type !== 'literal') {
      computed = true;
      visit(member.key, false, found, source);
    } else if (!computed) {
      keys.push(member.key.value as string | number);
      end = member;
    }
  }
  if (base.type !== 'root') return;
  if (base.name === 'secrets' && keys.length === 0) {
    const site = {
      field: source.slice(node.offset, node.offset + node.length),
      offset: node.offset,
      length: node.length,
    };
    throw errorAt(
      site,
      'computed_secret',
      computed
        ? "secrets must be read with a literal name (secrets.NAME or secrets['NAME']), not a computed key"
        : 'secrets must be read by name (secrets.NAME), not as a whole',
    );
  }
  found.push({
    root: base.name,
    path: Object.freeze(keys),
    computed,
    optional,
    offset: base.offset,
    length: end.offset + end.length - base.offset,
  });
}
