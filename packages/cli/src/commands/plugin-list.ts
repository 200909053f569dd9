import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Command } from 'commander';
import { checksumOf, parseDefinitionBytes } from '@weft/registry/definitions';
import { EXIT } from '../exit-codes.js';
import type { Io } from '../io.js';
import { outputOption } from '../options.js';
import { formatOf } from '../plugin-file.js';
import { definitionFiles, pluginsDir, readManifest } from '../plugins-dir.js';
import { formatTable } from '../table.js';

/** One row of `weft plugin list`. */
interface Row {
  slug: string;
  version: string;
  source: string;
  file: string;
}

/** `weft plugin list`: plugins in ./plugins with their version and source (registry or local). */
export function registerPluginList(parent: Command, io: Io, setExit: (code: number) => void): void {
  parent
    .command('list')
    .description(
      'list the plugins in ./plugins: slug, version, and the registry they came from or local',
    )
    .option('--plugins-dir <dir>', 'directory to list', './plugins')
    .addOption(outputOption())
    .action(async (flags: { output: string; pluginsDir: string }) => {
      const dir = pluginsDir(flags.pluginsDir);
      const manifest = await readManifest(dir);
      const rows: Row[] = [];
      for (const name of await definitionFiles(dir)) {
        const bytes = await readFile(join(dir, name));
        const parsed = parseDefinitionBytes(bytes, formatOf(name));
        const data = (parsed.ok ? parsed.value : {}) as Record<string, unknown>;
        const connector = (data['connector'] ?? {}) as Record<string, unknown>;
        const slug = String(data['slug'] ?? connector['name'] ?? name.replace(/\.[^.]+$/, ''));
        const version = String(data['version'] ?? connector['version'] ?? '?');
        const entry = manifest[slug];
        // A file edited after install no longer is what the registry served: it is local.
        const fromRegistry = entry !== undefined && entry.checksum === checksumOf(bytes);
        rows.push({
          slug,
          version,
          source: fromRegistry ? entry.registry : 'local',
          file: join(flags.pluginsDir, name),
        });
      }
      if (flags.output === 'json') io.out(`${JSON.stringify(rows, null, 2)}\n`);
      else if (rows.length === 0) io.err(`no plugins in ${dir}\n`);
      else
        io.out(
          formatTable(
            ['SLUG', 'VERSION', 'SOURCE', 'FILE'],
            rows.map((r) => [r.slug, r.version, r.source, r.file]),
          ),
        );
      setExit(EXIT.ok);
    });
}
