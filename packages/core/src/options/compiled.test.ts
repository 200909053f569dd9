import { describe, expectTypeOf, it } from 'vitest';
import type { CompiledOptions } from './compiled.js';

interface Options {
  store: { name: string };
  port?: number | undefined;
  host?: string | undefined;
  tls?: { cert: string } | undefined;
}
type Defaults = { port: number };

describe('CompiledOptions', () => {
  it('makes defaulted fields required, keeps the others as given and takes reshaped ones', () => {
    type Compiled = CompiledOptions<Options, Defaults, { tls: string | undefined }>;
    expectTypeOf<Compiled>().toEqualTypeOf<{
      store: { name: string };
      port: number;
      host: string | undefined;
      tls: string | undefined;
    }>();
  });
});
