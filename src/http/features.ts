// The plan features an account can have (a leaf module: the CLI's help lists them without loading auth).
export const FEATURES = ['reviews', 'surveys', 'analytics', 'insights', 'nodes', 'guests', 'webhooks'] as const;
export type Feature = (typeof FEATURES)[number];
