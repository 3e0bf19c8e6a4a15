// The node hierarchy: one root per account, properties are leaves, reads cover a key's subtree.
import type { Kysely } from 'kysely';
import type { DB, NodeRow } from '../../db/schema.ts';
import type { Principal } from '../../http/auth.ts';
import { AppError } from '../../http/errors.ts';
import { newId } from '../../lib/ids.ts';
import { nowIso } from '../../lib/time.ts';
import { childPath, findNode, insertNode, listSubtree } from './repository.ts';
import type { Node, NodeInput } from './schemas.ts';

export const PROPERTY = 'property';

export const toNode = (row: NodeRow): Node => ({ id: row.id, name: row.name, parent_id: row.parent_id, type: row.type });

export async function createNode(db: Kysely<DB>, accountId: string, input: NodeInput): Promise<NodeRow> {
  let parentPath: string | null = null;
  if (input.parent_id === null) {
    const root = await db.selectFrom('nodes').select('id').where('account_id', '=', accountId).where('parent_id', 'is', null).executeTakeFirst();
    if (root) throw new AppError(400, `parent_id must name a parent: the account already has its root node ${root.id}`);
  } else {
    const parent = await findNode(db, input.parent_id);
    if (!parent || parent.account_id !== accountId) throw new AppError(400, 'parent_id must be a node of this account');
    if (parent.type === PROPERTY) throw new AppError(400, 'parent_id is a property, and a property is a leaf that takes no children');
    parentPath = parent.path;
  }
  const id = newId();
  const row: NodeRow = {
    id, account_id: accountId, parent_id: input.parent_id, name: input.name, type: input.type,
    path: childPath(parentPath, id), created_at: nowIso(),
  };
  await insertNode(db, row);
  return row;
}

export async function listVisibleNodes(db: Kysely<DB>, principal: Principal): Promise<Node[]> {
  const own = await findNode(db, principal.nodeId);
  if (!own) return [];
  return (await listSubtree(db, own.path)).map(toNode);
}
