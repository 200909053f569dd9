/** Where an event source reports the failures it survives (pino and Fastify's `app.log` fit). */
export interface EventSourceLogger {
  error(object: object, message: string): void;
}

/** Drops everything. */
export const silentLogger: EventSourceLogger = { error() {} };
