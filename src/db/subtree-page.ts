// Keyset pages over a node subtree, newest first on (time, id), never OFFSET. The query shape is
// chosen per subtree and dialect so that a page costs about the same at any depth:
//  - 'account': the whole account, one ordered scan of an (account_id, time, id) index;
//  - 'node': one node, one ordered scan of a (node_id, time, id) index;
//  - 'account-nodes': the account scan filtered by node_id IN (…). It visits about limit × N / n
//    rows for n nodes of an account of N, so it is chosen when that is no more than the per-node
//    seeks read (limit × n, i.e. n² ≥ N), and for subtrees of more than PER_NODE_UNION_MAX nodes;
//  - 'per-node': a LIMITed ordered seek per node, merged and LIMITed again. PostgreSQL gets one
//    LATERAL join over unnest(node ids): one statement text for every subtree size, planned in a
//    fraction of a millisecond, where a UNION ALL of n arms takes milliseconds to plan. SQLite
//    (no LATERAL) gets a UNION ALL of the same arm repeated; its statements are cached prepared.
// The arm is built once per call and replicated, so building a page costs one small query builder.
import {
  type CompiledQuery, type Kysely, type KyselyPlugin, OperationNodeTransformer, PostgresAdapter, RawNode,
  type SelectQueryBuilder, type ValueNode, sql, CompiledQuery as Compiled,
} from 'kysely';
import type { DB } from './schema.ts';
import type { Keyset } from '../http/pagination.ts';

export const PER_NODE_UNION_MAX = 64;

export interface SubtreeScope {
  accountId: string;
  /** Node ids of the subtree. */
  nodes: string[];
  /** True when the subtree is the whole account (the key is bound to the root). */
  wholeAccount: boolean;
  /** How many nodes the account has, when known: lets a large subtree use the filtered account scan. */
  accountNodes?: number;
}

/** Which rows a page may come from; the caller turns it into where-clauses on its own table. */
export type NodeFilter =
  | { kind: 'account'; accountId: string }
  | { kind: 'account-nodes'; accountId: string; nodes: string[] }
  | { kind: 'node'; nodeId: string };

export type SubtreeShape = 'account' | 'account-nodes' | 'node' | 'per-node';

// The builder's table and row types vary per caller; only the keyset columns matter here.
type AnyQuery<O> = SelectQueryBuilder<DB, any, O>;
type Base<O> = (filter: NodeFilter) => AnyQuery<O>;

/** The shape subtreePage uses for a scope (see the header). */
export function subtreeShape(scope: SubtreeScope): SubtreeShape {
  if (scope.wholeAccount) return 'account';
  const n = scope.nodes.length;
  if (n === 1) return 'node';
  if (n > PER_NODE_UNION_MAX) return 'account-nodes';
  if (scope.accountNodes !== undefined && n * n >= scope.accountNodes) return 'account-nodes';
  return 'per-node';
}

export async function subtreePage<O>(
  db: Kysely<DB>,
  scope: SubtreeScope,
  after: Keyset | null,
  limit: number,
  timeColumn: string,
  base: Base<O>,
): Promise<O[]> {
  return (await db.executeQuery(subtreePageQuery(db, scope, after, limit, timeColumn, base))).rows;
}

/** The compiled page query (limit + 1 rows) of a scope; `shape` overrides the choice (benchmarks print each). */
export function subtreePageQuery<O>(
  db: Kysely<DB>,
  scope: SubtreeScope,
  after: Keyset | null,
  limit: number,
  timeColumn: string,
  base: Base<O>,
  shape: SubtreeShape = subtreeShape(scope),
): CompiledQuery<O> {
  const time = sql.ref(timeColumn);
  const page = (query: AnyQuery<O>): AnyQuery<O> => {
    const q = after ? query.where(sql<boolean>`(${time}, id) < (${after.time}, ${after.id})`) : query;
    return q.orderBy(time, 'desc').orderBy('id', 'desc').limit(limit + 1);
  };
  if (shape === 'account') return page(base({ kind: 'account', accountId: scope.accountId })).compile();
  if (shape === 'account-nodes') return page(base({ kind: 'account-nodes', accountId: scope.accountId, nodes: scope.nodes })).compile();
  if (scope.nodes.length === 1) return page(base({ kind: 'node', nodeId: scope.nodes[0]! })).compile();
  const perNode = db.getExecutor().adapter instanceof PostgresAdapter ? lateralJoin : repeatedUnion;
  return perNode(db, scope.nodes, limit, timeColumn, (nodeId) => page(base({ kind: 'node', nodeId })))
    ?? unionOfArms(db, scope.nodes, limit, timeColumn, (nodeId) => page(base({ kind: 'node', nodeId })));
}

