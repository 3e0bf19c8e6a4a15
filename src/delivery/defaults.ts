// The delivery worker's default limits (a leaf module: \`repute worker --help\` shows them without loading the worker).
export const DEFAULT_CONCURRENCY = 64;
export const DEFAULT_PER_ENDPOINT = 16;
