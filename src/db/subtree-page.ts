// Keyset pages over a node subtree, newest first on (time, id) (or oldest first: sync lists), never OFFSET. The query shape is
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
  type CompiledQuery, type Kysely, type KyselyPlugin, OperationNodeTransformer, RawNode,
  type SelectQueryBuilder, type ValueNode, sql, CompiledQuery as Compiled,
} from 'kysely';
import { isPostgres } from './adapter.ts';
import type { DB } from './schema.ts';
import type { Keyset } from './keyset.ts';
import { rowsOf } from './direct-statement.ts';

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

/** The where-clauses of a filter on a table with account_id and node_id columns (every paged table). */
// biome-ignore lint/suspicious/noExplicitAny: any query builder whose where() returns its own type
export function whereNodeFilter<Q extends { where: (...args: any[]) => Q }>(query: Q, filter: NodeFilter): Q {
  switch (filter.kind) {
    case 'account': return query.where('account_id', '=', filter.accountId);
    case 'account-nodes': return query.where('account_id', '=', filter.accountId).where('node_id', 'in', filter.nodes);
    case 'node': return query.where('node_id', '=', filter.nodeId);
  }
}

// The builder's table and row types vary per caller; only the keyset columns matter here.
// biome-ignore lint/suspicious/noExplicitAny: the table set is the caller's; no narrower type accepts every caller's
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

/** 'desc': newest first, pages continue below the cursor; 'asc': oldest first (sync order), above it. */
export type PageOrder = 'desc' | 'asc';

export async function subtreePage<O>(
  db: Kysely<DB>,
  scope: SubtreeScope,
  after: Keyset | null,
  limit: number,
  timeColumn: string,
  base: Base<O>,
  order: PageOrder = 'desc',
  template?: string,
): Promise<O[]> {
  return rowsOf(db, subtreePageQuery(db, scope, after, limit, timeColumn, base, undefined, template, order));
}

/**
 * The compiled page query (limit + 1 rows) of a scope; `shape` overrides the choice (benchmarks print
 * each). With a `template` name, the SQL is built once per shape, node count, cursor presence and
 * limit and later calls only bind their values (no query builder on the hot path). Pass one only when
 * `base` depends on nothing but the filter it is given (no other captured values).
 */
export function subtreePageQuery<O>(
  db: Kysely<DB>,
  scope: SubtreeScope,
  after: Keyset | null,
  limit: number,
  timeColumn: string,
  base: Base<O>,
  shape: SubtreeShape = subtreeShape(scope),
  template?: string,
  order: PageOrder = 'desc',
): CompiledQuery<O> {
  if (template === undefined || order !== 'desc') return buildPageQuery(db, scope, after, limit, timeColumn, base, shape, order);
  const dialect = isPostgres(db) ? 'pg' : 'sqlite';
  const key = `${template}|${dialect}|${timeColumn}|${shape}|${scope.nodes.length}|${after ? 1 : 0}|${limit}`;
  if (after === null) {
    // A first page has no value but the scope's: the same scope object (a principal's) gets the same query.
    let pages = firstPages.get(scope);
    const known = pages?.get(key);
    if (known !== undefined) return known as CompiledQuery<O>;
    const query = filledTemplate(db, scope, null, limit, timeColumn, base, shape, key);
    if (pages === undefined) {
      pages = new Map();
      firstPages.set(scope, pages);
    }
    pages.set(key, query);
    return query;
  }
  return filledTemplate(db, scope, after, limit, timeColumn, base, shape, key);
}

/** The query of a page from its template (built on first use), with this call's values bound. */
function filledTemplate<O>(
  db: Kysely<DB>, scope: SubtreeScope, after: Keyset | null, limit: number, timeColumn: string, base: Base<O>, shape: SubtreeShape, key: string,
): CompiledQuery<O> {
  let t = templates.get(key);
  if (t === undefined) {
    t = makeTemplate(db, scope, after !== null, limit, timeColumn, base, shape);
    if (templates.size >= 1000) templates.delete(templates.keys().next().value!);
    templates.set(key, t);
  }
  if (t === null) return buildPageQuery(db, scope, after, limit, timeColumn, base, shape);
  const parameters = t.parameters.slice();
  for (const { index, value } of t.fills) {
    parameters[index] = value === 'account' ? scope.accountId : value === 'time' ? after!.time : value === 'id' ? after!.id
      : value === 'nodes' ? scope.nodes : scope.nodes[value]!;
  }
  return Compiled.raw(t.sql, parameters) as CompiledQuery<O>;
}

// Slot values stand for the scope's values while a template is built; a NUL never occurs in real ids.
const ACCOUNT_SLOT = '\u0000account\u0000';
const TIME_SLOT = '\u0000after-time\u0000';
const ID_SLOT = '\u0000after-id\u0000';
const nodeSlot = (i: number) => `\u0000node ${i}\u0000`;

interface Template {
  sql: string;
  parameters: readonly unknown[];
  /** Which parameter takes which value of the call: the account, the cursor, the node list or node i. */
  fills: { index: number; value: 'account' | 'time' | 'id' | 'nodes' | number }[];
}

const templates = new Map<string, Template | null>();
/** First pages' queries per scope object, by template key; a scope that is no longer used takes its own with it. */
const firstPages = new WeakMap<SubtreeScope, Map<string, CompiledQuery<unknown>>>();

