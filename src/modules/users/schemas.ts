// TypeBox schemas of dashboard users: the operator's create body and the user object it answers.
import { Type, type Static } from 'typebox';
import { DateTime, Nullable, OptionalNullable, Uuid } from '../../http/schemas.ts';

/** What each role may do, least first: a viewer reads, a manager also acts on reviews, surveys and guests, an owner does everything. */
export const ROLES = ['viewer', 'manager', 'owner'] as const;
export type Role = (typeof ROLES)[number];

export const LANGUAGES = ['en', 'de'] as const;
export type Language = (typeof LANGUAGES)[number];

/** Long enough to resist guessing, short enough to keep a hash cheap to refuse. */
export const PASSWORD_MIN = 12;
export const PASSWORD_MAX = 1024;
/** The longest e-mail address a user may have (RFC 5321's path limit less its brackets). */
export const EMAIL_MAX = 254;

export const UserInput = Type.Object({
  email: Type.String({ minLength: 3, maxLength: EMAIL_MAX, description: 'unique in the instance, whatever its case' }),
  password: Type.String({ minLength: PASSWORD_MIN, maxLength: PASSWORD_MAX, description: `${PASSWORD_MIN} to ${PASSWORD_MAX} characters` }),
  role: Type.Enum([...ROLES]),
  node_id: OptionalNullable(Uuid),
}, { additionalProperties: false });
export type UserInput = Static<typeof UserInput>;

export const User = Type.Object({
  id: Uuid,
  email: Type.String(),
  role: Type.Enum([...ROLES]),
  node_id: Nullable(Uuid),
  created_at: DateTime,
});
export type User = Static<typeof User>;
