// The worker's claim and result statements on PostgreSQL reach the deliveries they touch through the
// primary key, whatever plan PostgreSQL makes for the values at hand (its first five executions of
// a named statement are planned for their values). The deliveries table keeps every delivery ever
// made, so a plan that reads it whole (a hash join over a sequential scan) costs more with every day.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { CLAIM, RECORD, RELEASE } from '../../src/delivery/store-postgres.ts';
import { dialects, freshDatabase, poolOf } from '../support/app.ts';

interface PlanNode {
  'Node Type': string;
  'Relation Name'?: string;
  Plans?: PlanNode[];
}

/** Every table a plan reads from start to end (a sequential scan). */
function scannedWhole(node: PlanNode, found: string[] = []): string[] {
  if (node['Node Type'] === 'Seq Scan' && node['Relation Name']) found.push(node['Relation Name']);
  for (const child of node.Plans ?? []) scannedWhole(child, found);
  return found;
}

for (const dialect of dialects.filter((d) => d === 'postgres')) {
  test('claiming, recording and giving back deliveries never reads the whole deliveries table, on a table of 20,000 deliveries', async () => {
    const target = await freshDatabase(dialect);
    const pool = poolOf(target.database);
    try {
      const now = '2026-11-01T10:00:00.000Z';
      await pool.query(`insert into accounts (id, name, plan_features, created_at) values ('a1', 'Hotels', '["webhooks"]', $1)`, [now]);
      await pool.query(`insert into webhook_endpoints (id, account_id, name, url, events, is_active, secret_enc, created_at, updated_at)
        values ('w1', 'a1', 'Ops', 'http://127.0.0.1:9/hook', '["review.received"]', 1, 'sealed', $1, $1)`, [now]);
      await pool.query(`insert into events (id, account_id, type, payload, created_at)
        select 'e' || g, 'a1', 'review.received', '{}', $1 from generate_series(1, 20000) g`, [now]);
      // 10,000 delivered long ago, 10,000 due now (a backlog).
      await pool.query(`insert into webhook_deliveries (id, account_id, endpoint_id, event_id, event_type, status, attempt_count, next_attempt_at, created_at)
        select 'd' || lpad(g::text, 5, '0'), 'a1', 'w1', 'e' || g, 'review.received', case when g <= 10000 then 'delivered' else 'pending' end,
          case when g <= 10000 then 1 else 0 end, $1, $1
        from generate_series(1, 20000) g`, [now]);
      await pool.query('analyze webhook_deliveries');
      await pool.query('analyze events');

      const plan = async (text: string, values: unknown[]) => {
        const { rows } = await pool.query<{ 'QUERY PLAN': Array<{ Plan: PlanNode }> }>({ text: `explain (format json) ${text}`, values });
        return rows[0]!['QUERY PLAN'][0]!.Plan;
      };
      const later = '2026-11-02T10:00:00.000Z';
      // The worker's values: no endpoint in hand, 384 per endpoint, 1,536 in all.
      const claim = await plan(CLAIM, [[], [], [], later, later, 384, 1536, '2026-11-02T10:01:00.000Z', 'owner-1']);
      assert.deepEqual(scannedWhole(claim).filter((t) => t === 'webhook_deliveries'), [], 'the claim reads webhook_deliveries through its indexes only');

      const ids = Array.from({ length: 280 }, (_, i) => `d${String(10001 + i).padStart(5, '0')}`);
      const each = <T>(value: T) => ids.map(() => value);
      const record = await plan(RECORD, [ids, each('owner-1'), each('delivered'), each(200), each(later), each(later),
        ids.map((id) => `att-${id}`), each(12), each(null), each('ok')]);
      assert.deepEqual(scannedWhole(record).filter((t) => t === 'webhook_deliveries'), [], 'the write of results reads webhook_deliveries through its indexes only');

      const release = await plan(RELEASE, [ids, each('owner-1'), later]);
      assert.deepEqual(scannedWhole(release).filter((t) => t === 'webhook_deliveries'), [], 'giving deliveries back reads webhook_deliveries through its indexes only');
    } finally {
      await target.drop();
    }
  });
}
