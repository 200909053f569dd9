import { readFileSync, statSync } from 'node:fs';
import { isAbsolute, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { InvalidArgumentError } from 'commander';
import type { ExecutionOverride, SandboxOptions, Weft } from '@weft/sdk';
import { readServerSettings, sandboxSettingsFromEnv } from '@weft/server/settings';
import type { Io } from '../io.js';

/** Collects repeatable `--input key=value` flags; values that are JSON are parsed. */
export function collectInput(
  value: string,
  previous: Record<string, unknown>,
): Record<string, unknown> {
  const at = value.indexOf('=');
  if (at <= 0) throw new InvalidArgumentError('expected key=value');
  const key = value.slice(0, at);
  if (Object.hasOwn(previous, key)) throw new InvalidArgumentError(`input "${key}" is given twice`);
  const text = value.slice(at + 1);
  let parsed: unknown = text;
  try {
    parsed = JSON.parse(text);
  } catch {
    // not JSON: the string as written
  }
  const out = { ...previous };
  Object.defineProperty(out, key, {
    value: parsed,
    enumerable: true,
    writable: true,
    configurable: true,
  });
  return out;
}

/** Parses a JSON argument, or the JSON file named after `@` (at most 1 MiB). */
export function parseJsonArgument(value: string): unknown {
  let text = value;
  if (value.startsWith('@')) {
    const file = value.slice(1);
    try {
      if (statSync(file).size > 1024 * 1024)
        throw new InvalidArgumentError(`${file} is over 1 MiB`);
      text = readFileSync(file, 'utf8');
    } catch (error) {
      if (error instanceof InvalidArgumentError) throw error;
      throw new InvalidArgumentError(`cannot read ${file}: ${(error as Error).message}`);
    }
  }
  try {
    return JSON.parse(text) as unknown;
  } catch (error) {
    throw new InvalidArgumentError(`expected JSON: ${(error as Error).message}`);
  }
}

/** Collects a repeatable string flag. */
export function collectList(value: string, previous: string[]): string[] {
  return [...previous, value];
}

/** TypeScript files, which load through tsx (imported only when one is named). */
const TYPESCRIPT = /\.[cm]?ts$/;

/**
 * Imports each `--require` module and hands it the SDK client: its default export (or a
 * `register` export) is called with the {@link Weft} instance, and registers handlers on it.
 * A `.ts`, `.mts` or `.cts` file is compiled on the fly by tsx. A module that does not load or
 * whose registration throws is an {@link InvalidArgumentError} naming the file (no stack).
 */
export async function requireModules(weft: Weft, modules: string[]): Promise<void> {
  for (const module of modules) {
    const local = module.startsWith('.') || isAbsolute(module) || TYPESCRIPT.test(module);
    const url = local ? pathToFileURL(resolve(module)).href : module;
    let loaded: { default?: unknown; register?: unknown };
    try {
      loaded = (await importModule(url)) as typeof loaded;
    } catch (error) {
      throw new InvalidArgumentError(`cannot load handlers from ${module}: ${brief(error)}`);
    }
    const register = registrationOf(loaded);
    if (typeof register !== 'function') {
      throw new InvalidArgumentError(
        `${module} must export a default function (weft) => void that registers its handlers`,
      );
    }
    try {
      await (register as (w: Weft) => unknown)(weft);
    } catch (error) {
      throw new InvalidArgumentError(
        `the handlers of ${module} failed to register: ${brief(error)}`,
      );
    }
  }
}

/**
 * The function a module exports to register handlers: its default export, or `register`; a
 * CommonJS module (a `.ts` file outside a `"type": "module"` package) has them under `default`.
 */
function registrationOf(loaded: { default?: unknown; register?: unknown }): unknown {
  if (typeof loaded.default === 'function') return loaded.default;
  if (typeof loaded.register === 'function') return loaded.register;
  const inner = loaded.default as { default?: unknown; register?: unknown } | null | undefined;
  if (typeof inner === 'object' && inner !== null && !Array.isArray(inner))
    return typeof inner.default === 'function' ? inner.default : inner.register;
  return undefined;
}

async function importModule(url: string): Promise<unknown> {
  if (!TYPESCRIPT.test(new URL(url, 'file:///').pathname)) return import(url);
  const { tsImport } = await import('tsx/esm/api');
  return tsImport(url, import.meta.url);
}

/** An error's message without its stack (esbuild's name `file:line:col` of a syntax error). */
function brief(error: unknown): string {
  return error instanceof Error ? error.message.trim() : String(error);
}

/** Where `weft workflow run` runs the actions (docs/protocol.md#execution-modes). */
export type RunMode = 'local' | 'self_hosted' | 'cloud' | 'hybrid';

/** A place of `--execution`: `local`, `cloud` or `self_hosted` (the router of `--router`). */
type Place = Extract<ExecutionOverride, string>;
const PLACES: readonly Place[] = ['local', 'cloud', 'self_hosted'];

/** The flags that choose the mode and its server. */
export interface ModeFlags {
  mode?: RunMode;
  cloud?: boolean;
  router?: string;
  server?: string;
  apiKey?: string;
  async?: boolean;
  execution: Record<string, Place> | Place | undefined;
  plugins?: string;
  require: string[];
  dryRun?: boolean;
  payload?: unknown;
  event?: unknown;
}

/**
 * The mode the flags ask for, or a usage error: `--cloud` is `--mode cloud`, `--router` alone is
 * `--mode self_hosted` (with `--mode hybrid` it is the router of the steps placed `self_hosted`);
 * flags that do not apply to the mode are refused.
 */
export function resolveMode(flags: ModeFlags): RunMode | string {
  let mode: RunMode = flags.mode ?? 'local';
  if (flags.cloud) {
    if (flags.mode !== undefined && flags.mode !== 'cloud')
      return `--cloud and --mode ${flags.mode} exclude each other`;
    mode = 'cloud';
  }
  if (flags.router !== undefined) {
    if (flags.cloud) return '--router and --cloud exclude each other';
    if (flags.mode !== undefined && flags.mode !== 'self_hosted' && flags.mode !== 'hybrid')
      return `--router is for --mode self_hosted or hybrid, not ${mode}`;
    if (mode !== 'hybrid') mode = 'self_hosted';
  }
  if (mode === 'self_hosted' && flags.router === undefined)
    return '--mode self_hosted needs --router URL';
  if (mode === 'hybrid' && flags.router === undefined && placesSelfHosted(flags.execution))
    return '--execution self_hosted runs steps through the router: add --router URL';
  if (mode !== 'cloud' && flags.async) return '--async runs on the server: add --cloud';
  if (mode !== 'hybrid' && flags.execution !== undefined)
    return '--execution places steps in --mode hybrid only';
  if (mode !== 'cloud' && mode !== 'hybrid' && flags.server !== undefined)
    return '--server is for --cloud and --mode hybrid';
  if (mode === 'cloud' || mode === 'self_hosted') {
    const where = mode === 'cloud' ? 'the server' : 'the router';
    if (flags.plugins !== undefined || flags.require.length > 0)
      return `--${mode === 'cloud' ? 'cloud' : 'router'} runs every action on ${where}; --plugins and --require do not apply`;
  }
  if (mode === 'cloud') {
    if (flags.dryRun) return '--dry-run runs locally; it does not go with --cloud';
    if (flags.payload !== undefined || flags.event !== undefined)
      return '--payload and --event do not go with --cloud (the server starts API runs)';
  }
  return mode;
}

/**
 * What `cloud` and `hybrid` runs lack to reach the server, in the CLI's words (its flags and
 * variables, not the SDK's options), or undefined when nothing is missing.
 */
export function missingServerSetting(
  mode: RunMode,
  flags: Pick<ModeFlags, 'server' | 'apiKey'>,
): string | undefined {
  if (mode !== 'cloud' && mode !== 'hybrid') return undefined;
  const { cloudUrl, apiKey } = serverSettings(flags);
  const what = mode === 'cloud' ? '--cloud' : '--mode hybrid';
  if (cloudUrl === undefined)
    return `${what} needs the server's URL: give --server <url> (or set WORKFLOW_CLOUD_URL or WORKFLOW_REGISTRY_URL)`;
  if (apiKey === undefined)
    return `${what} needs an API key: set WORKFLOW_REGISTRY_API_KEY or give --api-key (weft auth create-key makes one)`;
  return undefined;
}

/** Whether an `--execution` value places any step `self_hosted`. */
function placesSelfHosted(execution: ModeFlags['execution']): boolean {
  if (execution === undefined) return false;
  if (typeof execution === 'string') return execution === 'self_hosted';
  return Object.values(execution).includes('self_hosted');
}

/**
 * Collects `--execution local|cloud|self_hosted` (every step) or repeatable
 * `--execution plugin=place` (by plugin slug) for hybrid runs.
 */
export function collectExecution(
  value: string,
  previous: ModeFlags['execution'],
): ModeFlags['execution'] {
  const place = (text: string): Place => {
    if ((PLACES as readonly string[]).includes(text)) return text as Place;
    throw new InvalidArgumentError(`expected local, cloud or self_hosted, got "${text}"`);
  };
  const at = value.indexOf('=');
  if (at < 0) {
    if (previous !== undefined) throw new InvalidArgumentError('give one place, or plugin=place');
    return place(value);
  }
  if (typeof previous === 'string')
    throw new InvalidArgumentError('give one place, or plugin=place');
  const plugin = value.slice(0, at);
  if (!/^[a-z0-9][a-z0-9_-]{0,63}$/.test(plugin))
    throw new InvalidArgumentError(`"${plugin}" is not a plugin slug`);
  return { ...previous, [plugin]: place(value.slice(at + 1)) };
}

/**
 * The server and key of `cloud` and `hybrid`: `--server`, else `WORKFLOW_CLOUD_URL`, else
 * `WORKFLOW_REGISTRY_URL`; `--api-key`, else `WORKFLOW_REGISTRY_API_KEY`.
 */
export function serverSettings(
  flags: Pick<ModeFlags, 'server' | 'apiKey'>,
  env: NodeJS.ProcessEnv = process.env,
): { cloudUrl?: string; apiKey?: string } {
  const pick = (...values: (string | undefined)[]) =>
    values.find((v) => v !== undefined && v !== '');
  const cloudUrl = pick(flags.server, env['WORKFLOW_CLOUD_URL'], env['WORKFLOW_REGISTRY_URL']);
  const apiKey = pick(flags.apiKey, env['WORKFLOW_REGISTRY_API_KEY']);
  return {
    ...(cloudUrl !== undefined ? { cloudUrl } : {}),
    ...(apiKey !== undefined ? { apiKey } : {}),
  };
}

/**
 * `WEFT_MAX_FOR_EACH_ITEMS`: the most items one `for_each` of a local run may iterate over
 * (default 100,000), read through the server's settings schema, which refuses anything but a
 * positive integer naming the variable.
 */
export function maxForEachItemsFromEnv(env: NodeJS.ProcessEnv = process.env): {
  maxForEachItems?: number;
} {
  const items = readServerSettings({
    WEFT_MAX_FOR_EACH_ITEMS: env['WEFT_MAX_FOR_EACH_ITEMS'],
  }).WEFT_MAX_FOR_EACH_ITEMS;
  return items === undefined ? {} : { maxForEachItems: items };
}

/**
 * The sandbox of the run's `shell` actions from `WEFT_SANDBOX`, `WEFT_CGROUP_PARENT` and
 * `WEFT_SCRATCH_DIR` (checked by the server's settings schema: a bad value is `VALIDATION`
 * naming the variable), with best effort's warnings printed on stderr.
 */
export function sandboxFromEnv(
  io: Io,
  env: NodeJS.ProcessEnv = process.env,
): { sandbox: SandboxOptions } {
  return {
    sandbox: {
      ...sandboxSettingsFromEnv(env),
      warn: (message) => io.err(`warning: ${message}\n`),
    },
  };
}

/**
 * Whether the OpenTelemetry variables ask for traces (an OTLP endpoint, not `OTEL_SDK_DISABLED`):
 * then local runs are traced, and their spans are sent before the command exits.
 */
export function tracingConfigured(env: NodeJS.ProcessEnv): boolean {
  if (env['OTEL_SDK_DISABLED']?.trim().toLowerCase() === 'true') return false;
  return Boolean(
    env['OTEL_EXPORTER_OTLP_ENDPOINT']?.trim() || env['OTEL_EXPORTER_OTLP_TRACES_ENDPOINT']?.trim(),
  );
}
