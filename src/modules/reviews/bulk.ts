// Bulk review upsert (imports, demo): upsertReview's rules for a batch in ONE transaction, with the
// batch's own SQL: per-row prepared statements on SQLite, multi-row statements on PostgreSQL.
// review_stats deltas are summed in memory and applied once per (node, platform); review.received
// and review.alert_triggered go to the outbox in one multi-row append; alert rules load once.
import type { Statement } from 'better-sqlite3';
import { type Kysely, sql } from 'kysely';
import type { Database } from '../../db/connect.ts';
import type { DB, ReviewRow } from '../../db/schema.ts';
import { appendEvents, type NewEvent } from '../../events/outbox.ts';
import { newId } from '../../lib/ids.ts';
import { nowIso } from '../../lib/time.ts';
import { ruleMatches, toAlertRule } from './alerts.ts';
import { applyStatsMany, contribution, moveNodeCopies, type StatsDelta } from './repository.ts';
import type { ReviewInput } from './schemas.ts';
import { reviewFields, toReview } from './service.ts';

export type BulkOutcome =
  | { status: 'created'; id: string }
  | { status: 'updated'; id: string }
  | { status: 'rejected'; error: string };

export interface BulkResult {
  outcomes: BulkOutcome[];
  /** Events appended (call ctx.outbox.notify() when > 0 and a worker runs in this process). */
  events: number;
}

const COLUMNS = [
  'id', 'account_id', 'node_id', 'platform', 'external_id', 'author', 'rating', 'rating_normalized', 'title', 'text',
  'url', 'language', 'sentiment', 'owner_reply', 'replied_at', 'reviewed_at', 'is_hidden', 'recommend', 'created_at', 'updated_at',
] as const satisfies ReadonlyArray<keyof ReviewRow>;
const FIELD_COLUMNS = COLUMNS.filter((c) => !['id', 'account_id', 'platform', 'external_id', 'created_at'].includes(c));

const NODE_REJECTION = 'node_id must be a node of this account';

/**
 * Creates or updates in place by (account, platform, external_id), like upsertReview, for many reviews
 * of one account in one transaction. Inputs must already be schema-valid. A review whose node is not
 * the account's is rejected; if the database refuses the batch for a data reason, each review is
 * retried alone so only the offending ones are rejected. Connection errors are thrown.
 */
export async function upsertReviewsBulk(database: Database, accountId: string, inputs: readonly ReviewInput[]): Promise<BulkResult> {
  try {
    return await runBatch(database, accountId, inputs);
  } catch (error) {
    if (!isDataError(error)) throw error;
    if (inputs.length === 1) return { outcomes: [{ status: 'rejected', error: dataErrorMessage(error) }], events: 0 };
    const result: BulkResult = { outcomes: [], events: 0 };
    for (const input of inputs) {
      const one = await upsertReviewsBulk(database, accountId, [input]);
      result.outcomes.push(one.outcomes[0]!);
      result.events += one.events;
    }
    return result;
  }
}

interface Planned {
  index: number;
  row: ReviewRow;
}

async function runBatch(database: Database, accountId: string, inputs: readonly ReviewInput[]): Promise<BulkResult> {
  const outcomes: BulkOutcome[] = new Array(inputs.length);
  return database.db.transaction().execute(async (trx) => {
    const nodes = new Map((await trx.selectFrom('nodes').select(['id', 'path']).where('account_id', '=', accountId).execute())
      .map((n) => [n.id, n.path.split('/').filter(Boolean)]));
    const now = nowIso();
    // A key seen twice in one batch: the later line updates what the earlier one wrote, so runs are split there.
    let run: Planned[] = [];
    let keys = new Set<string>();
    const created: ReviewRow[] = [];
    const stats = new Map<string, StatsDelta & { node_id: string; platform: string }>();
    const flush = async () => {
      if (run.length === 0) return;
      const written = database.sqlite ? writeSqlite(database.sqlite, run) : await writePostgres(trx, accountId, run);
      for (const w of written) {
        outcomes[w.index] = { status: w.old ? 'updated' : 'created', id: w.row.id };
        if (w.old) addStats(stats, w.old, -1);
        else created.push(w.row);
        if (w.old && w.old.node_id !== w.row.node_id) await moveNodeCopies(trx, w.row.id, w.row.node_id);
        addStats(stats, w.row, 1);
      }
      run = [];
      keys = new Set();
    };
    for (const [index, input] of inputs.entries()) {
      if (!nodes.has(input.node_id)) {
        outcomes[index] = { status: 'rejected', error: NODE_REJECTION };
        continue;
      }
      const key = `${input.platform}\u0000${input.external_id}`;
      if (keys.has(key)) await flush();
      keys.add(key);
      run.push({
        index,
        row: { id: newId(), account_id: accountId, platform: input.platform, external_id: input.external_id, created_at: now, ...reviewFields(input, input.node_id, now) },
      });
    }
    await flush();

    await applyStatsMany(trx, [...stats.values()]);
    const events: NewEvent[] = [];
    if (created.length > 0) {
      const rules = (await trx.selectFrom('alert_rules').selectAll().where('account_id', '=', accountId).execute()).map(toAlertRule);
      for (const row of created) {
        const review = toReview(row);
        events.push({ accountId, type: 'review.received', data: { review } });
        const ancestors = nodes.get(row.node_id)!;
        for (const rule of rules) {
          if (ancestors.includes(rule.node_id) && ruleMatches(rule, row)) {
            events.push({ accountId, type: 'review.alert_triggered', data: { review, alert_rule_id: rule.id } });
          }
        }
      }
    }
    await appendEvents(trx, events, database.sqlite);
    return { outcomes, events: events.length };
  });
}

