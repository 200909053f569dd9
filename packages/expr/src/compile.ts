import { assertNever } from '@weft/core';
import type { Evaluate } from './access.js';
import type { FilterNode, Node } from './ast.js';
import { compilePath } from './compile-path.js';
import type { Site } from './errors.js';
import { checkRoundDigits, json, length, lower, round, title, upper } from './filters.js';
import { BINARY, negate } from './operators.js';
import { isTruthy } from './values.js';

/**
 * Compiles an expression tree to a closure tree: no `eval`, `new Function` or `vm`. Each node
 * becomes one closure that captures its children and its error site, so evaluating allocates
 * nothing but the values it produces.
 */
export function compileExpression(node: Node, source: string): Evaluate {
  return new Compiler(source).compile(node);
}

class Compiler {
  constructor(private readonly source: string) {}

  compile = (node: Node): Evaluate => {
    switch (node.type) {
      case 'literal': {
        const value = node.value;
        return () => value;
      }
      case 'root':
      case 'member':
        return compilePath(node, this.source, this.compile, false);
      case 'unary': {
        const operand = this.compile(node.operand);
        if (node.operator === 'not') return (scope) => !isTruthy(operand(scope));
        const site = this.site(node);
        return (scope) => negate(operand(scope), site);
      }
      case 'binary': {
        const left = this.compile(node.left);
        const right = this.compile(node.right);
        const apply = BINARY[node.operator];
        const site = this.site(node);
        return (scope) => apply(left(scope), right(scope), site);
      }
      case 'logical': {
        const left = this.compile(node.left);
        const right = this.compile(node.right);
        if (node.operator === 'and') {
          return (scope) => {
            const value = left(scope);
            return isTruthy(value) ? right(scope) : value;
          };
        }
        return (scope) => {
          const value = left(scope);
          return isTruthy(value) ? value : right(scope);
        };
      }
      case 'conditional': {
        const test = this.compile(node.test);
        const consequent = this.compile(node.consequent);
        const alternate = this.compile(node.alternate);
        return (scope) => (isTruthy(test(scope)) ? consequent(scope) : alternate(scope));
      }
      case 'filter':
        return this.filter(node);
      default:
        return assertNever(node, 'expression node');
    }
  };

  private filter(node: FilterNode): Evaluate {
    const site = this.site(node);
    if (node.name === 'default') {
      const operand = node.input;
      const input =
        operand.type === 'root' || operand.type === 'member'
          ? compilePath(operand, this.source, this.compile, true)
          : this.compile(operand);
      const fallback = this.compile(node.args[0]!);
      return (scope) => {
        const value = input(scope);
        return value === undefined || value === null ? fallback(scope) : value;
      };
    }
    const input = this.compile(node.input);
    switch (node.name) {
      case 'upper':
        return (scope) => upper(input(scope), site);
      case 'lower':
        return (scope) => lower(input(scope), site);
      case 'title':
        return (scope) => title(input(scope), site);
      case 'length':
        return (scope) => length(input(scope), site);
      case 'json':
        return (scope) => json(input(scope), site);
      case 'round':
        return this.round(node, input, site);
      default:
        return assertNever(node.name, 'filter');
    }
  }

  private round(node: FilterNode, input: Evaluate, site: Site): Evaluate {
    const argument = node.args[0];
    if (argument === undefined) return (scope) => round(input(scope), 0, site);
    const argumentSite = this.site(argument);
    if (argument.type === 'literal') {
      const digits = checkRoundDigits(argument.value, argumentSite, true);
      return (scope) => round(input(scope), digits, site);
    }
    const evaluateDigits = this.compile(argument);
    return (scope) => {
      const value = input(scope);
      return round(value, checkRoundDigits(evaluateDigits(scope), argumentSite), site);
    };
  }

  private site(node: Node): Site {
    const field = this.source.slice(node.offset, node.offset + node.length);
    return { field, offset: node.offset, length: node.length };
  }
}
