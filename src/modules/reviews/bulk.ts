// Bulk review upsert (imports, demo): upsertReview's rules for a batch in ONE transaction, with the
// batch's own SQL in the ReviewBulkStore (store-sqlite.ts: per-row prepared statements;
// store-postgres.ts: multi-row statements).
// review_stats and review_monthly_stats deltas are summed in memory and applied once per key; review.received
// and review.alert_triggered go to the outbox in one multi-row append; alert rules load once.
import type { Kysely } from 'kysely';
import type { DB, ReviewRow } from '../../db/schema.ts';
import { inTransaction } from '../../db/transaction.ts';
import { appendEvents, type NewEvent } from '../../events/outbox.ts';
import { newId } from '../../lib/ids.ts';
import { changeStamp } from '../../db/change-stamp.ts';
import { accountLineages, notAccountNode } from '../nodes/service.ts';
import { ruleMatches, toAlertRule } from './alerts.ts';
import { applyStatsMany, type KeyedDelta, listAlertRules, monthlyContribution, monthOf, moveNodeCopies, type Planned, type QueuedReview, type ReviewBulkStore } from './repository.ts';
import type { ReviewInput } from './schemas.ts';
import { needsExtraction, queueForExtraction, reviewFields, toReview } from './service.ts';

export type BulkOutcome =
  | { status: 'created'; id: string }
  | { status: 'updated'; id: string }
  | { status: 'rejected'; error: string };

/** What the bulk path needs: the database and its bulk store (src/context.ts, or storesFor). */
export interface BulkContext {
  db: Kysely<DB>;
  reviews: ReviewBulkStore;
}

/**
 * Creates or updates in place by (account, platform, external_id), like upsertReview, for many reviews
 * of one account in one transaction. Inputs must already be schema-valid. A review whose node is not
 * the account's is rejected; if the database refuses the batch for a data reason, each review is
 * retried alone so only the offending ones are rejected. Connection errors are thrown.
 */
export async function upsertReviewsBulk(ctx: BulkContext, accountId: string, inputs: readonly ReviewInput[]): Promise<BulkOutcome[]> {
  try {
    return await runBatch(ctx, accountId, inputs);
  } catch (error) {
    if (!isDataError(error)) throw error;
    if (inputs.length === 1) return [{ status: 'rejected', error: dataErrorMessage(error) }];
    const outcomes: BulkOutcome[] = [];
    for (const input of inputs) outcomes.push((await upsertReviewsBulk(ctx, accountId, [input]))[0]!);
    return outcomes;
  }
}

async function runBatch(ctx: BulkContext, accountId: string, inputs: readonly ReviewInput[]): Promise<BulkOutcome[]> {
  const outcomes: BulkOutcome[] = new Array(inputs.length);
  return inTransaction(ctx.db, async (trx) => {
    const nodes = await accountLineages(trx, accountId);
    const now = await changeStamp(trx);
    // A key seen twice in one batch: the later line updates what the earlier one wrote, so runs are split there.
    let run: Planned[] = [];
    let keys = new Set<string>();
    const created: ReviewRow[] = [];
    const toRead: QueuedReview[] = [];
    const stats: KeyedDelta[] = [];
    const flush = async () => {
      if (run.length === 0) return;
      const written = await ctx.reviews.writeRun(trx, accountId, run);
      for (const w of written) {
        outcomes[w.index] = { status: w.old ? 'updated' : 'created', id: w.row.id };
        if (needsExtraction(w.old, w.row)) toRead.push({ id: w.row.id, created: w.old === null });
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
        outcomes[index] = { status: 'rejected', error: notAccountNode() };
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

    await queueForExtraction(trx, accountId, toRead, now, ctx.reviews.queueRows);
    await applyStatsMany(trx, stats);
    const events: NewEvent[] = [];
    if (created.length > 0) {
      const rules = (await listAlertRules(trx, accountId)).map(toAlertRule);
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
    await appendEvents(trx, events, ctx.reviews.eventRows);
    return outcomes;
  });
}

function addStats(stats: KeyedDelta[], row: ReviewRow, sign: 1 | -1): void {
  stats.push({ node_id: row.node_id, platform: row.platform, month: monthOf(row), ...monthlyContribution(row, sign) });
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