/** Builds the query with slots for every value of the scope; null when some value did not end up as a parameter of its own. */
function makeTemplate<O>(
  db: Kysely<DB>, scope: SubtreeScope, hasAfter: boolean, limit: number, timeColumn: string, base: Base<O>, shape: SubtreeShape,
): Template | null {
  const nodes = scope.nodes.map((_, i) => nodeSlot(i));
  const slotted: SubtreeScope = { ...scope, accountId: ACCOUNT_SLOT, nodes };
  const query = buildPageQuery(db, slotted, hasAfter ? { time: TIME_SLOT, id: ID_SLOT } : null, limit, timeColumn, base, shape);
  if (query.sql.includes('\u0000')) return null;
  const fills: Template['fills'] = [];
  let stray = false;
  query.parameters.forEach((p, index) => {
    if (p === nodes) fills.push({ index, value: 'nodes' });
    else if (p === ACCOUNT_SLOT) fills.push({ index, value: 'account' });
    else if (p === TIME_SLOT) fills.push({ index, value: 'time' });
    else if (p === ID_SLOT) fills.push({ index, value: 'id' });
    else if (typeof p === 'string' && p.startsWith('\u0000node ')) fills.push({ index, value: Number(p.slice(6, -1)) });
    else if (typeof p === 'string' && p.includes('\u0000')) stray = true;
  });
  // Every value the shape needs must be bound somewhere, and nothing else may carry a slot.
  const has = (value: Template['fills'][number]['value']) => fills.some((f) => f.value === value);
  const needsAccount = shape === 'account' || shape === 'account-nodes';
  const nodesBound = has('nodes') || nodes.every((_, i) => has(i));
  if (stray || (needsAccount && !has('account')) || (shape !== 'account' && !nodesBound)
    || (hasAfter && !(has('time') && has('id')))) return null;
  return { sql: query.sql, parameters: query.parameters, fills };
}

function buildPageQuery<O>(
  db: Kysely<DB>, scope: SubtreeScope, after: Keyset | null, limit: number, timeColumn: string, base: Base<O>, shape: SubtreeShape,
  order: PageOrder = 'desc',
): CompiledQuery<O> {
  const time = sql.ref(timeColumn);
  const page = (query: AnyQuery<O>): AnyQuery<O> => {
    const q = after === null ? query : order === 'desc'
      ? query.where(sql<boolean>`(${time}, id) < (${after.time}, ${after.id})`)
      : query.where(sql<boolean>`(${time}, id) > (${after.time}, ${after.id})`);
    return q.orderBy(time, order).orderBy('id', order).limit(limit + 1);
  };
  if (shape === 'account') return page(base({ kind: 'account', accountId: scope.accountId })).compile();
  if (shape === 'account-nodes') return page(base({ kind: 'account-nodes', accountId: scope.accountId, nodes: scope.nodes })).compile();
  if (scope.nodes.length === 1) return page(base({ kind: 'node', nodeId: scope.nodes[0]! })).compile();
  const perNode = isPostgres(db) ? lateralJoin : repeatedUnion;
  return perNode(db, scope.nodes, limit, timeColumn, (nodeId) => page(base({ kind: 'node', nodeId })), order)
    ?? unionOfArms(db, scope.nodes, limit, timeColumn, (nodeId) => page(base({ kind: 'node', nodeId })), order);
}

// Stands for "the node of this arm" while an arm is built once for every node.
const NODE_SLOT = '\u0000subtree-node\u0000';

type Arm<O> = (nodeId: string) => AnyQuery<O>;

/** PostgreSQL: the arm runs once per element of unnest(nodes), its node taken from the join. */
function lateralJoin<O>(db: Kysely<DB>, nodes: string[], limit: number, timeColumn: string, arm: Arm<O>, order: PageOrder): CompiledQuery<O> | null {
  const dir = sql.raw(order);
  const query = sql<O>`select p.* from unnest(${nodes}::text[]) as subtree_nodes(node_id)
    cross join lateral (${arm(NODE_SLOT).withPlugin(nodeSlotToColumn)}) as p
    order by ${sql.ref(`p.${timeColumn}`)} ${dir}, p.id ${dir} limit ${limit + 1}`.compile(db);
  // A base that does not bind the node as a plain value cannot be lifted into the join.
  return query.parameters.includes(NODE_SLOT) || !query.sql.includes('"subtree_nodes"."node_id"') ? null : query;
}

/** SQLite: one compiled arm, repeated per node with the node bound in its place (placeholders are positional). */
function repeatedUnion<O>(db: Kysely<DB>, nodes: string[], limit: number, timeColumn: string, arm: Arm<O>, order: PageOrder): CompiledQuery<O> | null {
  const one = arm(NODE_SLOT).compile();
  if (!one.parameters.includes(NODE_SLOT)) return null;
  const by = sql`${sql.ref(timeColumn)} ${sql.raw(order)}, ${sql.ref('id')} ${sql.raw(order)}`.compile(db).sql;
  const text = nodes.map(() => `select * from (${one.sql})`).join(' union all ') + ` order by ${by} limit ?`;
  const parameters: unknown[] = [];
  for (const node of nodes) for (const p of one.parameters) parameters.push(p === NODE_SLOT ? node : p);
  parameters.push(limit + 1);
  return Compiled.raw(text, parameters) as CompiledQuery<O>;
}

/** Any dialect, any base: a UNION ALL of separately built arms (slower to build and plan). */
function unionOfArms<O>(db: Kysely<DB>, nodes: string[], limit: number, timeColumn: string, arm: Arm<O>, order: PageOrder): CompiledQuery<O> {
  const time = sql.ref(timeColumn);
  const parts = nodes.map((nodeId, i) => db.selectFrom(arm(nodeId).as(`n${i}`)).selectAll() as AnyQuery<O>);
  let union = parts[0]!;
  for (const part of parts.slice(1)) union = union.unionAll(part);
  return union.orderBy(time, order).orderBy('id', order).limit(limit + 1).compile();
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
