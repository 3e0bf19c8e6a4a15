// The logger every background part writes to: pino's (and Fastify's) shape, so either can be passed.

export interface Log {
  debug(obj: object, msg: string): void;
  info(obj: object, msg: string): void;
  warn(obj: object, msg: string): void;
  error(obj: object, msg: string): void;
}
