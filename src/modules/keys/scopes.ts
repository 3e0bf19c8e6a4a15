// The scopes an API key can carry (a leaf module: the CLI's help lists them without loading the service).
export const SCOPES = [
  'reviews:read', 'surveys:read', 'analytics:read', 'insights:read', 'nodes:read', 'webhooks:manage', 'guests:write',
] as const;
export type Scope = (typeof SCOPES)[number];
