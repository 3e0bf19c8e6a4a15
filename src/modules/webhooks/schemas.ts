// TypeBox schemas of webhooks: the public WebhookEndpoint, its create/update bodies, the
// once-only WebhookEndpointCreated, WebhookDelivery, and the operator's delivery detail.
import { Type, type Static } from 'typebox';
import { EVENT_TYPES } from '../../events/types.ts';
import { DateTime, Nullable, Uuid } from '../../http/schemas.ts';

export const WebhookEndpoint = Type.Object({
  id: Uuid,
  name: Type.String(),
  url: Type.String({ format: 'uri' }),
  events: Type.Array(Type.String()),
  is_active: Type.Boolean(),
  disabled_reason: Nullable(Type.String({ description: 'why Repute set is_active to false (auto-disable after uninterrupted failure, or a 410 Gone answer); null when active or paused through the API. PATCH is_active=true clears it.' })),
  previous_secret_expires_at: Nullable(DateTime),
  created_at: DateTime,
  updated_at: DateTime,
}, { $id: 'WebhookEndpoint', description: 'The signing secret is never part of this object. previous_secret_expires_at: during a secret rotation\'s grace period, when the previous secret stops signing; null otherwise.' });
export type WebhookEndpoint = Static<typeof WebhookEndpoint>;

const EventName = Type.Enum([...EVENT_TYPES]);

const fields = {
  name: Type.String({ minLength: 1, maxLength: 120 }),
  url: Type.String({ format: 'uri', maxLength: 2048, description: 'absolute http or https URL; private or reserved addresses are refused at delivery time' }),
  events: Type.Array(EventName, { minItems: 1, maxItems: 50 }),
  is_active: Type.Boolean({ description: 'meaningful on update only: false pauses deliveries, true resumes them' }),
};

export const WebhookEndpointInput = Type.Object({
  name: fields.name, url: fields.url, events: fields.events, is_active: Type.Optional(fields.is_active),
}, { additionalProperties: false });
export type WebhookEndpointInput = Static<typeof WebhookEndpointInput>;

export const WebhookEndpointPatch = Type.Object({
  name: Type.Optional(fields.name), url: Type.Optional(fields.url), events: Type.Optional(fields.events), is_active: Type.Optional(fields.is_active),
}, { additionalProperties: false, minProperties: 1 });
export type WebhookEndpointPatch = Static<typeof WebhookEndpointPatch>;

export const WebhookEndpointCreated = Type.Object({
  secret: Type.String({ description: 'the signing secret (whsec_…); returned this once, never retrievable afterwards' }),
  endpoint: WebhookEndpoint,
}, { $id: 'WebhookEndpointCreated' });

export const WebhookDelivery = Type.Object({
  id: Uuid,
  event_type: Type.String(),
  status: Type.Union([Type.Literal('pending'), Type.Literal('delivered'), Type.Literal('failed')]),
  attempt_count: Type.Integer(),
  last_status_code: Nullable(Type.Integer()),
  last_attempt_at: Nullable(DateTime),
  last_error: Nullable(Type.String({ description: 'the reason of the last failed attempt (e.g. "HTTP 500", a time-out, a refused address); null when no attempt failed' })),
  created_at: DateTime,
}, { $id: 'WebhookDelivery' });
export type WebhookDelivery = Static<typeof WebhookDelivery>;

/** 24 hours: receivers have a day to deploy the new secret. */
export const DEFAULT_GRACE_PERIOD_S = 86_400;
const MAX_GRACE_PERIOD_S = 7 * 86_400;

export const SecretRotationInput = Type.Object({
  grace_period_seconds: Type.Optional(Type.Integer({
    minimum: 0, maximum: MAX_GRACE_PERIOD_S, default: DEFAULT_GRACE_PERIOD_S,
    description: 'how long the previous secret keeps signing beside the new one (0: not at all)',
  })),
  force: Type.Optional(Type.Boolean({ description: 'rotate although a grace period is running; the older previous secret stops signing at once' })),
}, { additionalProperties: false, $id: 'WebhookSecretRotation' });
export type SecretRotationInput = Static<typeof SecretRotationInput>;

export const SecretRotated = Type.Object({
  secret: Type.String({ description: 'the new signing secret (whsec_…); returned this once, never retrievable afterwards' }),
  endpoint: WebhookEndpoint,
}, { $id: 'WebhookSecretRotated' });

export const DeliveryParams = Type.Object({ id: Type.String(), deliveryId: Type.String() });

export const Deleted = Type.Object({ id: Uuid, deleted: Type.Literal(true) });

const WebhookAttempt = Type.Object({
  id: Uuid,
  attempted_at: DateTime,
  status_code: Nullable(Type.Integer()),
  duration_ms: Type.Integer(),
  error: Nullable(Type.String()),
  response_body: Nullable(Type.String()),
});
export type WebhookAttempt = Static<typeof WebhookAttempt>;

/** The operator's view: the delivery, where it goes, when it is next due, and every attempt. */
export const DeliveryDetail = Type.Object({
  id: Uuid,
  account_id: Uuid,
  endpoint_id: Uuid,
  event_id: Uuid,
  event_type: Type.String(),
  status: Type.String(),
  attempt_count: Type.Integer(),
  last_status_code: Nullable(Type.Integer()),
  last_attempt_at: Nullable(DateTime),
  next_attempt_at: Nullable(DateTime),
  created_at: DateTime,
  attempts: Type.Array(WebhookAttempt),
});
export type DeliveryDetail = Static<typeof DeliveryDetail>;

export const DeliveryListQuery = Type.Object({
  status: Type.Optional(Type.Enum(['pending', 'delivered', 'failed'])),
}, { additionalProperties: false });
