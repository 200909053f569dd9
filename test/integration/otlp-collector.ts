import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/** One span as an OTLP collector received it, JSON or protobuf alike. */
export interface ReceivedSpan {
  service: string;
  traceId: string;
  spanId: string;
  parentSpanId: string;
  name: string;
  /** OTLP span kind: 1 internal, 2 server, 3 client, 4 producer, 5 consumer. */
  kind: number;
  attributes: Record<string, string | number | boolean>;
  /** How it came: `application/json` or `application/x-protobuf`. */
  encoding: string;
}

/** A minimal OTLP/HTTP traces receiver on loopback (`POST /v1/traces`, JSON and protobuf). */
export interface OtlpCollector {
  url: string;
  spans: ReceivedSpan[];
  /** Requests to any other path (callbacks sent here): their path and headers. */
  others: { path: string; headers: Record<string, string | string[] | undefined> }[];
  close(): Promise<void>;
}

export async function startOtlpCollector(): Promise<OtlpCollector> {
  const spans: ReceivedSpan[] = [];
  const others: OtlpCollector['others'] = [];
  const server: Server = createServer((request: IncomingMessage, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const body = Buffer.concat(chunks);
      const type = String(request.headers['content-type'] ?? '');
      if (request.url !== '/v1/traces') {
        others.push({ path: request.url ?? '', headers: request.headers });
        response.writeHead(200, { 'content-type': type }).end(type.includes('json') ? '{}' : '');
        return;
      }
      if (type.includes('json')) {
        spans.push(...fromJson(JSON.parse(body.toString('utf8'))));
        response.writeHead(200, { 'content-type': 'application/json' }).end('{}');
      } else {
        spans.push(...fromProtobuf(body));
        response.writeHead(200, { 'content-type': 'application/x-protobuf' }).end();
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    spans,
    others,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

type JsonValue = {
  stringValue?: string;
  intValue?: string | number;
  boolValue?: boolean;
  doubleValue?: number;
};
type JsonAttribute = { key: string; value: JsonValue };

function jsonAttributes(list: JsonAttribute[] | undefined): ReceivedSpan['attributes'] {
  const out: ReceivedSpan['attributes'] = {};
  for (const { key, value } of list ?? []) {
    out[key] =
      value.stringValue ??
      (value.intValue !== undefined ? Number(value.intValue) : undefined) ??
      value.boolValue ??
      value.doubleValue ??
      '';
  }
  return out;
}

function fromJson(request: {
  resourceSpans?: {
    resource?: { attributes?: JsonAttribute[] };
    scopeSpans?: {
      spans?: {
        traceId: string;
        spanId: string;
        parentSpanId?: string;
        name: string;
        kind: number;
        attributes?: JsonAttribute[];
      }[];
    }[];
  }[];
}): ReceivedSpan[] {
  const out: ReceivedSpan[] = [];
  for (const resourceSpans of request.resourceSpans ?? []) {
    const service = String(jsonAttributes(resourceSpans.resource?.attributes)['service.name']);
    for (const scope of resourceSpans.scopeSpans ?? []) {
      for (const span of scope.spans ?? []) {
        out.push({
          service,
          traceId: span.traceId,
          spanId: span.spanId,
          parentSpanId: span.parentSpanId ?? '',
          name: span.name,
          kind: span.kind,
          attributes: jsonAttributes(span.attributes),
          encoding: 'application/json',
        });
      }
    }
  }
  return out;
}

/** Fields of one protobuf message: number → values (varints as numbers, the rest as bytes). */
function fields(bytes: Buffer): Map<number, (number | Buffer)[]> {
  const out = new Map<number, (number | Buffer)[]>();
  let at = 0;
  const varint = (): number => {
    let value = 0;
    let shift = 0;
    for (;;) {
      const byte = bytes[at++]!;
      value += (byte & 0x7f) * 2 ** shift;
      if (byte < 0x80) return value;
      shift += 7;
    }
  };
  while (at < bytes.length) {
    const key = varint();
    const field = Math.floor(key / 8);
    let value: number | Buffer;
    switch (key & 7) {
      case 0:
        value = varint();
        break;
      case 1:
        value = bytes.subarray(at, at + 8);
        at += 8;
        break;
      case 2: {
        const length = varint();
        value = bytes.subarray(at, at + length);
        at += length;
        break;
      }
      case 5:
        value = bytes.subarray(at, at + 4);
        at += 4;
        break;
      default:
        throw new Error(`unsupported protobuf wire type ${key & 7}`);
    }
    out.set(field, [...(out.get(field) ?? []), value]);
  }
  return out;
}

const bytesOf = (m: Map<number, (number | Buffer)[]>, n: number): Buffer[] =>
  (m.get(n) ?? []) as Buffer[];

function protoAttributes(list: Buffer[]): ReceivedSpan['attributes'] {
  const out: ReceivedSpan['attributes'] = {};
  for (const kv of list) {
    const f = fields(kv);
    const key = bytesOf(f, 1)[0]?.toString('utf8') ?? '';
    const value = fields(bytesOf(f, 2)[0] ?? Buffer.alloc(0));
    // AnyValue: 1 string, 2 bool, 3 int, 4 double.
    out[key] =
      bytesOf(value, 1)[0]?.toString('utf8') ??
      (value.get(3)?.[0] as number | undefined) ??
      (value.get(2)?.[0] === 1 ? true : value.has(2) ? false : '');
  }
  return out;
}

/** ExportTraceServiceRequest → spans (resource_spans 1 → scope_spans 2 → spans 2). */
function fromProtobuf(body: Buffer): ReceivedSpan[] {
  const out: ReceivedSpan[] = [];
  for (const resourceSpans of bytesOf(fields(body), 1)) {
    const rs = fields(resourceSpans);
    const resource = fields(bytesOf(rs, 1)[0] ?? Buffer.alloc(0));
    const service = String(protoAttributes(bytesOf(resource, 1))['service.name']);
    for (const scopeSpans of bytesOf(rs, 2)) {
      for (const raw of bytesOf(fields(scopeSpans), 2)) {
        const span = fields(raw);
        out.push({
          service,
          traceId: bytesOf(span, 1)[0]!.toString('hex'),
          spanId: bytesOf(span, 2)[0]!.toString('hex'),
          parentSpanId: bytesOf(span, 4)[0]?.toString('hex') ?? '',
          name: bytesOf(span, 5)[0]!.toString('utf8'),
          kind: (span.get(6)?.[0] as number | undefined) ?? 0,
          attributes: protoAttributes(bytesOf(span, 9)),
          encoding: 'application/x-protobuf',
        });
      }
    }
  }
  return out;
}
