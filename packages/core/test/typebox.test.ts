import { readFileSync } from 'node:fs';
import { fileURLToPath, pathToFileURL } from 'node:url';
import * as Upstream from '@sinclair/typebox';
import { TypeCompiler as UpstreamCompiler } from '@sinclair/typebox/compiler';
import { Value as UpstreamValue } from '@sinclair/typebox/value';
import { describe, expect, it } from 'vitest';
import * as Source from '../typebox/source.js';

/**
 * The built `@weft/core/typebox` (what packages load outside tests: `npm run build` writes it),
 * imported by path, since tests resolve the package to `typebox/source.ts`.
 */
const bundlePath = fileURLToPath(new URL('../dist/typebox.js', import.meta.url));
const Bundle = (await import(pathToFileURL(bundlePath).href)) as typeof Source;

describe('@weft/core/typebox as built', () => {
  it('is one module that imports nothing', () => {
    const text = readFileSync(bundlePath, 'utf8');
    expect(text).not.toMatch(/^\s*import\s/m);
    expect(text).not.toMatch(/\bimport\(|\brequire\(/);
  });

  it('exports what typebox/source.ts exports', () => {
    expect(Object.keys(Bundle).sort()).toEqual(Object.keys(Source).sort());
  });

  it('is a copy of TypeBox apart from @sinclair/typebox', () => {
    // What makes the checks below worth making: two copies can meet (a plugin's schema, a test's).
    expect(Bundle.TypeCompiler).not.toBe(UpstreamCompiler);
    expect(Bundle.Kind).toBe(Upstream.Kind);
  });

  const Order = (T: typeof Upstream.Type) =>
    T.Object({ id: T.String({ minLength: 1 }), items: T.Array(T.Integer({ minimum: 1 })) });
  const good = { id: 'o-1', items: [1, 2] };
  const bad = { id: '', items: [0] };

  it('checks a schema built by @sinclair/typebox', () => {
    const schema = Order(Upstream.Type);
    expect(Bundle.TypeGuard.IsSchema(schema)).toBe(true);
    expect(Bundle.TypeCompiler.Compile(schema).Check(good)).toBe(true);
    expect(Bundle.TypeCompiler.Compile(schema).Check(bad)).toBe(false);
    expect(Bundle.Value.Check(schema, good)).toBe(true);
    expect([...Bundle.Value.Errors(schema, bad)].map((e) => e.path)).toEqual(['/id', '/items/0']);
  });

  it('builds schemas that @sinclair/typebox checks', () => {
    const schema = Order(Bundle.Type);
    expect(Upstream.TypeGuard.IsSchema(schema)).toBe(true);
    expect(UpstreamCompiler.Compile(schema).Check(good)).toBe(true);
    expect(UpstreamCompiler.Compile(schema).Check(bad)).toBe(false);
    expect(UpstreamValue.Check(schema, good)).toBe(true);
    expect(UpstreamValue.Check(schema, bad)).toBe(false);
    // Composing schemas of both copies keeps their kinds.
    const both = Bundle.Type.Composite([
      schema,
      Upstream.Type.Object({ note: Upstream.Type.String() }),
    ]);
    expect(UpstreamValue.Check(both, { ...good, note: 'x' })).toBe(true);
    expect(Bundle.Value.Check(both, good)).toBe(false);
  });
});
