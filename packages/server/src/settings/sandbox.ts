import type { SandboxOptions } from '@weft/sdk';
import { readServerSettings } from './read.js';

/** The sandbox's settings: what {@link sandboxSettingsFromEnv} reads. */
export type SandboxSettings = Pick<SandboxOptions, 'mode' | 'cgroupParent' | 'scratchRoot'>;

/**
 * The connector sandbox's options from `WEFT_SANDBOX`, `WEFT_CGROUP_PARENT` and
 * `WEFT_SCRATCH_DIR`, checked by the settings schema (a bad value is `VALIDATION` naming the
 * variable). Unset variables are left out: the sandbox's defaults apply. `weft server`,
 * `weft workflow run` and `weft sandbox check` read them alike.
 */
export function sandboxSettingsFromEnv(
  env: Readonly<Record<string, string | undefined>>,
): SandboxSettings {
  const s = readServerSettings({
    WEFT_SANDBOX: env['WEFT_SANDBOX'],
    WEFT_CGROUP_PARENT: env['WEFT_CGROUP_PARENT'],
    WEFT_SCRATCH_DIR: env['WEFT_SCRATCH_DIR'],
  });
  return {
    ...(s.WEFT_SANDBOX !== undefined ? { mode: s.WEFT_SANDBOX } : {}),
    ...(s.WEFT_CGROUP_PARENT !== undefined ? { cgroupParent: s.WEFT_CGROUP_PARENT } : {}),
    ...(s.WEFT_SCRATCH_DIR !== undefined ? { scratchRoot: s.WEFT_SCRATCH_DIR } : {}),
  };
}
