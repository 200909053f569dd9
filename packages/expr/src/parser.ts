import type { BinaryOperator, Node, Span } from './ast.js';
import { errorAt, type Site, type TemplateError } from './errors.js';
import { FILTER_SPECS, isFilterName } from './filters.js';
import {
  BINDING_POWER,
  CALL_MESSAGE,
  COMPARISONS,
  between,
  describe,
  end,
  infixPower,
  isOp,
} from './grammar.js';
import { checkStaticKey } from './keys.js';
import type { Token } from './lexer.js';
import { LIMITS } from './limits.js';
import { arityError, unknownFilterError, unknownNameError } from './parse-errors.js';
import { LITERAL_KEYWORDS, isRoot } from './roots.js';

/**
 * Parses the tokens of one `{{ }}` part (ending with its `close` token) into a syntax tree, by
 * precedence climbing (Pratt) over {@link BINDING_POWER}. Literal keys are checked here (never a
 * forbidden property, never a negative index), as are filter names and arities, nesting depth
 * ({@link LIMITS}.maxDepth) and node count ({@link LIMITS}.maxNodes).
 */
export function parseExpression(tokens: readonly Token[], source: string): Node {
  return new Parser(tokens, source).parse();
}

class Parser {
  private position = 0;
  private depth = 0;
  private nodes = 0;

  constructor(
    private readonly tokens: readonly Token[],
    private readonly source: string,
  ) {}

  parse(): Node {
    const node = this.expression(0);
    const next = this.peek();
    if (next.type === 'close') return node;
    if (isOp(next, '(')) throw this.fail(next, CALL_MESSAGE);
    throw this.fail(next, `expected an operator or \`}}\`, found ${describe(next)}`);
  }

  private expression(minPower: number): Node {
    if (++this.depth > LIMITS.maxDepth) {
      const message = `expression is nested deeper than ${LIMITS.maxDepth} levels (maxDepth)`;
      throw errorAt(this.site(this.peek()), 'limit', message);
    }
    let left = this.prefix();
    for (;;) {
      const token = this.peek();
      const power = infixPower(token);
      if (power <= minPower) break;
      this.position++;
      left = this.infix(left, token, power);
    }
    this.depth--;
    return left;
  }

  private prefix(): Node {
    const token = this.next();
    if (token.type === 'number' || token.type === 'string') {
      return this.node({ type: 'literal', value: token.value, ...spanOf(token) });
    }
    if (token.type === 'name') return this.name(token);
    if (isOp(token, '(')) {
      const inner = this.expression(0);
      this.expect(')', 'to close `(`');
      return inner;
    }
    if (isOp(token, '-')) {
      const operand = this.expression(BINDING_POWER.negate);
      if (operand.type === 'literal' && typeof operand.value === 'number') {
        const value = operand.value === 0 ? 0 : -operand.value;
        return { ...operand, value, ...between(token, operand) };
      }
      return this.node({ type: 'unary', operator: '-', operand, ...between(token, operand) });
    }
    if (isOp(token, '[')) throw this.fail(token, 'array literals are not supported');
    throw this.fail(token, `expected an expression, found ${describe(token)}`);
  }

  private name(token: Token): Node {
    const name = String(token.value);
    const literal = LITERAL_KEYWORDS.get(name);
    if (literal !== undefined)
      return this.node({ type: 'literal', value: literal, ...spanOf(token) });
    if (name === 'not') {
      const operand = this.expression(BINDING_POWER.not);
      return this.node({ type: 'unary', operator: 'not', operand, ...between(token, operand) });
    }
    if (name === 'and' || name === 'or') {
      throw this.fail(token, `expected an expression before \`${name}\``);
    }
    if (isOp(this.peek(), '(')) {
      const hint = isFilterName(name) ? `; write \`value | ${name}\`` : '';
      throw this.fail(token, `${CALL_MESSAGE}${hint}`);
    }
    if (isRoot(name)) return this.node({ type: 'root', name, ...spanOf(token) });
    const [before, beforeThat] = [this.tokens[this.position - 2], this.tokens[this.position - 3]];
    throw unknownNameError(this.site(token), name, before, beforeThat);
  }

