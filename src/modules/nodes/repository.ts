// SQL of the node hierarchy. A node's path is "/<root>/…/<id>/"; its subtree is a prefix range on path.
import type { Kysely } from 'kysely';
import { compiledOnce } from '../../db/compiled-once.ts';
import type { DB, NodeRow } from '../../db/schema.ts';

/** Upper bound of a path prefix range: "~" sorts after every character a path holds. */
const rangeEnd = (path: string): string => `${path}~`;

// Read on every dashboard request (the user's node and subtree): built once.
const nodeById = compiledOnce((db, id: string) => db.selectFrom('nodes').selectAll().where('id', '=', id));
const nodesInRange = compiledOnce((db, from: string, to: string) =>
  db.selectFrom('nodes').selectAll().where('path', '>=', from).where('path', '<', to).orderBy('path'));

export async function findNode(db: Kysely<DB>, id: string): Promise<NodeRow | undefined> {
  return (await nodeById(db, id))[0];
}

export async function findRootNode(db: Kysely<DB>, accountId: string): Promise<Pick<NodeRow, 'id'> | undefined> {
  return db.selectFrom('nodes').select('id').where('account_id', '=', accountId).where('parent_id', 'is', null).executeTakeFirst();
}

export async function findNodeType(db: Kysely<DB>, id: string): Promise<string | undefined> {
  return (await db.selectFrom('nodes').select('type').where('id', '=', id).executeTakeFirst())?.type;
}

/** Every node of the account, with its path. */
export async function listAccountNodePaths(db: Kysely<DB>, accountId: string): Promise<Pick<NodeRow, 'id' | 'path'>[]> {
  return db.selectFrom('nodes').select(['id', 'path']).where('account_id', '=', accountId).execute();
}

const propertiesInRange = compiledOnce((db, from: string, to: string) => db.selectFrom('nodes').select(['id', 'name'])
  .where('path', '>=', from).where('path', '<', to).where('type', '=', 'property').orderBy('path'));

/** The properties (id and name only) at or below the node at `path`, in path order. */
export async function listSubtreeProperties(db: Kysely<DB>, path: string): Promise<Pick<NodeRow, 'id' | 'name'>[]> {
  return propertiesInRange(db, path, rangeEnd(path));
}

export async function listSubtree(db: Kysely<DB>, path: string): Promise<NodeRow[]> {
  return nodesInRange(db, path, rangeEnd(path));
}

export async function insertNode(db: Kysely<DB>, row: NodeRow): Promise<void> {
  await db.insertInto('nodes').values(row).execute();
}

export const childPath = (parentPath: string | null, id: string): string => `${parentPath ?? '/'}${id}/`;
