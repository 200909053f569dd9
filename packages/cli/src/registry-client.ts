import { Option } from 'commander';
import { fromErrorObject, type WeftError } from '@weft/core';

/** Default registry address when neither --registry nor WORKFLOW_REGISTRY_URL is given. */
export const DEFAULT_REGISTRY = 'http://127.0.0.1:8080';

/** Flags of the commands that talk to a registry. */
export interface RegistryFlags {
  registry?: string;
  apiKey?: string;
}

/** `--registry <url>` (or WORKFLOW_REGISTRY_URL). */
export const registryOption = () =>
  new Option(
    '--registry <url>',
    `registry address (default: WORKFLOW_REGISTRY_URL or ${DEFAULT_REGISTRY})`,
  );

/** `--api-key <key>` (or WORKFLOW_REGISTRY_API_KEY, preferred: flags show in process lists). */
export const apiKeyOption = () =>
  new Option('--api-key <key>', 'API key (default: WORKFLOW_REGISTRY_API_KEY)');

/** An answer of the registry: status, headers and body bytes. */
export interface RegistryAnswer {
  status: number;
  headers: Headers;
  bytes: Uint8Array;
  /** The body as JSON (undefined when it is not JSON). */
  json: unknown;
}

/** A small HTTP client of the registry protocol (docs/registry.md#endpoints), on Node's fetch. */
export class RegistryClient {
  readonly baseUrl: string;
  private readonly apiKey: string | undefined;

  constructor(flags: RegistryFlags, env: NodeJS.ProcessEnv = process.env) {
    const base = flags.registry ?? env['WORKFLOW_REGISTRY_URL'] ?? DEFAULT_REGISTRY;
    this.baseUrl = base.replace(/\/+$/, '');
    this.apiKey = flags.apiKey ?? env['WORKFLOW_REGISTRY_API_KEY'] ?? undefined;
  }

  /** Whether a key is configured. */
  get hasKey(): boolean {
    return this.apiKey !== undefined && this.apiKey !== '';
  }

  /** Sends a request; `body` bytes go with `contentType`, objects as JSON. */
  async request(
    method: string,
    path: string,
    options: {
      body?: Uint8Array | object;
      contentType?: string;
      headers?: Record<string, string>;
    } = {},
  ): Promise<RegistryAnswer> {
    const headers: Record<string, string> = { accept: 'application/json', ...options.headers };
    if (this.hasKey) headers['authorization'] = `Bearer ${this.apiKey}`;
    let body: Uint8Array | string | undefined;
    if (options.body instanceof Uint8Array) {
      body = options.body;
      headers['content-type'] = options.contentType ?? 'application/json';
    } else if (options.body !== undefined) {
      body = JSON.stringify(options.body);
      headers['content-type'] = 'application/json';
    }
    let response: Response;
    try {
      response = await fetch(`${this.baseUrl}${path}`, {
        method,
        headers,
        ...(body !== undefined ? { body } : {}),
        signal: AbortSignal.timeout(30_000),
      });
    } catch (error) {
      throw new Error(
        `${method} ${path}: cannot reach the server at ${this.baseUrl} (${failureReason(error)})`,
      );
    }
    const bytes = new Uint8Array(await response.arrayBuffer());
    let json: unknown;
    if ((response.headers.get('content-type') ?? '').includes('json')) {
      try {
        json = JSON.parse(new TextDecoder().decode(bytes));
      } catch {
        json = undefined;
      }
    }
    return { status: response.status, headers: response.headers, bytes, json };
  }

  /** Like {@link request}, but an error status throws the registry's error as a WeftError. */
  async expectOk(...args: Parameters<RegistryClient['request']>): Promise<RegistryAnswer> {
    const answer = await this.request(...args);
    if (answer.status >= 400)
      throw fromErrorObject(answer.json ?? { message: `HTTP ${answer.status}` });
    return answer;
  }
}

/** Splits `slug@version` (version optional). */
export function parseSpecifier(text: string): { slug: string; version: string | undefined } {
  const at = text.lastIndexOf('@');
  return at > 0
    ? { slug: text.slice(0, at), version: text.slice(at + 1) }
    : { slug: text, version: undefined };
}

/** One line (or several, with the problem list) describing a registry error. */
export function describeError(error: WeftError): string {
  const lines = [`error: ${error.message} [${error.code}]`];
  const problems = (error.details as { problems?: { field: string; message: string }[] }).problems;
  for (const p of problems ?? []) lines.push(`  ${p.field || '(document)'}: ${p.message}`);
  const unmet = (error.details as { unmet?: string[] }).unmet;
  if (unmet) lines.push(`  unmet: ${unmet.join(', ')}`);
  return `${lines.join('\n')}\n`;
}

/** Why a fetch failed, as its system error code when there is one (`ECONNREFUSED`). */
function failureReason(error: unknown): string {
  if (error instanceof Error && error.name === 'TimeoutError') return 'no answer in 30 s';
  const cause = (
    error as { cause?: { code?: string; message?: string; errors?: { code?: string }[] } }
  ).cause;
  return cause?.code ?? cause?.errors?.[0]?.code ?? cause?.message ?? (error as Error).message;
}
