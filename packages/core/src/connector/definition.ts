import { Type, type Static } from '@weft/core/typebox';
import { SemverString, TemplateString, Text } from '../workflow/common.js';
import { ConnectorRuntime } from '../workflow/runtime.js';
import { ACTION_PATTERN, SLUG_PATTERN } from '../workflow/steps.js';

/** How a connector's actions run (packages/sdk/CONNECTORS.md#kinds): in process, as a command, over HTTP. */
export const CONNECTOR_KINDS = ['function', 'shell', 'http'] as const;
/** One of {@link CONNECTOR_KINDS}. */
export type ConnectorKind = (typeof CONNECTOR_KINDS)[number];

/** Shape of connector namespaces (the `<namespace>` of `connector:<namespace>/<name>@<version>`). */
export const NAMESPACE_PATTERN = '^[a-z0-9][a-z0-9_-]{0,63}$';

/** Connector limits (docs/protocol.md#limits) that the SDK enforces itself. */
export const CONNECTOR_DEFAULTS = {
  /** Default `timeout`, in seconds. */
  timeoutSeconds: 120,
  /** Largest `timeout`, in seconds. */
  maxTimeoutSeconds: 600,
  /** Default cap of in-flight calls per connector. */
  concurrency: 10,
  /** Largest cap of in-flight calls per connector. */
  maxConcurrency: 100,
  /**
   * Default `runtime.network.bandwidth` of an `http` call, in bytes per second: 10MB/s, counted
   * as `parseByteRate` counts it (1 MB = 10^6 bytes).
   */
  bandwidthBytesPerSecond: 10_000_000,
  /** Largest `runtime.network.bandwidth`, in bytes per second: 100MB/s (10^8). */
  maxBandwidthBytesPerSecond: 100_000_000,
} as const;

const Seconds = (description: string) =>
  Type.Integer({ minimum: 1, maximum: CONNECTOR_DEFAULTS.maxTimeoutSeconds, description });

const StringMap = (description: string) =>
  Type.Record(Type.String(), TemplateString('A value'), { description });

const JsonSchemaObject = (description: string) =>
  Type.Record(Type.String(), Type.Unknown(), {
    description,
    'x-expected': 'a JSON Schema (an object)',
  });

