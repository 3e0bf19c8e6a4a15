// The importer behind `repute import`: reads NDJSON line by line, sends reviews through the bulk path
// in batches and other records through their services, rejects bad lines (number and reason) and
// goes on, and returns what it created, updated, found already imported and rejected. Each line is
// checked whole before its batch, a batch the database refuses is retried line by line (bulk.ts),
// a write turned away by a busy database waits and runs again (retry.ts), and beside a live server on
// SQLite the import takes turns with it (turns.ts).
import { createInterface } from 'node:readline';
import type { Readable } from 'node:stream';
import type { Database } from '../db/connect.ts';
import { DomainError } from '../lib/errors.ts';
import { nowIso } from '../lib/time.ts';
import { requireAccount } from '../modules/accounts/service.ts';
import { upsertReviewsBulk } from '../modules/reviews/bulk.ts';
import { storesFor } from '../stores.ts';
import type { ReviewInput } from '../modules/reviews/schemas.ts';
import { reviewFields } from '../modules/reviews/service.ts';
import { LineError, type ParsedLine, RECORD_TYPES, type RecordType, parseLine, validateBody } from './format.ts';
import { emptyRefs, importRecord, lineFault } from './records.ts';
import { retryOnContention } from './retry.ts';
import { takeTurns } from './turns.ts';

export type Counts = Record<RecordType, number>;

export interface ImportSummary {
  /** Non-blank lines read. */
  lines: number;
  created: Counts;
  updated: Counts;
  /** Records a previous import had written (same identity): left as they are. Reviews are updated instead. */
  unchanged: Counts;
  /** By type; `invalid` counts lines whose type could not be read. */
  rejected: Counts & { invalid: number };
  /** Line numbers of the first MAX_LISTED rejected lines, in order. */
  rejected_lines: number[];
}

export const MAX_LISTED = 1000;

export interface ImportOptions {
  /** Reviews per transaction (default 1000). */
  batchSize?: number;
  onRejected?: (line: number, reason: string) => void;
  onProgress?: (progress: { lines: number; bytes: number }) => void;
}

const zero = (): Counts => Object.fromEntries(RECORD_TYPES.map((t) => [t, 0])) as Counts;

export function total(counts: Partial<Record<string, number>>): number {
  return Object.values(counts).reduce<number>((a, b) => a + (b ?? 0), 0);
}

export async function importNdjson(database: Database, input: Readable, options: ImportOptions = {}): Promise<ImportSummary> {
  const batchSize = options.batchSize ?? 1000;
  const summary: ImportSummary = { lines: 0, created: zero(), updated: zero(), unchanged: zero(), rejected: { ...zero(), invalid: 0 }, rejected_lines: [] };
  const refs = emptyRefs();
  const accounts = new Map<string, boolean>();
  let bytes = 0;
  input.on('data', (chunk: Buffer | string) => { bytes += chunk.length; });

  const reject = (line: number, type: RecordType | 'invalid', reason: string) => {
    summary.rejected[type] += 1;
    if (summary.rejected_lines.length < MAX_LISTED) summary.rejected_lines.push(line);
    options.onRejected?.(line, reason);
  };
  const accountExists = async (id: string): Promise<boolean> => {
    let known = accounts.get(id);
    if (known === undefined) {
      known = await requireAccount(database.db, id).then(() => true, (error: unknown) => {
        if (error instanceof DomainError) return false;
        throw error;
      });
      accounts.set(id, known);
    }
    return known;
  };

  // Workers in other processes hear of committed events by NOTIFY (PostgreSQL), sent after each commit
  // that wrote some and coalesced while one is in flight (src/db/pg-commits.ts), not at their next poll.
  const progress = () => options.onProgress?.({ lines: summary.lines, bytes });
  const bulk = { db: database.db, reviews: storesFor(database).reviews };
  const inTurn = takeTurns(database);

  let batch: { accountId: string; lines: number[]; inputs: ReviewInput[] } | null = null;
  const flushReviews = async () => {
    if (!batch) return;
    const { lines, inputs, accountId } = batch;
    batch = null;
    const outcomes = await inTurn(() => retryOnContention(() => upsertReviewsBulk(bulk, accountId, inputs)));
    outcomes.forEach((outcome, i) => {
      if (outcome.status === 'rejected') reject(lines[i]!, 'review', outcome.error);
      else summary[outcome.status].review += 1;
    });
    progress();
  };

  const reader = createInterface({ input, crlfDelay: Infinity });
  let lineNo = 0;
  for await (const text of reader) {
    lineNo += 1;
    if (text.trim() === '') continue;
    summary.lines += 1;
    let line: ParsedLine;
    try {
      line = parseLine(text);
      if (line.accountId !== null && !(await accountExists(line.accountId))) throw new LineError(`account_id ${line.accountId} names no account`, line.type);
    } catch (error) {
      if (!(error instanceof LineError)) throw error;
      reject(lineNo, error.type ?? 'invalid', error.message);
      continue;
    }
    if (line.type === 'review') {
      let review: ReviewInput;
      try {
        review = validateBody<ReviewInput>('review', line.body);
        // Converted here as in the batch, so a value that passes the schema but cannot be stored fails its own line only.
        reviewFields(review, review.node_id, nowIso());
      } catch (error) {
        const reason = lineFault(error);
        if (reason === null) throw error;
        reject(lineNo, 'review', reason);
        continue;
      }
      if (batch && (batch.accountId !== line.accountId || batch.inputs.length >= batchSize)) await flushReviews();
      batch ??= { accountId: line.accountId!, lines: [], inputs: [] };
      batch.lines.push(lineNo);
      batch.inputs.push(review);
      continue;
    }
    // Later lines may refer to reviews of this file: write the pending ones first, in file order.
    await flushReviews();
    try {
      const record = line;
      const outcome = await inTurn(() => retryOnContention(() => importRecord(database.db, refs, record, lineNo)));
      summary[outcome][line.type] += 1;
    } catch (error) {
      const reason = lineFault(error);
      if (reason === null) throw error;
      reject(lineNo, line.type, reason);
    }
    if (summary.lines % 1000 === 0) progress();
  }
  await flushReviews();
  progress();
  return summary;
}
