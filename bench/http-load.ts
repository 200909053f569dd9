/**
 * A lean closed-loop HTTP/1.1 load generator: `connections` keep-alive sockets, each sending its
 * next request once the answer to the last one is read whole. Requests are bytes built by the
 * caller; answers are parsed only as far as their status and length (`Content-Length` or
 * chunked). It exists because the load generator shares the machine's two cores with the
 * server it measures: autocannon used 1.4–2× the CPU per request that this does (same run,
 * bench/README.md), CPU the server then lacked. Latency runs from the request's write to its
 * answer's last byte, in fractions of a millisecond (autocannon rounds to whole ones).
 */
import { connect, type Socket } from 'node:net';

/** What one load run measured. */
export interface HttpLoadResult {
  requestsPerSec: number;
  p50Ms: number;
  p99Ms: number;
  /** Requests whose answer was not read whole (the socket failed or closed first). */
  errors: number;
  /** Answers outside 2xx. */
  non2xx: number;
  /** This process's CPU per request (µs): the load generator's own cost. */
  clientCpuUs: number;
}

/** One request's bytes: `GET`/`POST` with a `Content-Length` body, `Host` set, keep-alive. */
export function requestBytes(
  method: string,
  path: string,
  headers: Readonly<Record<string, string>> = {},
  body?: string | Buffer,
): Buffer {
  const payload = body === undefined ? undefined : Buffer.from(body);
  let head = `${method} ${path} HTTP/1.1\r\nhost: localhost\r\n`;
  for (const [name, value] of Object.entries(headers)) head += `${name}: ${value}\r\n`;
  if (payload) head += `content-length: ${payload.length}\r\n`;
  head += '\r\n';
  return payload
    ? Buffer.concat([Buffer.from(head, 'latin1'), payload])
    : Buffer.from(head, 'latin1');
}

const HEADER_END = Buffer.from('\r\n\r\n');
const CRLF = Buffer.from('\r\n');

/**
 * How many bytes the answer at the start of `data` spans, with its status and whether the server
 * closes the connection after it; undefined while it is incomplete. Throws on what is not an
 * HTTP/1.1 answer.
 */
export function answerLength(
  data: Buffer,
): { length: number; status: number; close: boolean } | undefined {
  const headEnd = data.indexOf(HEADER_END);
  if (headEnd < 0) return undefined;
  if (data.toString('latin1', 0, 5) !== 'HTTP/') throw new Error('not an HTTP answer');
  const status = Number(data.toString('latin1', 9, 12));
  const head = data.toString('latin1', 0, headEnd).toLowerCase();
  const bodyStart = headEnd + 4;
  const close = /\r\nconnection: *close/.test(head);
  const declared = /\r\ncontent-length: *(\d+)/.exec(head);
  if (declared) {
    const length = bodyStart + Number(declared[1]);
    return data.length >= length ? { length, status, close } : undefined;
  }
  if (!/\r\ntransfer-encoding: *chunked/.test(head)) return { length: bodyStart, status, close };
  let at = bodyStart;
  for (;;) {
    const lineEnd = data.indexOf(CRLF, at);
    if (lineEnd < 0) return undefined;
    const size = parseInt(data.toString('latin1', at, lineEnd), 16);
    if (Number.isNaN(size)) throw new Error('bad chunk size');
    at = lineEnd + 2 + size + 2;
    if (data.length < at) return undefined;
    if (size === 0) return { length: at, status, close };
  }
}

/**
 * Runs `connections` sockets against `url` for `seconds`, each request's bytes from `next()`
 * (a socket the server closes is opened again); resolves when every socket has read its last
 * answer.
 */
export async function httpLoad(
  url: string,
  next: () => Buffer,
  seconds: number,
  connections = 64,
): Promise<HttpLoadResult> {
  const { hostname, port } = new URL(url);
  const latencies: number[] = [];
  let errors = 0;
  let non2xx = 0;
  const cpuStart = process.cpuUsage();
  const start = performance.now();
  const end = start + seconds * 1000;

  /**
   * One connection's requests until the end of the load; resolves when it closed. An answer
   * cut short or unparsable counts as an error, and the socket is given up.
   */
  const connection = (): Promise<void> =>
    new Promise((resolve) => {
      const socket: Socket = connect({ host: hostname, port: Number(port), noDelay: true });
      let buffered: Buffer = Buffer.alloc(0);
      let sentAt = 0;
      let waiting = false;
      const send = () => {
        if (performance.now() >= end) return void socket.destroy();
        sentAt = performance.now();
        waiting = true;
        socket.write(next());
      };
      socket.on('connect', send);
      socket.on('data', (chunk: Buffer) => {
        buffered = buffered.length === 0 ? chunk : Buffer.concat([buffered, chunk]);
        let answer;
        try {
          answer = answerLength(buffered);
        } catch {
          return void socket.destroy(new Error('not an HTTP answer'));
        }
        if (!answer) return;
        waiting = false;
        latencies.push(performance.now() - sentAt);
        if (answer.status < 200 || answer.status > 299) non2xx++;
        buffered = buffered.subarray(answer.length);
        if (answer.close) socket.destroy();
        else send();
      });
      socket.on('error', () => {});
      socket.on('close', () => {
        if (waiting) errors++;
        // Refused or failed before any request: count it, and wait a little before the next.
        if (sentAt === 0) errors++;
        setTimeout(resolve, sentAt === 0 ? 10 : 0);
      });
    });

  /** Keeps one connection open until the end, opening a new one when the server closes it. */
  const drive = async (): Promise<void> => {
    while (performance.now() < end) await connection();
  };

  await Promise.all(Array.from({ length: connections }, drive));
  const elapsedS = (performance.now() - start) / 1000;
  const cpu = process.cpuUsage(cpuStart);
  latencies.sort((a, b) => a - b);
  const at = (p: number) =>
    latencies[Math.min(latencies.length - 1, Math.floor(p * latencies.length))] ?? NaN;
  return {
    requestsPerSec: latencies.length / elapsedS,
    p50Ms: at(0.5),
    p99Ms: at(0.99),
    errors,
    non2xx,
    clientCpuUs: latencies.length > 0 ? (cpu.user + cpu.system) / latencies.length : NaN,
  };
}
