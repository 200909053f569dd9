import { readFile } from 'node:fs/promises';
import type { Command } from 'commander';
import { parseDefinitionBytes, verifyDefinitionSignature } from '@weft/registry/definitions';
import type { PluginDefinition } from '@weft/core';
import * as keyring from '../keyring.js';
import { EXIT } from '../exit-codes.js';
import type { Io } from '../io.js';
import { guard } from '../command-errors.js';
import { fetchVerified } from '../fetch-definition.js';
import {
  apiKeyOption,
  parseSpecifier,
  RegistryClient,
  registryOption,
  type RegistryFlags,
} from '../registry-client.js';

interface VerifyFlags extends RegistryFlags {
  checkSignature?: boolean;
  keyring?: string;
}

/** `weft plugin verify <slug>@<version> [--check-signature] [--keyring FILE]`. */
export function registerPluginVerify(
  parent: Command,
  io: Io,
  setExit: (code: number) => void,
): void {
  parent
    .command('verify')
    .description(
      'download a version, check its SHA-256 against the registry checksum, and optionally its GPG signature',
    )
    .argument('<plugin>', 'slug@version (or slug for the latest)')
    .addOption(registryOption())
    .addOption(apiKeyOption())
    .option('--check-signature', 'also verify the signature block (fails when there is none)')
    .option(
      '--keyring <file>',
      'armored public keys to trust (default: the owner keys the registry holds)',
    )
    .action(async (specifier: string, flags: VerifyFlags) =>
      guard(io, setExit, async () => {
        const { slug, version } = parseSpecifier(specifier);
        const client = new RegistryClient(flags);
        const fetched = await fetchVerified(client, slug, version);
        if (!fetched.ok) {
          io.err(`FAIL ${fetched.message}\n`);
          return EXIT.failure;
        }
        const { detail } = fetched;
        io.out(`${slug}@${detail.version}\n`);
        for (const check of fetched.checks) io.out(`  ok ${check}\n`);
        if (!flags.checkSignature) return EXIT.ok;
        const format = fetched.contentType.includes('json') ? 'json' : 'yaml';
        const parsed = parseDefinitionBytes(fetched.bytes, format);
        const definition = (parsed.ok ? parsed.value : {}) as PluginDefinition;
        if (!definition.signature) {
          io.err(`FAIL ${slug}@${detail.version} is not signed\n`);
          return EXIT.failure;
        }
        const keys = flags.keyring
          ? await keyring.fromArmored(await readFile(flags.keyring, 'utf8'))
          : await keyring.fromRegistry(client, detail.owner);
        const source = flags.keyring
          ? `keyring ${flags.keyring}`
          : `keys of ${detail.owner} on the registry`;
        const check = await verifyDefinitionSignature(definition, keys);
        if (!check.ok) {
          io.err(`FAIL signature: ${check.message} (checked against ${source})\n`);
          return EXIT.failure;
        }
        io.out(
          `  ok signature by key ${check.keyId} (fingerprint ${check.fingerprint}, from ${source})\n`,
        );
        return EXIT.ok;
      }),
    );
}
