// The error start-up fails with: one line naming the variable and what is wrong with it. In lib/
// so that what config.ts calls to check a value (the allow-list parser beside it) and what meets a
// bad value later (the Redis store) can throw it without importing config.ts.
export class ConfigError extends Error {}
