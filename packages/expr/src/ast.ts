import type { FilterName } from './filters.js';
import type { Root } from './roots.js';

/** Position of a node in the template source string (not in the expression). */
export interface Span {
  readonly offset: number;
  readonly length: number;
}

/** A literal scalar: string, number, boolean or null. */
export interface LiteralNode extends Span {
  readonly type: 'literal';
  readonly value: string | number | boolean | null;
}

/** One of the {@link ROOTS} at the start of a path. */
export interface RootNode extends Span {
  readonly type: 'root';
  readonly name: Root;
}

/**
 * `object.name`, `object[key]`. A dotted name and a bracketed literal are both a literal `key`
 * (a static segment); any other bracketed expression is a computed segment.
 */
export interface MemberNode extends Span {
  readonly type: 'member';
  readonly object: Node;
  readonly key: Node;
}

/** `not x` (boolean negation) or `-x` (numeric negation). */
export interface UnaryNode extends Span {
  readonly type: 'unary';
  readonly operator: 'not' | '-';
  readonly operand: Node;
}

/** Arithmetic and comparison operators. */
export type BinaryOperator = '+' | '-' | '*' | '/' | '%' | '==' | '!=' | '<' | '<=' | '>' | '>=';

/** `left <op> right` for arithmetic and comparisons. */
export interface BinaryNode extends Span {
  readonly type: 'binary';
  readonly operator: BinaryOperator;
  readonly left: Node;
  readonly right: Node;
}

/** `left and right`, `left or right`: short-circuit, returns the deciding operand. */
export interface LogicalNode extends Span {
  readonly type: 'logical';
  readonly operator: 'and' | 'or';
  readonly left: Node;
  readonly right: Node;
}

/** `test ? consequent : alternate`. */
export interface ConditionalNode extends Span {
  readonly type: 'conditional';
  readonly test: Node;
  readonly consequent: Node;
  readonly alternate: Node;
}

/** `input | name` or `input | name(args...)`. */
export interface FilterNode extends Span {
  readonly type: 'filter';
  readonly name: FilterName;
  readonly input: Node;
  readonly args: readonly Node[];
  /** Position of the filter name. */
  readonly nameOffset: number;
}

/** Any expression node. */
export type Node =
  | LiteralNode
  | RootNode
  | MemberNode
  | UnaryNode
  | BinaryNode
  | LogicalNode
  | ConditionalNode
  | FilterNode;

/** True for a path: a root, or a member access whose object is a path. */
export function isPath(node: Node): node is RootNode | MemberNode {
  return node.type === 'root' || (node.type === 'member' && isPath(node.object));
}

/** True when `node` or any node under it is the root `name` (e.g. whether it reads secrets). */
export function mentionsRoot(node: Node, name: string): boolean {
  switch (node.type) {
    case 'literal':
      return false;
    case 'root':
      return node.name === name;
    case 'member':
      return mentionsRoot(node.object, name) || mentionsRoot(node.key, name);
    case 'unary':
      return mentionsRoot(node.operand, name);
    case 'binary':
    case 'logical':
      return mentionsRoot(node.left, name) || mentionsRoot(node.right, name);
    case 'conditional':
      return [node.test, node.consequent, node.alternate].some((n) => mentionsRoot(n, name));
    case 'filter':
      return mentionsRoot(node.input, name) || node.args.some((n) => mentionsRoot(n, name));
  }
}
