import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { renderWorkflowJsonSchema } from '@weft/core';
import { describe, expect, it } from 'vitest';
import { findProjectConfig, readProjectConfig, workflowFile } from './project-config.js';

function project(config: string): string {
  const dir = mkdtempSync(join(tmpdir(), 'weft-config-'));
  writeFileSync(join(dir, 'weft.config.yaml'), config);
  return dir;
}

describe('weft.config.yaml', () => {
  it('is found from a subdirectory, its paths taken from its own directory', () => {
    const dir = project(
      'plugins: plugins\nagents: ./agents\nworkflows: flows\nrequire: [handlers.ts, some-package]\n',
    );
    mkdirSync(join(dir, 'flows', 'deep'), { recursive: true });
    writeFileSync(join(dir, 'flows', 'hello.yaml'), 'workflows: []\n');
    const config = findProjectConfig(join(dir, 'flows', 'deep'));
    expect(config).toEqual({
      file: join(dir, 'weft.config.yaml'),
      plugins: join(dir, 'plugins'),
      agents: join(dir, 'agents'),
      workflows: join(dir, 'flows'),
      require: [join(dir, 'handlers.ts'), 'some-package'],
    });
    expect(workflowFile('hello', config)).toBe(join(dir, 'flows', 'hello.yaml'));
    expect(workflowFile('missing.yaml', config)).toBe('missing.yaml');
  });

  it('refuses an unknown key with file:line:col and the keys allowed', () => {
    const dir = project('plugins: plugins\n# a comment\nplugin: other\n');
    expect(() => readProjectConfig(join(dir, 'weft.config.yaml'))).toThrow(
      `${join(dir, 'weft.config.yaml')}:3:1: unknown key "plugin"; allowed: plugins, agents, workflows, require`,
    );
  });

  it('refuses a bad value with its line and the constraint', () => {
    const file = join(project('agents: agents\nrequire:\n  - 42\n'), 'weft.config.yaml');
    expect(() => readProjectConfig(file)).toThrow(
      `${file}:3:3: require must be a list of module paths (strings)`,
    );
    const dir = join(project('plugins: [a, b]\n'), 'weft.config.yaml');
    expect(() => readProjectConfig(dir)).toThrow(
      `${dir}:1:10: plugins must be a directory path (a string)`,
    );
    const dup = join(project('plugins: a\nplugins: b\n'), 'weft.config.yaml');
    expect(() => readProjectConfig(dup)).toThrow(/weft\.config\.yaml:2:1: .*unique/i);
  });

  it('@weft/cli ships the current workflow JSON Schema (run `npm run schema` when this fails)', () => {
    const shipped = new URL('../schemas/workflow.schema.json', import.meta.url);
    expect(readFileSync(shipped, 'utf8')).toBe(renderWorkflowJsonSchema());
  });
});
