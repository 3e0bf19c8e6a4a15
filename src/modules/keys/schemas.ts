// TypeBox schemas of API keys: the operator's create body and the once-only answer.
import { Type, type Static } from 'typebox';
import { OptionalNullable, Uuid } from '../../http/schemas.ts';

export const KeyInput = Type.Object({
  node_id: Uuid,
  scopes: Type.Array(Type.String(), { minItems: 1 }),
  name: OptionalNullable(Type.String({ maxLength: 200 })),
}, { additionalProperties: false });
export type KeyInput = Static<typeof KeyInput>;

export const WhoAmI = Type.Object({ account_id: Uuid, node_id: Uuid, scopes: Type.Array(Type.String()) }, { $id: 'WhoAmI' });

export interface CreatedKey {
  id: string;
  key: string;
  node_id: string;
  scopes: string[];
  created_at: string;
}
