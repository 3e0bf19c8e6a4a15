// What each event's `data` holds, as JSON Schema for the OpenAPI document's `webhooks` section.
// Typed by EventType, so a new event type cannot ship without its description. Schemas of API
// objects are referenced by their component name (Review, SurveyResponse), as the document has them.
import type { EventType } from './types.ts';

type JsonSchema = Record<string, unknown>;

const ref = (component: string): JsonSchema => ({ $ref: `#/components/schemas/${component}` });
const uuid = { type: 'string', format: 'uuid' };
const object = (properties: Record<string, JsonSchema>, description: string): JsonSchema =>
  ({ type: 'object', required: Object.keys(properties), properties, description });

export interface EventDescription {
  summary: string;
  data: JsonSchema;
}

export const EVENT_PAYLOADS: Record<EventType, EventDescription> = {
  'review.received': {
    summary: 'A new review was recorded (not sent again when an existing review is updated)',
    data: object({ review: ref('Review') }, 'the review as GET /reviews/{id} answers it'),
  },
  'review.replied': {
    summary: 'The owner reply of a review was set or changed',
    data: object({ review: ref('Review') }, 'the review with its reply'),
  },
  'review.alert_triggered': {
    summary: 'A new review matched an alert rule of the account (one event per matching rule)',
    data: object({ review: ref('Review'), alert_rule_id: uuid }, 'the review and the rule it matched'),
  },
  'survey.response_completed': {
    summary: 'A survey response was completed',
    data: object({ response: ref('SurveyResponse') }, 'the response as GET /surveys/{id}/responses lists it'),
  },
  'guest.created': {
    summary: 'A guest was created by a push (POST /guests); an update of a known guest sends nothing',
    data: object({ guest_id: uuid, property_id: uuid }, 'the new guest and its property'),
  },
  'guest.unsubscribed': {
    summary: 'A guest withdrew marketing consent',
    data: object({ guest_id: uuid, property_id: uuid }, 'the guest and its property'),
  },
  ping: {
    summary: 'A test delivery queued by POST /webhooks/{id}/test, sent whatever the endpoint subscribes to',
    data: object({ endpoint_id: uuid, message: { type: 'string' } }, 'the endpoint the ping was queued for'),
  },
};
