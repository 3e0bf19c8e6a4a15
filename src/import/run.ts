// The importer behind `repute import`: reads NDJSON line by line, sends reviews through the bulk path
// in batches and other records through their services, rejects bad lines (number and reason) and
// goes on, and returns what it created, updated and rejected.
import { createInterface } from 'node:readline';
import type { Readable } from 'node:stream';
import type { Database } from '../db/connect.ts';
import { DomainError } from '../lib/errors.ts';
import { requireAccount } from '../modules/accounts/service.ts';
import { upsertReviewsBulk } from '../modules/reviews/bulk.ts';
import { storesFor } from '../stores.ts';
import type { ReviewInput } from '../modules/reviews/schemas.ts';
import { LineError, RECORD_TYPES, type RecordType, parseLine, validateBody } from './format.ts';
import { emptyRefs, importRecord } from './records.ts';

export type Counts = Record<RecordType, number>;

export interface ImportSummary {
  /** Non-blank lines read. */
  lines: number;
  created: Counts;
  updated: Counts;
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
  const summary: ImportSummary = { lines: 0, created: zero(), updated: zero(), rejected: { ...zero(), invalid: 0 }, rejected_lines: [] };
  const refs = emptyRefs();
  const bulk = { db: database.db, reviews: storesFor(database).reviews };
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

  let batch: { accountId: string; lines: number[]; inputs: ReviewInput[] } | null = null;
  const flushReviews = async () => {
    if (!batch) return;
    const { lines, inputs, accountId } = batch;
    batch = null;
    const outcomes = await upsertReviewsBulk(bulk, accountId, inputs);
    outcomes.forEach((outcome, i) => {
      if (outcome.status === 'rejected') reject(lines[i]!, 'review', outcome.error);
      else summary[outcome.status].review += 1;
    });
    options.onProgress?.({ lines: summary.lines, bytes });
  };

  const reader = createInterface({ input, crlfDelay: Infinity });
  let lineNo = 0;
  for await (const text of reader) {
    lineNo += 1;
    if (text.trim() === '') continue;
    summary.lines += 1;
    let type: RecordType | 'invalid' = 'invalid';
    try {
      const line = parseLine(text);
      type = line.type;
      if (line.accountId !== null && !(await accountExists(line.accountId))) throw new LineError(`account_id ${line.accountId} names no account`);
      if (line.type === 'review') {
        const review = validateBody<ReviewInput>('review', line.body);
        if (batch && (batch.accountId !== line.accountId || batch.inputs.length >= batchSize)) await flushReviews();
        batch ??= { accountId: line.accountId!, lines: [], inputs: [] };
        batch.lines.push(lineNo);
        batch.inputs.push(review);
        continue;
      }
      // Later lines may refer to reviews of this file: write the pending ones first, in file order.
      await flushReviews();
      await importRecord(database.db, refs, line, lineNo);
      summary.created[line.type] += 1;
      if (summary.lines % 1000 === 0) options.onProgress?.({ lines: summary.lines, bytes });
    } catch (error) {
      if (!(error instanceof LineError)) throw error;
      reject(lineNo, error.type ?? type, error.message);
    }
  }
  await flushReviews();
  options.onProgress?.({ lines: summary.lines, bytes });
  return summary;
}
