// The events Repute emits and the body every webhook delivery carries.

export const EVENT_TYPES = [
  'review.received', 'review.replied', 'review.alert_triggered',
  'survey.response_completed', 'guest.created', 'guest.unsubscribed',
] as const;
export type SubscribableEvent = (typeof EVENT_TYPES)[number];
export type EventType = SubscribableEvent | 'ping';

/** The delivery body: { id, type, timestamp, account_id, data }. */
export interface EventBody {
  id: string;
  type: EventType;
  timestamp: string;
  account_id: string;
  data: Record<string, unknown>;
}