function addStats(stats: Map<string, StatsDelta & { node_id: string; platform: string }>, row: ReviewRow, sign: 1 | -1): void {
  const key = `${row.node_id}\u0000${row.platform}`;
  const delta = contribution(row, sign);
  const sum = stats.get(key);
  if (!sum) {
    stats.set(key, { node_id: row.node_id, platform: row.platform, ...delta });
    return;
  }
  for (const field of Object.keys(delta) as Array<keyof StatsDelta>) sum[field] += delta[field];
}

interface Written {
  index: number;
  row: ReviewRow;
  /** The row before this write, when it already existed. */
  old: ReviewRow | null;
}

// ---- SQLite: prepared statements on the raw handle, inside Kysely's transaction on the same connection.

interface SqliteStatements {
  insert: Statement;
  find: Statement;
  update: Statement;
}
const prepared = new WeakMap<object, SqliteStatements>();

function statements(sqlite: NonNullable<Database['sqlite']>): SqliteStatements {
  let s = prepared.get(sqlite);
  if (!s) {
    s = {
      insert: sqlite.prepare(`INSERT INTO reviews (${COLUMNS.join(', ')}) VALUES (${COLUMNS.map(() => '?').join(', ')})
        ON CONFLICT (account_id, platform, external_id) DO NOTHING`),
      find: sqlite.prepare('SELECT * FROM reviews WHERE account_id = ? AND platform = ? AND external_id = ?'),
      update: sqlite.prepare(`UPDATE reviews SET ${FIELD_COLUMNS.map((c) => `${c} = ?`).join(', ')} WHERE id = ?`),
    };
    prepared.set(sqlite, s);
  }
  return s;
}

function writeSqlite(sqlite: NonNullable<Database['sqlite']>, run: Planned[]): Written[] {
  const s = statements(sqlite);
  return run.map(({ index, row }) => {
    if (s.insert.run(COLUMNS.map((c) => row[c])).changes === 1) return { index, row, old: null };
    const old = s.find.get(row.account_id, row.platform, row.external_id) as ReviewRow;
    const updated: ReviewRow = { ...row, id: old.id, created_at: old.created_at };
    s.update.run([...FIELD_COLUMNS.map((c) => updated[c]), old.id]);
    return { index, row: updated, old };
  });
}

// ---- PostgreSQL: multi-row INSERT … ON CONFLICT DO NOTHING RETURNING; the rows it skipped exist, so they
// are read (locked) for their old values and updated with one multi-row upsert.

const CHUNK = 1000;

async function writePostgres(trx: Kysely<DB>, accountId: string, run: Planned[]): Promise<Written[]> {
  const inserted = new Set<string>();
  for (let i = 0; i < run.length; i += CHUNK) {
    const rows = await trx.insertInto('reviews').values(run.slice(i, i + CHUNK).map((p) => p.row))
      .onConflict((oc) => oc.columns(['account_id', 'platform', 'external_id']).doNothing())
      .returning('id').execute();
    for (const r of rows) inserted.add(r.id);
  }
  const existing = run.filter((p) => !inserted.has(p.row.id));
  const olds = new Map<string, ReviewRow>();
  for (let i = 0; i < existing.length; i += CHUNK) {
    const chunk = existing.slice(i, i + CHUNK);
    const rows = await trx.selectFrom('reviews').selectAll().where('account_id', '=', accountId)
      .where((eb) => eb(eb.refTuple('platform', 'external_id'), 'in', chunk.map((p) => eb.tuple(p.row.platform, p.row.external_id))))
      .forUpdate().execute();
    for (const r of rows) olds.set(`${r.platform}\u0000${r.external_id}`, r);
    await trx.insertInto('reviews').values(chunk.map((p) => p.row))
      .onConflict((oc) => oc.columns(['account_id', 'platform', 'external_id'])
        .doUpdateSet(Object.fromEntries(FIELD_COLUMNS.map((c) => [c, sql.ref(`excluded.${c}`)]))))
      .execute();
  }
  return run.map(({ index, row }) => {
    if (inserted.has(row.id)) return { index, row, old: null };
    const old = olds.get(`${row.platform}\u0000${row.external_id}`);
    if (!old) throw new Error(`review ${row.platform}/${row.external_id} vanished during the import`);
    return { index, row: { ...row, id: old.id, created_at: old.created_at }, old };
  });
}

// ---- Which database errors are about the data (reject the line) rather than the database (stop).

export function isDataError(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  if (typeof code !== 'string') return false;
  // PostgreSQL SQLSTATE classes 22 (data exception) and 23 (integrity); SQLite constraint/type/size codes.
  return /^2[23]/.test(code) || /^SQLITE_(CONSTRAINT|MISMATCH|TOOBIG|RANGE)/.test(code);
}

function dataErrorMessage(error: unknown): string {
  return `the database refused the review: ${(error as Error).message}`;
}
