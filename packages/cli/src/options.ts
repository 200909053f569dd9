import { InvalidArgumentError, Option } from 'commander';
import { DEFAULT_MAX_FILE_SIZE, parseBytes } from '@weft/engine';

/** Parses `--max-file-size`: bytes, or a size with a unit such as `2MiB`. */
export function parseSize(value: string): number {
  const bytes = /^[0-9]+$/.test(value) ? Number(value) : parseBytes(value);
  if (bytes === undefined || !Number.isSafeInteger(Math.floor(bytes)) || bytes < 1) {
    throw new InvalidArgumentError(
      'expected a size in bytes, or with a unit such as 512KiB or 2MB',
    );
  }
  return Math.floor(bytes);
}

/** `--max-file-size <size>`, shared by the commands that read workflow files. */
export const maxFileSizeOption = () =>
  new Option('--max-file-size <size>', 'largest workflow file accepted (bytes, or 512KiB, 2MB)')
    .argParser(parseSize)
    .default(DEFAULT_MAX_FILE_SIZE, '1MiB');

/** `--output <format>`: text for people, json for programs. */
export const outputOption = () =>
  new Option('-o, --output <format>', 'output format').choices(['text', 'json']).default('text');

/** `--workflow <name>`: select one workflow of the file. */
export const workflowOption = () =>
  new Option('-w, --workflow <name>', 'only the workflow of this name');
