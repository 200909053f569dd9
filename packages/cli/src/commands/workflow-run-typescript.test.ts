import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { run } from '../test-support.js';

const dir = mkdtempSync(join(tmpdir(), 'weft-ts-'));
const file = (name: string, text: string) => {
  writeFileSync(join(dir, name), text);
  return join(dir, name);
};
const flow = file(
  'calc.yaml',
  "workflows:\n  - name: calc\n    steps: [{ name: add, plugin: calc, action: add, input: { a: 2, b: 3 } }]\n    outputs: { sum: { value: '{{ steps.add.output.sum }}' } }\n",
);

describe('TypeScript --require modules', { timeout: 30_000 }, () => {
  it('loads a .ts file with type annotations', async () => {
    const handlers = file(
      'handlers.ts',
      "import type { Weft } from '@weft/sdk';\ninterface Pair { a: number; b: number }\n" +
        "export default (weft: Weft): void => {\n  weft.registerHandler<Pair>('calc.add', (input: Pair) => ({ sum: input.a + input.b }));\n};\n",
    );
    const result = await run('workflow', 'run', flow, '--require', handlers, '-o', 'json');
    expect(result.err).toBe('');
    expect(JSON.parse(result.out)).toMatchObject({ status: 'completed', outputs: { sum: 5 } });
  });

  it('loads .mts too, and says which file does not compile, without a stack trace', async () => {
    const good = file(
      'good.mts',
      "export default (weft: { registerHandler(k: string, f: (i: { a: number; b: number }) => unknown): void }) =>\n  weft.registerHandler('calc.add', (i) => ({ sum: i.a * i.b }));\n",
    );
    expect(
      JSON.parse((await run('workflow', 'run', flow, '--require', good, '-o', 'json')).out),
    ).toMatchObject({
      outputs: { sum: 6 },
    });
    const broken = file('broken.ts', 'export default (weft: Weft => {\n');
    const result = await run('workflow', 'run', flow, '--require', broken);
    expect(result.code).toBe(2);
    expect(result.err).toContain(`cannot load handlers from ${broken}`);
    expect(result.err).toMatch(/broken\.ts:1:\d+/);
    expect(result.err).not.toMatch(/\n\s+at /);
  });

  it('names the file whose registration throws', async () => {
    const throws = file(
      'throws.ts',
      "export default (): void => {\n  throw new Error('no database');\n};\n",
    );
    const result = await run('workflow', 'run', flow, '--require', throws);
    expect(result.code).toBe(2);
    expect(result.err).toBe(`weft: the handlers of ${throws} failed to register: no database\n`);
  });
});
