import { describe, expect, it, vi } from 'vitest';
import { Parser } from 'yaml';
import { errors, load } from '../test-support/load.js';

describe('hostile workflow files', () => {
  it('refuses a file over the size limit before parsing it', () => {
    const result = load(`workflows: []\n# ${'x'.repeat(2000)}`, { maxFileSize: 1000 });
    expect(result.ok).toBe(false);
    expect(result.diagnostics[0]).toMatchObject({ code: 'too_large' });
    expect(result.diagnostics[0]!.message).toContain('over the limit of 1000 bytes');
  });

  it('applies a 1 MiB limit by default', () => {
    const result = load(`# ${'x'.repeat(1024 * 1024)}\nworkflows: []`);
    expect(result.diagnostics[0]?.code).toBe('too_large');
  });

  it('reports duplicate keys with their position', () => {
    const result = load('workflows:\n  - name: a\n    name: b\n    steps: []\n');
    expect(result.diagnostics[0]).toMatchObject({ code: 'duplicate_key', line: 3, column: 5 });
  });

  it('stops an alias bomb quickly with a clear error', () => {
    const levels = ['a: &a [lol, lol, lol, lol, lol, lol, lol, lol, lol]'];
    for (let i = 1; i < 9; i++) {
      const prev = String.fromCharCode(96 + i);
      const name = String.fromCharCode(97 + i);
      levels.push(`${name}: &${name} [${Array(9).fill(`*${prev}`).join(', ')}]`);
    }
    const started = Date.now();
    const result = load(`${levels.join('\n')}\nworkflows: *i\n`);
    expect(Date.now() - started).toBeLessThan(2000);
    expect(result.ok).toBe(false);
    expect(result.diagnostics.map((d) => d.code)).toContain('aliases');
  });

  it('refuses nesting deeper than the limit without overflowing the stack', () => {
    const depth = 100_000;
    const result = load(`workflows: ${'['.repeat(depth)}${']'.repeat(depth)}`);
    expect(result.ok).toBe(false);
    expect(result.diagnostics.length).toBeGreaterThan(0);
    const shallow = load(`workflows: ${'['.repeat(70)}${']'.repeat(70)}`);
    expect(shallow.diagnostics.map((d) => d.code)).toContain('too_deep');
  });

  it('refuses 10,000-deep block maps as too deep, naming the limit, not as a syntax error', () => {
    let text = 'workflows:\n';
    for (let i = 1; i <= 10_000; i++) text += `${' '.repeat(i)}x:\n`;
    const result = load(text, { maxFileSize: 64 * 1024 * 1024 });
    expect(result.ok).toBe(false);
    expect(result.diagnostics).toHaveLength(1);
    expect(result.diagnostics[0]).toMatchObject({ code: 'too_deep' });
    expect(result.diagnostics[0]!.message).toContain('limit of 64 levels');
  });

  it('refuses 10,000-deep compact lists (one line) and flow maps as too deep', () => {
    for (const deep of [
      `${'- '.repeat(10_000)}x`,
      `${'{a: '.repeat(10_000)}1${'}'.repeat(10_000)}`,
    ]) {
      const result = load(`workflows: []\nextra:\n  ${deep}\n`);
      expect(result.diagnostics.map((d) => d.code)).toEqual(['too_deep']);
    }
  });

  it('refuses custom tags', () => {
    const result = load('workflows:\n  - name: !!python/object:os.system x\n    steps: []\n');
    expect(result.diagnostics.map((d) => d.code)).toContain('tag');
    expect(errors(result).join('\n')).toContain('custom tag');
  });

  it('refuses __proto__ keys and never touches Object.prototype', () => {
    const result = load(
      'workflows:\n  - name: w\n    steps:\n      - name: s\n        type: transform\n        input:\n          __proto__: { polluted: yes }\n',
    );
    expect(result.ok).toBe(false);
    expect(result.diagnostics[0]).toMatchObject({ code: 'forbidden_key', line: 7, column: 11 });
    expect(({} as Record<string, unknown>)['polluted']).toBeUndefined();
  });

  it('keeps constructor and prototype as inert data in free-form maps', () => {
    const result = load(
      'workflows:\n  - name: w\n    steps:\n      - name: s\n        type: transform\n        input:\n          constructor: { prototype: 1 }\n',
    );
    expect(result.ok).toBe(true);
    const input = result.workflows[0]!.steps[0]!.input!;
    expect(Object.hasOwn(input, 'constructor')).toBe(true);
    expect(input['constructor']).toEqual({ prototype: 1 });
  });

  it('refuses invalid UTF-8', () => {
    const bytes = new Uint8Array([0x77, 0x3a, 0x20, 0xff, 0xfe, 0x0a]);
    const result = load(bytes);
    expect(result.diagnostics[0]?.code).toBe('encoding');
  });

  it('reports a syntax error with its line and column', () => {
    const result = load('workflows:\n  - name: "unclosed\n    steps: []\n');
    expect(result.ok).toBe(false);
    expect(result.diagnostics[0]).toMatchObject({ code: 'syntax', file: 'test.yaml' });
    expect(result.diagnostics[0]!.line).toBeGreaterThanOrEqual(2);
  });

  it('refuses a file of several YAML documents', () => {
    const result = load('workflows: []\n---\nworkflows: []\n');
    expect(result.ok).toBe(false);
  });

  it('parses the text once, for the depth check and the document alike', () => {
    const parse = vi.spyOn(Parser.prototype, 'parse');
    try {
      load('workflows: []\n');
      expect(parse).toHaveBeenCalledTimes(1);
    } finally {
      parse.mockRestore();
    }
  });
});