/** A declarative HTTP request of an `http` action; string values are `{{ }}` templates. */
export const HttpRequest = Type.Object(
  {
    method: Type.Optional(
      Type.Union(
        ['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'HEAD'].map((m) => Type.Literal(m)),
        { description: 'HTTP method (default GET, or POST when there is a body)' },
      ),
    ),
    url: TemplateString('Absolute URL, or a path under connector.base_url'),
    headers: Type.Optional(StringMap('Request headers')),
    query: Type.Optional(StringMap('Query parameters, URL-encoded')),
    body: Type.Optional(Type.Unknown({ description: 'JSON body; string leaves are templates' })),
  },
  { additionalProperties: false, description: 'Declarative HTTP request of an action' },
);
/** See {@link HttpRequest}. */
export type HttpRequest = Static<typeof HttpRequest>;

/** One action of a connector (packages/sdk/CONNECTORS.md#definitions). */
export const ConnectorAction = Type.Object(
  {
    name: Type.String({
      pattern: ACTION_PATTERN,
      description: 'Action name, called as <plugin>.<action>',
      'x-expected': 'an action name: a letter or _, then letters, digits, _ or -',
    }),
    description: Type.Optional(Text('What the action does')),
    input_schema: Type.Optional(JsonSchemaObject('JSON Schema of the action input')),
    output_schema: Type.Optional(JsonSchemaObject('JSON Schema of the action output')),
    timeout: Type.Optional(Seconds('Seconds per attempt (overrides connector.timeout)')),
    command: Type.Optional(
      Type.Array(TemplateString('An argument'), {
        minItems: 1,
        maxItems: 1000,
        description: 'shell kind: argv, each item a template on the input; never run by a shell',
      }),
    ),
    env: Type.Optional(StringMap('shell kind: extra environment variables of the command')),
    request: Type.Optional(HttpRequest),
  },
  { additionalProperties: false, description: 'A connector action' },
);
/** See {@link ConnectorAction}. */
export type ConnectorAction = Static<typeof ConnectorAction>;

/** The `connector` block (packages/sdk/CONNECTORS.md#definitions). */
export const ConnectorBlock = Type.Object(
  {
    type: Type.Optional(
      Type.Literal('connector', {
        description: 'What the document describes: always "connector" (may be omitted)',
      }),
    ),
    kind: Type.Union(
      CONNECTOR_KINDS.map((k) => Type.Literal(k)),
      { description: 'How actions run: function (in process), shell (a command), http' },
    ),
    name: Type.String({
      pattern: SLUG_PATTERN,
      description: 'Connector name: what a step names with plugin: <name>',
      'x-expected': 'a name: lowercase letters, digits, _ and -',
    }),
    namespace: Type.String({
      pattern: NAMESPACE_PATTERN,
      description: 'Namespace, as in connector:<namespace>/<name>@<version>',
      'x-expected': 'a namespace: lowercase letters, digits, _ and -',
    }),
    version: SemverString('Connector version, as in connector:<namespace>/<name>@<version>'),
    description: Type.Optional(Text('What the connector does')),
    base_url: Type.Optional(
      Type.String({
        pattern: '^https?://',
        maxLength: 2048,
        description: 'http kind: base URL of a connector service (POST {base_url}/execute)',
        'x-expected': 'an http:// or https:// URL',
      }),
    ),
    headers: Type.Optional(StringMap('http kind: headers sent with every request')),
    env: Type.Optional(StringMap('shell kind: extra environment variables of every command')),
    timeout: Type.Optional(Seconds('Seconds per attempt (default 120, at most 600)')),
    concurrency: Type.Optional(
      Type.Integer({
        minimum: 1,
        maximum: CONNECTOR_DEFAULTS.maxConcurrency,
        description: 'Most in-flight calls (default 10, at most 100)',
      }),
    ),
    runtime: Type.Optional(ConnectorRuntime),
  },
  { additionalProperties: false, description: 'Connector block' },
);
/** See {@link ConnectorBlock}. */
export type ConnectorBlock = Static<typeof ConnectorBlock>;

/**
 * Top-level keys of a plugin definition (docs/registry.md#plugin-definitions, docs/registry.md#checksums-and-signatures) that a connector file may carry
 * beside `connector` and `actions`: an installed `./plugins/<slug>.yaml` holds both. The SDK
 * does not interpret them (the registry checks them); it only accepts them.
 */
export const PLUGIN_METADATA_KEYS = [
  'slug',
  'version',
  'name',
  'description',
  'author',
  'homepage',
  'repository',
  'license',
  'tags',
  'icon',
  'changelog',
  'dependencies',
  'compatibility',
  'security',
  'support',
  'signature',
  'runtime',
  'environment',
] as const;

/** A connector definition file or object: `connector` + `actions`, plus plugin metadata. */
export const ConnectorDefinition = Type.Object(
  {
    $schema: Type.Optional(Type.String({ description: 'JSON Schema of this file, for editors' })),
    connector: ConnectorBlock,
    actions: Type.Array(ConnectorAction, { minItems: 1, maxItems: 1000 }),
    ...Object.fromEntries(PLUGIN_METADATA_KEYS.map((key) => [key, Type.Optional(Type.Unknown())])),
  },
  {
    additionalProperties: false,
    description: 'Connector definition (packages/sdk/CONNECTORS.md#definitions)',
  },
);
/** See {@link ConnectorDefinition}; plugin metadata keys are typed `unknown`. */
export type ConnectorDefinition = {
  connector: ConnectorBlock;
  actions: ConnectorAction[];
  $schema?: string;
} & { [K in (typeof PLUGIN_METADATA_KEYS)[number]]?: unknown };
