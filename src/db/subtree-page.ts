// Keyset pages over a node subtree, newest first on (time, id). The query shape is chosen by subtree
// size so a page costs O(limit) index entries per node at any depth (never OFFSET):
//  - the whole account: one ordered scan of an (account_id, time, id) index;
//  - up to PER_NODE_UNION_MAX nodes: a UNION ALL of per-node seeks on a (node_id, time, id) index,
//    each LIMITed, merged and LIMITed again (a plain IN over many nodes makes PostgreSQL sort);
//  - larger subtrees: the account scan filtered by node.
import { type Kysely, type SelectQueryBuilder, sql } from 'kysely';
import type { DB } from './schema.ts';
import type { Keyset } from '../http/pagination.ts';

export const PER_NODE_UNION_MAX = 64;

export interface SubtreeScope {
  accountId: string;
  /** Node ids of the subtree. */
  nodes: string[];
  /** True when the subtree is the whole account (the key is bound to the root). */
  wholeAccount: boolean;
}

/** Which rows a page may come from; the caller turns it into where-clauses on its own table. */
export type NodeFilter =
  | { kind: 'account'; accountId: string }
  | { kind: 'account-nodes'; accountId: string; nodes: string[] }
  | { kind: 'node'; nodeId: string };

// The builder's table and row types vary per caller; only the keyset columns matter here.
type AnyQuery<O> = SelectQueryBuilder<DB, any, O>;

export async function subtreePage<O>(
  db: Kysely<DB>,
  scope: SubtreeScope,
  after: Keyset | null,
  limit: number,
  timeColumn: string,
  base: (filter: NodeFilter) => AnyQuery<O>,
): Promise<O[]> {
  const time = sql.ref(timeColumn);
  const page = (query: AnyQuery<O>): AnyQuery<O> => {
    const q = after ? query.where(sql<boolean>`(${time}, id) < (${after.time}, ${after.id})`) : query;
    return q.orderBy(time, 'desc').orderBy('id', 'desc').limit(limit + 1);
  };

  if (scope.wholeAccount) return page(base({ kind: 'account', accountId: scope.accountId })).execute();
  if (scope.nodes.length > PER_NODE_UNION_MAX) {
    return page(base({ kind: 'account-nodes', accountId: scope.accountId, nodes: scope.nodes })).execute();
  }
  if (scope.nodes.length === 1) return page(base({ kind: 'node', nodeId: scope.nodes[0]! })).execute();

  const parts = scope.nodes.map((nodeId, i) =>
    db.selectFrom(page(base({ kind: 'node', nodeId })).as(`n${i}`)).selectAll() as AnyQuery<O>);
  let union = parts[0]!;
  for (const part of parts.slice(1)) union = union.unionAll(part);
  return union.orderBy(time, 'desc').orderBy('id', 'desc').limit(limit + 1).execute();
}
