// TypeBox schemas of the node hierarchy.
import { Type, type Static } from 'typebox';
import { Nullable, Uuid } from '../../http/schemas.ts';

export const Node = Type.Object({
  id: Uuid,
  name: Type.String(),
  parent_id: Nullable(Uuid),
  type: Type.String(),
}, { $id: 'Node' });
export type Node = Static<typeof Node>;

export const NodeInput = Type.Object({
  name: Type.String({ minLength: 1, maxLength: 200 }),
  type: Type.String({ minLength: 1, maxLength: 50, pattern: '^[a-z][a-z0-9_]*$' }),
  parent_id: Nullable(Uuid),
}, { additionalProperties: false });
export type NodeInput = Static<typeof NodeInput>;
