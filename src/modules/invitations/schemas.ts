// TypeBox schemas of survey invitations (shared/spec/surveys.md): the operator's rule body and the
// rule and invitation objects of the admin API. Tokens never appear: only their hashes are stored.
import { Type, type Static } from 'typebox';
import { DateTime, Nullable, Uuid } from '../../http/schemas.ts';

export const CONSENT_MODES = ['granted', 'not_withdrawn'] as const;
export type ConsentMode = (typeof CONSENT_MODES)[number];

export const RuleInput = Type.Object({
  node_id: Uuid,
  delay_hours: Type.Number({ minimum: 0, maximum: 24 * 365, description: 'hours after the stay\'s end; fractions allowed' }),
  consent: Type.Optional(Type.Enum([...CONSENT_MODES], { description: 'granted (default): only guests who granted consent; not_withdrawn: every guest who has not withdrawn it' })),
  max_age_days: Type.Optional(Type.Integer({ minimum: 1, maximum: 3650, description: 'a stay that ended longer ago is never invited (default 14)' })),
  cooldown_days: Type.Optional(Type.Integer({ minimum: 0, maximum: 3650, description: 'a guest invited within this many days is not invited again (default 30; 0: off)' })),
}, { additionalProperties: false });
export type RuleInput = Static<typeof RuleInput>;

export const InvitationRule = Type.Object({
  id: Uuid,
  account_id: Uuid,
  survey_id: Uuid,
  node_id: Uuid,
  delay_hours: Type.Number(),
  consent: Type.Enum([...CONSENT_MODES]),
  max_age_days: Type.Integer(),
  cooldown_days: Type.Integer(),
  created_at: DateTime,
}, { $id: 'InvitationRule' });
export type InvitationRule = Static<typeof InvitationRule>;

export const INVITATION_STATUSES = ['scheduled', 'sending', 'sent', 'failed', 'cancelled'] as const;
export const INVITATION_STATES = [...INVITATION_STATUSES, 'opened', 'answered'] as const;

export const Invitation = Type.Object({
  id: Uuid,
  survey_id: Uuid,
  rule_id: Nullable(Uuid),
  reservation_id: Uuid,
  guest_id: Uuid,
  node_id: Uuid,
  language: Type.String(),
  status: Type.Enum([...INVITATION_STATUSES], { description: 'the sending: cancelled when the stay, guest, consent or cooldown ruled it out at send time' }),
  state: Type.Enum([...INVITATION_STATES], { description: 'what the guest did: answered, else opened, else the status' }),
  send_at: DateTime,
  attempts: Type.Integer(),
  last_error: Nullable(Type.String({ description: 'the SMTP answer of the last failed attempt, or why it was cancelled' })),
  sent_at: Nullable(DateTime),
  opened_at: Nullable(DateTime),
  answered_at: Nullable(DateTime),
  response_id: Nullable(Uuid),
  created_at: DateTime,
}, { $id: 'Invitation' });
export type Invitation = Static<typeof Invitation>;

export const InvitationListQuery = Type.Object({
  status: Type.Optional(Type.Enum([...INVITATION_STATUSES])),
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 500, default: 100 })),
  cursor: Type.Optional(Type.String({ maxLength: 200, description: 'next_cursor of the previous page' })),
}, { additionalProperties: false });
export type InvitationListQuery = Static<typeof InvitationListQuery>;
