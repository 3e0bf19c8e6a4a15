// What a key may be granted (scopes) and what an account's plan may include (features).

export const SCOPES = [
  'reviews:read', 'surveys:read', 'analytics:read', 'insights:read', 'nodes:read', 'webhooks:manage', 'guests:write',
] as const;
export type Scope = (typeof SCOPES)[number];

export const FEATURES = ['reviews', 'surveys', 'analytics', 'insights', 'nodes', 'guests', 'webhooks'] as const;
export type Feature = (typeof FEATURES)[number];
