/**
 * A bare `node:http` server answering every request with a small JSON body: the physical limit
 * of the scale benchmark, run as a child process so that client and server have a core each.
 * Prints `listening on <url>`.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

const server = createServer((request, response) => {
  request.resume();
  request.on('end', () => {
    response.writeHead(200, { 'content-type': 'application/json' }).end('{"status":"ok"}');
  });
});
server.listen(0, '127.0.0.1', () => {
  console.log(`listening on http://127.0.0.1:${(server.address() as AddressInfo).port}/`);
});
process.once('SIGTERM', () => server.close(() => process.exit(0)));