  private infix(left: Node, token: Token, power: number): Node {
    const op = String(token.value);
    switch (op) {
      case '.':
      case '[':
        return this.member(left, token);
      case '(':
        throw this.fail(token, CALL_MESSAGE);
      case '|':
        return this.filter(left);
      case '?': {
        const consequent = this.expression(0);
        this.expect(':', 'after the `?` branch of a conditional');
        // Right-associative: the alternate may itself be a conditional.
        const alternate = this.expression(power - 1);
        const span = between(left, alternate);
        return this.node({ type: 'conditional', test: left, consequent, alternate, ...span });
      }
      case 'and':
      case 'or': {
        const right = this.expression(power);
        return this.node({ type: 'logical', operator: op, left, right, ...between(left, right) });
      }
    }
    const right = this.expression(power);
    const next = this.peek();
    if (COMPARISONS.has(op) && next.type === 'op' && COMPARISONS.has(String(next.value))) {
      throw this.fail(next, 'comparisons cannot be chained; combine them with `and`');
    }
    const operator = op as BinaryOperator;
    return this.node({ type: 'binary', operator, left, right, ...between(left, right) });
  }

  private member(object: Node, token: Token): Node {
    let key: Node;
    let close: Span;
    if (token.value === '.') {
      const name = this.next();
      if (name.type !== 'name') {
        const hint =
          name.type === 'number' ? `; write [${String(name.value)}] to index an array` : '';
        throw this.fail(name, `expected a name after \`.\`, found ${describe(name)}${hint}`);
      }
      key = this.node({ type: 'literal', value: name.value, ...spanOf(name) });
      close = name;
    } else {
      key = this.expression(0);
      close = this.expect(']', 'to close `[`');
    }
    if (key.type === 'literal') checkStaticKey(key, this.source);
    return this.node({ type: 'member', object, key, ...between(object, close) });
  }

  private filter(input: Node): Node {
    const nameToken = this.next();
    if (nameToken.type !== 'name') {
      throw this.fail(
        nameToken,
        `expected a filter name after \`|\`, found ${describe(nameToken)}`,
      );
    }
    const name = String(nameToken.value);
    if (!isFilterName(name)) throw unknownFilterError(this.site(nameToken), name);
    const args: Node[] = [];
    let close: Span = nameToken;
    if (isOp(this.peek(), '(')) {
      this.position++;
      if (!isOp(this.peek(), ')')) {
        args.push(this.expression(0));
        while (isOp(this.peek(), ',')) {
          this.position++;
          args.push(this.expression(0));
        }
      }
      close = this.expect(')', `to close the arguments of ${name}`);
    }
    const spec = FILTER_SPECS[name];
    if (args.length < spec.minArgs || args.length > spec.maxArgs) {
      const site = { field: name, ...between(nameToken, close) };
      throw arityError(site, name, spec, args.length);
    }
    const nameOffset = nameToken.offset;
    return this.node({ type: 'filter', name, input, args, nameOffset, ...between(input, close) });
  }

  private node<T extends Node>(node: T): T {
    if (++this.nodes > LIMITS.maxNodes) {
      const message = `expression has more than ${LIMITS.maxNodes} nodes (maxNodes)`;
      throw errorAt(this.site(this.peek()), 'limit', message);
    }
    return node;
  }

  private peek(): Token {
    return this.tokens[this.position] ?? this.tokens[this.tokens.length - 1]!;
  }

  private next(): Token {
    const token = this.peek();
    if (token.type !== 'close') this.position++;
    return token;
  }

  private expect(op: string, why: string): Token {
    const token = this.next();
    if (!isOp(token, op))
      throw this.fail(token, `expected \`${op}\` ${why}, found ${describe(token)}`);
    return token;
  }

  private site(token: Token): Site {
    const field = this.source.slice(token.offset, end(token));
    return { field, offset: token.offset, length: token.length };
  }

  private fail(token: Token, message: string): TemplateError {
    return errorAt(this.site(token), 'syntax', message);
  }
}

function spanOf(token: Token): Span {
  return { offset: token.offset, length: token.length };
}
