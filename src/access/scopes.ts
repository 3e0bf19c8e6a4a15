// What a key may be granted (scopes) and what an account's plan may include (features).

export const SCOPES = [
  'reviews:read', 'surveys:read', 'analytics:read', 'insights:read', 'nodes:read', 'webhooks:manage', 'guests:write',
] as const;
export type Scope = (typeof SCOPES)[number];

export const FEATURES = ['reviews', 'surveys', 'analytics', 'insights', 'nodes', 'guests', 'webhooks'] as const;
export type Feature = (typeof FEATURES)[number];

/** The plan feature each scope's routes belong to: a scope outside the plan grants nothing. */
export const FEATURE_OF_SCOPE: Readonly<Record<Scope, Feature>> = {
  'reviews:read': 'reviews', 'surveys:read': 'surveys', 'analytics:read': 'analytics', 'insights:read': 'insights',
  'nodes:read': 'nodes', 'webhooks:manage': 'webhooks', 'guests:write': 'guests',
};
