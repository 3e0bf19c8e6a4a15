// The error start-up fails with: one line naming the variable and what is wrong with it. Its own
// module so that the parsers config.ts calls (the address guard's allow-list) can throw it
// without importing config.ts back.
export class ConfigError extends Error {}
