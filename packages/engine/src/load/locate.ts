import {
  isAlias,
  isMap,
  isScalar,
  isSeq,
  type Document,
  type LineCounter,
  type Node,
  type Scalar,
} from 'yaml';
import type { Path } from '../diagnostics.js';

/** A 1-based line and column. */
export interface Position {
  line: number;
  column: number;
}

/** Maps paths (and offsets inside string values) of a parsed file back to line and column. */
export class Locator {
  constructor(
    private readonly doc: Document | undefined,
    private readonly lines: LineCounter,
    private readonly source: string,
  ) {}

  /** Position of a byte offset into the source. */
  atOffset(offset: number): Position {
    const { line, col } = this.lines.linePos(offset);
    return { line, column: col };
  }

  /**
   * Position of the value at `path`, or of its key when `key` is set. When the path does not
   * exist (a missing required key), the deepest node that exists is used.
   */
  at(path: Path, options: { key?: boolean; offsetInValue?: number } = {}): Position | undefined {
    const found = this.find(path);
    if (!found) return undefined;
    const { node, key } = found;
    const target = options.key && key ? key : node;
    const range = target.range;
    if (!range) return undefined;
    let offset = range[0];
    if (options.offsetInValue !== undefined && found.exact && isScalar(node)) {
      offset = this.offsetInScalar(node, options.offsetInValue) ?? offset;
    }
    return this.atOffset(offset);
  }

  /** Source offset of character `index` of a string scalar, when its source spells it verbatim. */
  private offsetInScalar(node: Scalar, index: number): number | undefined {
    if (typeof node.value !== 'string' || !node.range) return undefined;
    const quoted = node.type === 'QUOTE_DOUBLE' || node.type === 'QUOTE_SINGLE' ? 1 : 0;
    const start = node.range[0] + quoted;
    if (this.source.slice(start, start + node.value.length) !== node.value) return undefined;
    return start + index;
  }

  private find(path: Path): { node: Node; key?: Node; exact: boolean } | undefined {
    let node: unknown = this.doc?.contents;
    let key: Node | undefined;
    for (const segment of path) {
      if (isAlias(node) && this.doc) node = node.resolve(this.doc);
      if (isMap(node)) {
        const pair = node.items.find(
          (p) => isScalar(p.key) && String(p.key.value) === String(segment),
        );
        if (!pair || !pair.value) return this.partial(node, pair?.key as Node | undefined);
        key = pair.key as Node;
        node = pair.value;
      } else if (isSeq(node) && typeof segment === 'number') {
        const item = node.items[segment];
        if (!item) return this.partial(node, undefined);
        key = undefined;
        node = item;
      } else {
        return this.partial(node, key);
      }
    }
    if (isAlias(node) && this.doc) node = node.resolve(this.doc) ?? node;
    return node ? { node: node as Node, ...(key ? { key } : {}), exact: true } : undefined;
  }

  private partial(node: unknown, key: Node | undefined) {
    if (!node) return undefined;
    return { node: node as Node, ...(key ? { key } : {}), exact: false };
  }
}
