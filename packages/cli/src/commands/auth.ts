import { readFile } from 'node:fs/promises';
import type { Command } from 'commander';
import type { CreatedKey, RevokedKey, SigningKeyInfo } from '@weft/core';
import { createLocalKey, revokeLocalKey } from '../local-keys.js';
import { EXIT } from '../exit-codes.js';
import type { Io } from '../io.js';
import { guard } from '../command-errors.js';
import { outputOption } from '../options.js';
import { collectList } from './run-support.js';
import {
  apiKeyOption,
  RegistryClient,
  registryOption,
  type RegistryFlags,
} from '../registry-client.js';

interface CreateKeyFlags extends RegistryFlags {
  name: string;
  owner?: string;
  admin?: boolean;
  role: string[];
  permission: string[];
  dataDir: string;
  databaseUrl?: string;
  output: string;
}

/** `weft auth create-key`, `weft auth revoke-key` and `weft auth add-signing-key`. */
export function registerAuth(parent: Command, io: Io, setExit: (code: number) => void): void {
  parent
    .command('create-key')
    .description(
      'create an API key in the local store (or, with --registry, on a server with an admin key); printed once',
    )
    .requiredOption('--name <label>', 'label of the key')
    .option(
      '--owner <org>',
      'organisation or user owning what the key publishes (default: from the name)',
    )
    .option('--admin', 'the key may create other keys over HTTP')
    .option(
      '--role <role>',
      'a role the key grants (for machines; WEFT_ACCESS_FILE may map it to permissions); repeatable',
      collectList,
      [],
    )
    .option(
      '--permission <resource:verb>',
      'a permission the key grants, e.g. payments:write; repeatable',
      collectList,
      [],
    )
    .option('--data-dir <dir>', 'data directory of the local store', './.weft')
    .option(
      '--database-url <url>',
      'PostgreSQL store instead of the data directory (default: DATABASE_URL)',
    )
    .addOption(registryOption())
    .addOption(apiKeyOption())
    .addOption(outputOption())
    .action(async (flags: CreateKeyFlags) =>
      guard(io, setExit, async () => {
        if (flags.name.trim() === '') {
          io.err('error: --name is empty or blank: give the key a name (is the variable unset?)\n');
          return EXIT.invalid;
        }
        const request = {
          name: flags.name,
          ...(flags.owner ? { owner: flags.owner } : {}),
          ...(flags.admin ? { admin: true } : {}),
          ...(flags.role.length > 0 ? { roles: flags.role } : {}),
          ...(flags.permission.length > 0 ? { permissions: flags.permission } : {}),
        };
        let created: CreatedKey;
        if (flags.registry) {
          const answer = await new RegistryClient(flags).expectOk('POST', '/auth/keys', {
            body: request,
          });
          created = answer.json as CreatedKey;
        } else {
          const databaseUrl = flags.databaseUrl ?? process.env['DATABASE_URL'];
          created = await createLocalKey(
            { dataDir: flags.dataDir, ...(databaseUrl ? { databaseUrl } : {}) },
            request,
          );
        }
        if (flags.output === 'json') {
          const { name, owner, key, roles, permissions, created_at } = created;
          io.out(
            `${JSON.stringify({ name, owner, key, roles: roles ?? [], permissions: permissions ?? [], created_at })}\n`,
          );
        } else {
          io.err(
            `created key "${created.name}" for owner ${created.owner}${grantsText(created)}; it is shown once, keep it safe:\n`,
          );
          io.out(`${created.key}\n`);
        }
        return EXIT.ok;
      }),
    );

  parent
    .command('revoke-key')
    .description(
      'revoke an API key in the local store (or, with --registry, on a server with an admin key); every server refuses it within 0.5 s',
    )
    .argument('<id>', 'the key id (the 12 hex digits after weft_), or the key itself')
    .option('--data-dir <dir>', 'data directory of the local store', './.weft')
    .option(
      '--database-url <url>',
      'PostgreSQL store instead of the data directory (default: DATABASE_URL)',
    )
    .addOption(registryOption())
    .addOption(apiKeyOption())
    .addOption(outputOption())
    .action(async (given: string, flags: Omit<CreateKeyFlags, 'name' | 'role' | 'permission'>) =>
      guard(io, setExit, async () => {
        // A whole key names its id; the secret is never sent.
        const id = /^weft_([a-f0-9]{12})_/.exec(given)?.[1] ?? given;
        let revoked: RevokedKey;
        if (flags.registry) {
          const answer = await new RegistryClient(flags).expectOk(
            'DELETE',
            `/auth/keys/${encodeURIComponent(id)}`,
          );
          revoked = answer.json as RevokedKey;
        } else {
          const databaseUrl = flags.databaseUrl ?? process.env['DATABASE_URL'];
          revoked = await revokeLocalKey(
            { dataDir: flags.dataDir, ...(databaseUrl ? { databaseUrl } : {}) },
            id,
          );
        }
        if (flags.output === 'json') io.out(`${JSON.stringify(revoked)}\n`);
        else {
          io.out(
            `revoked key ${revoked.id} ("${revoked.name}", owner ${revoked.owner}) at ${revoked.revoked_at}\n`,
          );
        }
        return EXIT.ok;
      }),
    );

  parent
    .command('add-signing-key')
    .description("upload an armored OpenPGP public key for the key owner's signed publishes")
    .argument('<file>', 'armored public key (gpg --armor --export <id>)')
    .addOption(registryOption())
    .addOption(apiKeyOption())
    .action(async (file: string, flags: RegistryFlags) =>
      guard(io, setExit, async () => {
        const armored = await readFile(file, 'utf8');
        const answer = await new RegistryClient(flags).expectOk('POST', '/keys', {
          body: { armored_key: armored },
        });
        const key = answer.json as SigningKeyInfo;
        io.out(
          `${answer.status === 201 ? 'added' : 'already known'}: key ${key.key_id} (${key.fingerprint}) for ${key.owner}\n`,
        );
        return EXIT.ok;
      }),
    );
}

/** ` with roles a, b and permissions x:y` (nothing when the key grants none). */
function grantsText(created: CreatedKey): string {
  const parts = [
    created.roles?.length ? `roles ${created.roles.join(', ')}` : '',
    created.permissions?.length ? `permissions ${created.permissions.join(', ')}` : '',
  ].filter((part) => part !== '');
  return parts.length === 0 ? '' : ` with ${parts.join(' and ')}`;
}
