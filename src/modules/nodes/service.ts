// The node hierarchy: one root per account, properties are leaves, reads cover a key's subtree.
import type { Kysely } from 'kysely';
import { type Principal, subtreeScope } from '../../access/principal.ts';
import type { SubtreeScope } from '../../db/subtree-page.ts';
import type { DB, NodeRow } from '../../db/schema.ts';
import { invalid, notFound } from '../../lib/errors.ts';
import { newId } from '../../lib/ids.ts';
import { nowIso } from '../../lib/time.ts';
import type { TtlCache } from '../../lib/ttl-cache.ts';
import { requireAccount } from '../accounts/service.ts';
import { childPath, findNode, findNodeType, findRootNode, insertNode, listAccountNodePaths, listSubtree, listSubtreeProperties } from './repository.ts';
import type { Node, NodeInput } from './schemas.ts';

export const PROPERTY = 'property';

export const toNode = (row: NodeRow): Node => ({ id: row.id, name: row.name, parent_id: row.parent_id, type: row.type });

/** Why a body field naming a node is refused when the node is not the account's. */
export const notAccountNode = (field = 'node_id'): string => `${field} must be a node of this account`;

/** Why a node field is refused when the node is the account's but outside the caller's subtree. */
export const NOT_WITHIN_REACH = 'node_id must be your node or a node below it';

/** The node named by a body field, or 400 unless it is a node of the account (ids are schema-checked UUIDs). */
export async function requireAccountNode(db: Kysely<DB>, accountId: string, nodeId: string, field = 'node_id'): Promise<NodeRow> {
  const node = await findNode(db, nodeId);
  if (!node || node.account_id !== accountId) throw invalid(notAccountNode(field));
  return node;
}

export async function createNode(db: Kysely<DB>, accountId: string, input: NodeInput): Promise<NodeRow> {
  await requireAccount(db, accountId);
  let parentPath: string | null = null;
  if (input.parent_id === null) {
    const root = await findRootNode(db, accountId);
    if (root) throw invalid(`parent_id must name a parent: the account already has its root node ${root.id}`);
  } else {
    const parent = await requireAccountNode(db, accountId, input.parent_id, 'parent_id');
    if (parent.type === PROPERTY) throw invalid('parent_id is a property, and a property is a leaf that takes no children');
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

/** A node's type (a property, a region, …); undefined for an unknown node. */
export const nodeTypeOf = (db: Kysely<DB>, nodeId: string): Promise<string | undefined> => findNodeType(db, nodeId);

/** Ids of the node's ancestors and of the node itself, root first; none for an unknown node. */
/** A property's id and name, for a page's property filter and labels. */
export type PropertyName = Pick<NodeRow, 'id' | 'name'>;

/**
 * The properties (leaves) among the nodes the principal sees, in path order. With a cache (keyed by
 * the principal's node) they are read at most once per its TTL: a page shows them on every request,
 * and reading every node's row was a quarter of the review inbox's time.
 */
export async function listVisibleProperties(db: Kysely<DB>, principal: Principal, cache?: TtlCache<PropertyName[]>): Promise<PropertyName[]> {
  const cached = cache?.get(principal.nodeId);
  if (cached !== undefined) return cached;
  const own = await findNode(db, principal.nodeId);
  const properties = own ? await listSubtreeProperties(db, own.path) : [];
  cache?.set(principal.nodeId, properties);
  return properties;
}

export async function lineageIds(db: Kysely<DB>, nodeId: string): Promise<string[]> {
  const node = await findNode(db, nodeId);
  return node ? node.path.split('/').filter(Boolean) : [];
}

/** Every node of the account → the ids of its ancestors and itself, root first (one query, for batches). */
export async function accountLineages(db: Kysely<DB>, accountId: string): Promise<Map<string, string[]>> {
  return new Map((await listAccountNodePaths(db, accountId)).map((n) => [n.id, n.path.split('/').filter(Boolean)]));
}

/** Every node of the account, root first (path order). */
export async function accountNodes(db: Kysely<DB>, accountId: string): Promise<NodeRow[]> {
  const root = await findRootNode(db, accountId);
  if (!root) return [];
  const rootRow = await findNode(db, root.id);
  return rootRow ? listSubtree(db, rootRow.path) : [];
}

/** Ids of the node at `path` and every node below it. */
export async function subtreeIds(db: Kysely<DB>, path: string): Promise<string[]> {
  return (await listSubtree(db, path)).map((n) => n.id);
}

/**
 * The subtree of a node a list is narrowed to (`?node_id=`): 404 unless the node is in the key's
 * subtree, as a node out of reach answers everywhere. The key's own node costs no query.
 */
export async function narrowedScope(db: Kysely<DB>, principal: Principal, nodeId: string): Promise<SubtreeScope> {
  if (!principal.inSubtree(nodeId)) throw notFound('node');
  if (nodeId === principal.nodeId) return subtreeScope(principal);
  const node = await findNode(db, nodeId);
  if (!node) throw notFound('node');
  const nodes = await subtreeIds(db, node.path);
  return { accountId: principal.accountId, nodes, wholeAccount: false, accountNodes: principal.accountNodes };
}

/** A node in the operator's tree view: the node, when it was made, and its children in path order. */
export interface NodeTree extends Node {
  created_at: string;
  children: NodeTree[];
}

/** The account's nodes as a tree from its root (an account without nodes yet has none: []). */
export async function accountNodeTree(db: Kysely<DB>, accountId: string): Promise<NodeTree[]> {
  await requireAccount(db, accountId);
  const rows = await accountNodes(db, accountId);
  const byId = new Map<string, NodeTree>(rows.map((row) => [row.id, { ...toNode(row), created_at: row.created_at, children: [] }]));
  const roots: NodeTree[] = [];
  for (const row of rows) {
    const node = byId.get(row.id)!;
    const parent = row.parent_id === null ? undefined : byId.get(row.parent_id);
    if (parent) parent.children.push(node);
    else roots.push(node);
  }
  return roots;
}
