/** The logging the trigger machinery needs (pino and Fastify's `app.log` fit). */
export interface TriggerLogger {
  info(object: object, message: string): void;
  warn(object: object, message: string): void;
  error(object: object, message: string): void;
}

/** Drops everything. */
export const silentLogger: TriggerLogger = { info() {}, warn() {}, error() {} };
