// Periodic passes that exactly one worker runs (the daily recommendation pass, the retention pass):
// the time of each pass's last run is kept in `insight_runs` (named before it served more than
// insights), and a worker runs the pass only if its atomic update of that time succeeds.
import type { Kysely } from 'kysely';
import type { DB } from './schema.ts';

/**
 * Claims the pass `name` at `now`: true for exactly one caller per `everyMs` across every worker (the
 * first run's insert, or an update of the last run's time that only matches once it is `everyMs` old).
 */
export async function claimDailyRun(db: Kysely<DB>, name: string, now: Date, everyMs: number): Promise<boolean> {
  const at = now.toISOString();
  const inserted = await db.insertInto('insight_runs').values({ name, last_run_at: at })
    .onConflict((oc) => oc.column('name').doNothing()).executeTakeFirst();
  if (Number(inserted.numInsertedOrUpdatedRows ?? 0) > 0) return true;
  const updated = await db.updateTable('insight_runs').set({ last_run_at: at })
    .where('name', '=', name).where('last_run_at', '<=', new Date(now.getTime() - everyMs).toISOString()).executeTakeFirst();
  return Number(updated.numUpdatedRows) > 0;
}
