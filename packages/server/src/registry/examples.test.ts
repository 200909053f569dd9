import { readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { Value } from '@weft/core/typebox';
import { describe, expect, it } from 'vitest';
import { ConnectorDefinition } from '@weft/core';
import { parseDefinitionBytes, validateDefinition } from '@weft/registry';

const directory = fileURLToPath(new URL('../../../../examples/plugins/', import.meta.url));
const files = readdirSync(directory).filter((f) => f.endsWith('.yaml'));

describe('examples/plugins', () => {
  it('holds several plugins', () => {
    expect(files.length).toBeGreaterThanOrEqual(5);
  });

  it.each(files)('%s is a valid plugin definition and a valid connector definition', (file) => {
    const parsed = parseDefinitionBytes(readFileSync(`${directory}${file}`), 'yaml');
    expect(parsed.ok).toBe(true);
    if (!parsed.ok) return;
    const checked = validateDefinition(parsed.value);
    expect(checked.ok ? [] : checked.problems).toEqual([]);
    expect(
      [...Value.Errors(ConnectorDefinition, parsed.value)].map((e) => `${e.path}: ${e.message}`),
    ).toEqual([]);
    expect((parsed.value as { slug: string }).slug).toBe(file.replace(/\.yaml$/, ''));
  });
});