// Stands for "the node of this arm" while an arm is built once for every node.
const NODE_SLOT = '\u0000subtree-node\u0000';

type Arm<O> = (nodeId: string) => AnyQuery<O>;

/** PostgreSQL: the arm runs once per element of unnest(nodes), its node taken from the join. */
function lateralJoin<O>(db: Kysely<DB>, nodes: string[], limit: number, timeColumn: string, arm: Arm<O>): CompiledQuery<O> | null {
  const query = sql<O>`select p.* from unnest(${nodes}::text[]) as subtree_nodes(node_id)
    cross join lateral (${arm(NODE_SLOT).withPlugin(nodeSlotToColumn)}) as p
    order by ${sql.ref(`p.${timeColumn}`)} desc, p.id desc limit ${limit + 1}`.compile(db);
  // A base that does not bind the node as a plain value cannot be lifted into the join.
  return query.parameters.includes(NODE_SLOT) || !query.sql.includes('"subtree_nodes"."node_id"') ? null : query;
}

/** SQLite: one compiled arm, repeated per node with the node bound in its place (placeholders are positional). */
function repeatedUnion<O>(db: Kysely<DB>, nodes: string[], limit: number, timeColumn: string, arm: Arm<O>): CompiledQuery<O> | null {
  const one = arm(NODE_SLOT).compile();
  if (!one.parameters.includes(NODE_SLOT)) return null;
  const order = sql`${sql.ref(timeColumn)} desc, ${sql.ref('id')} desc`.compile(db).sql;
  const text = nodes.map(() => `select * from (${one.sql})`).join(' union all ') + ` order by ${order} limit ?`;
  const parameters: unknown[] = [];
  for (const node of nodes) for (const p of one.parameters) parameters.push(p === NODE_SLOT ? node : p);
  parameters.push(limit + 1);
  return Compiled.raw(text, parameters) as CompiledQuery<O>;
}

/** Any dialect, any base: a UNION ALL of separately built arms (slower to build and plan). */
function unionOfArms<O>(db: Kysely<DB>, nodes: string[], limit: number, timeColumn: string, arm: Arm<O>): CompiledQuery<O> {
  const time = sql.ref(timeColumn);
  const parts = nodes.map((nodeId, i) => db.selectFrom(arm(nodeId).as(`n${i}`)).selectAll() as AnyQuery<O>);
  let union = parts[0]!;
  for (const part of parts.slice(1)) union = union.unionAll(part);
  return union.orderBy(time, 'desc').orderBy('id', 'desc').limit(limit + 1).compile();
}

// Replaces the arm's node value by a reference to the LATERAL join's node column.
class NodeSlotToColumn extends OperationNodeTransformer {
  protected override transformValue(node: ValueNode): ValueNode {
    return node.value === NODE_SLOT ? (RawNode.createWithSql('"subtree_nodes"."node_id"') as unknown as ValueNode) : super.transformValue(node);
  }
}

const nodeSlotToColumn: KyselyPlugin = {
  transformQuery: (args) => new NodeSlotToColumn().transformNode(args.node),
  transformResult: async (args) => args.result,
};

/** The account's node count (SubtreeScope.accountNodes): one count over the nodes_account index. */
export async function accountNodeCount(db: Kysely<DB>, accountId: string): Promise<number> {
  const row = await db.selectFrom('nodes').select((eb) => eb.fn.countAll<number>().as('n')).where('account_id', '=', accountId).executeTakeFirst();
  return Number(row?.n ?? 0);
}
