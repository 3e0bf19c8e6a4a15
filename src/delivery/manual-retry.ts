// A delivery made due again by hand gets one attempt, whatever is left of the retry schedule; the
// kind says whether that attempt counts toward auto-disable (webhook_deliveries.manual_retry).

export const MANUAL_RETRY = {
  /** Due by the schedule. */
  none: 0,
  /** A re-send through the public API (POST /webhooks/{id}/deliveries/{id}/retry): not counted toward auto-disable. */
  api: 1,
  /** An operator's retry of a failed delivery (POST /admin/v1/deliveries/{id}/retry): counted like any attempt. */
  operator: 2,
} as const;
