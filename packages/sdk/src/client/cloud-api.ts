import { HttpApi } from '../http-client/http-api.js';
import { checkServerUrl } from '../http-client/server-url.js';
import { UndiciTransport } from './undici-transport.js';

/** Options of {@link CloudApi}. */
export interface CloudApiOptions {
  /** Base URL of the server (`weft server`), e.g. `https://weft.example.com`. */
  baseUrl: string;
  /** The API key sent as `Authorization: Bearer <key>`. */
  apiKey: string;
  /** Largest answer accepted, in bytes. Default 10 MiB. */
  maxResponseBytes?: number;
  /** The option that gave `baseUrl`, named in errors. Default `cloudUrl`. */
  urlField?: string;
  /** Added to the error when the server cannot be reached. Default: about `cloudUrl`. */
  unreachableHint?: string;
}

export type {
  ApiAnswer as CloudAnswer,
  ApiRequest as CloudRequest,
} from '../http-client/http-api.js';

/**
 * The SDK's HTTP client of a weft server (the `cloud` and `hybrid` modes): the browser-safe
 * {@link HttpApi} over a keep-alive undici agent, its URL checked as `cloudUrl`. An error
 * body (docs/protocol.md#error-object) comes back as the `ApiError` of its code, a server that cannot be reached as
 * `UNAVAILABLE`, anything else as `BACKEND_ERROR`.
 */
export class CloudApi extends HttpApi {
  constructor(options: CloudApiOptions) {
    const url = checkCloudUrl(options.baseUrl, options.urlField ?? 'cloudUrl').toString();
    super({
      baseUrl: url,
      apiKey: options.apiKey,
      transport: new UndiciTransport(),
      unreachableHint:
        options.unreachableHint ??
        `check cloudUrl (WORKFLOW_CLOUD_URL) and that weft server runs at ${url.replace(/\/+$/, '')}`,
      ...(options.maxResponseBytes !== undefined
        ? { maxResponseBytes: options.maxResponseBytes }
        : {}),
    });
  }
}

/** Checks a server URL: absolute http(s), no credentials. Throws `VALIDATION` naming `field`. */
export function checkCloudUrl(text: string | undefined, field: string): URL {
  return checkServerUrl(text, field, {
    role: 'server',
    example: 'https://weft.example.com',
    unsetHint: ' (or set WORKFLOW_CLOUD_URL)',
  });
}
