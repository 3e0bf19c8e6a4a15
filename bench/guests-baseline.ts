// bench/guests.ts helpers: the bulk seed of N guests with one stay each, the rows both sides push,
// and the baseline: a raw upsert of guest then stay in one transaction per push through the driver,
// on a connection of its own.
import { performance } from 'node:perf_hooks';
import SQLite from 'better-sqlite3';
import pg from 'pg';
import { sqlitePath } from '../src/config.ts';
import { nowIso } from '../src/lib/time.ts';
import { sqliteOf, type TestDatabase } from '../test/support/app.ts';

/** One push: the JSON body for HTTP and the same values flattened for the raw upsert. */
export interface Row {
  body: Record<string, unknown>;
  propertyId: string;
  email: string;
  guest: (string | null)[];
  stay: { externalId: string; status: string; values: (string | null)[] };
}

const GUEST_COLUMNS = ['first_name', 'last_name', 'phone', 'country_code', 'language_code'] as const;
const STAY_COLUMNS = ['check_in', 'check_out', 'checked_out_at', 'channel'] as const;
const COUNTRIES = ['DE', 'CH', 'AT', 'FR', 'IT', 'GB', 'US', 'NL'];

/** A new guest with a booked stay (`fresh` is its unique tag), or seeded guest `seed`'s stay checked out. */
export function rowOf(properties: string[], fresh: string | null, seed: number | null): Row {
  if (fresh !== null) {
    const n = [...fresh].reduce((h, c) => (h * 31 + c.charCodeAt(0)) >>> 0, 7);
    const propertyId = properties[n % properties.length]!;
    const email = `${fresh}@bench.example`;
    const guest = { first_name: `First ${n}`, last_name: `Last ${n}`, phone: `+49 30 ${n}`, country_code: COUNTRIES[n % COUNTRIES.length]!, language_code: 'de-DE' };
    const stay = { check_in: '2026-12-01T00:00:00.000Z', check_out: '2026-12-04T00:00:00.000Z', checked_out_at: null, channel: 'booking.com' };
    return {
      body: { email, property_id: propertyId, ...guest, custom_fields: { loyalty: 'gold', visits: n % 9 }, reservation: { external_id: `B-${fresh}`, status: 'booked', check_in: '2026-12-01', check_out: '2026-12-04', channel: 'booking.com', custom_fields: { room: String(n % 400) } } },
      propertyId, email, guest: GUEST_COLUMNS.map((c) => guest[c]),
      stay: { externalId: `B-${fresh}`, status: 'booked', values: STAY_COLUMNS.map((c) => stay[c]) },
    };
  }
  const i = seed!;
  const propertyId = properties[i % properties.length]!;
  const email = `seed${i}@bench.example`;
  return {
    body: { email, property_id: propertyId, reservation: { external_id: `SEED-${i}`, status: 'checked_out', checked_out_at: '2026-12-04T10:30:00Z' } },
    propertyId, email, guest: GUEST_COLUMNS.map(() => null),
    stay: { externalId: `SEED-${i}`, status: 'checked_out', values: [null, null, '2026-12-04T10:30:00.000Z', null] },
  };
}

/** Writes N guests and one booked stay per guest straight into the tables (set-based), then ANALYZE. */
export async function seedGuests(db: TestDatabase, accountId: string, properties: string[], n: number): Promise<number> {
  const start = performance.now();
  const now = nowIso();
  const list = JSON.stringify(properties);
  if (db.dialect === 'sqlite') {
    const s = sqliteOf(db.database);
    const series = 'with recursive s(i) as (select 0 union all select i + 1 from s where i < cast(? as integer))';
    s.transaction(() => {
      s.prepare(`${series} insert into guests (id, account_id, property_id, email, source, first_name, last_name, custom_fields, marketing_consent, created_at, updated_at)
        select printf('00000000-0000-7000-8000-%012x', i), ?, json_extract(?, '$[' || (i % cast(? as integer)) || ']'), 'seed' || i || '@bench.example', 'api',
          'First ' || i, 'Last ' || i, '{"seeded":true}', 'unknown', ?, ? from s`).run(n - 1, accountId, list, properties.length, now, now);
      s.prepare(`${series} insert into reservations (id, account_id, property_id, guest_id, external_id, status, check_in, check_out, channel, custom_fields, created_at, updated_at)
        select printf('00000000-0000-7000-9000-%012x', i), ?, json_extract(?, '$[' || (i % cast(? as integer)) || ']'), printf('00000000-0000-7000-8000-%012x', i),
          'SEED-' || i, 'booked', '2026-11-20T00:00:00.000Z', '2026-11-23T00:00:00.000Z', 'direct', '{}', ?, ? from s`).run(n - 1, accountId, list, properties.length, now, now);
    })();
    s.exec('analyze');
    s.pragma('wal_checkpoint(truncate)');
  } else {
    const client = new pg.Client({ connectionString: db.url, options: `-c search_path=${db.schema}` });
    await client.connect();
    try {
      await client.query(`insert into guests (id, account_id, property_id, email, source, first_name, last_name, custom_fields, marketing_consent, created_at, updated_at)
        select '00000000-0000-7000-8000-' || lpad(to_hex(i), 12, '0'), $2, ($3::text[])[1 + i % $4], 'seed' || i || '@bench.example', 'api',
          'First ' || i, 'Last ' || i, '{"seeded":true}', 'unknown', $5, $5 from generate_series(0, $1 - 1) as i`, [n, accountId, properties, properties.length, now]);
      await client.query(`insert into reservations (id, account_id, property_id, guest_id, external_id, status, check_in, check_out, channel, custom_fields, created_at, updated_at)
        select '00000000-0000-7000-9000-' || lpad(to_hex(i), 12, '0'), $2, ($3::text[])[1 + i % $4], '00000000-0000-7000-8000-' || lpad(to_hex(i), 12, '0'),
          'SEED-' || i, 'booked', '2026-11-20T00:00:00.000Z', '2026-11-23T00:00:00.000Z', 'direct', '{}', $5, $5 from generate_series(0, $1 - 1) as i`, [n, accountId, properties, properties.length, now]);
      // Settled before measuring: without the vacuum, autovacuum starts on the fresh million rows in
      // the middle of a measurement.
      await client.query('vacuum analyze guests');
      await client.query('vacuum analyze reservations');
      await client.query('checkpoint');
    } finally {
      await client.end();
    }
  }
  return (performance.now() - start) / 1000;
}

type Merge = (a: string, b: string) => string;
const sqliteMerge: Merge = (a, b) => `json_patch(${a}, ${b})`;
const pgMerge: Merge = (a, b) => `(${a}::jsonb || ${b}::jsonb)::text`;
const numbered = (text: string) => { let i = 0; return text.replace(/\?/g, () => `$${++i}`); };

// The raw upserts: every column, coalesced so an absent value keeps the stored one, JSON merged.
const GUEST_UPSERT = (merge: Merge) => `insert into guests (id, account_id, property_id, email, source, first_name, last_name, phone, country_code, language_code, custom_fields, marketing_consent, created_at, updated_at)
  values (?, ?, ?, ?, 'api', ?, ?, ?, ?, ?, ?, 'unknown', ?, ?)
  on conflict (property_id, email) do update set first_name = coalesce(excluded.first_name, guests.first_name),
    last_name = coalesce(excluded.last_name, guests.last_name), phone = coalesce(excluded.phone, guests.phone),
    country_code = coalesce(excluded.country_code, guests.country_code), language_code = coalesce(excluded.language_code, guests.language_code),
    custom_fields = ${merge('guests.custom_fields', 'excluded.custom_fields')}, updated_at = excluded.updated_at
  returning id`;
const STAY_UPSERT = (merge: Merge) => `insert into reservations (id, account_id, property_id, guest_id, external_id, status, check_in, check_out, checked_out_at, channel, custom_fields, created_at, updated_at)
  values (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
  on conflict (property_id, external_id) do update set guest_id = excluded.guest_id, status = excluded.status,
    check_in = coalesce(excluded.check_in, reservations.check_in), check_out = coalesce(excluded.check_out, reservations.check_out),
    checked_out_at = coalesce(excluded.checked_out_at, reservations.checked_out_at), channel = coalesce(excluded.channel, reservations.channel),
    custom_fields = ${merge('reservations.custom_fields', 'excluded.custom_fields')}, updated_at = excluded.updated_at
  returning *`;

function params(row: Row, accountId: string) {
  const now = nowIso();
  const custom = JSON.stringify((row.body.custom_fields as object | undefined) ?? {});
  const stayCustom = JSON.stringify(((row.body.reservation as { custom_fields?: object }).custom_fields) ?? {});
  const guest = (id: string) => [id, accountId, row.propertyId, row.email, ...row.guest, custom, now, now];
  const stay = (guestId: string) => [crypto.randomUUID(), accountId, row.propertyId, guestId, row.stay.externalId, row.stay.status, ...row.stay.values, stayCustom, now, now];
  return { guest, stay };
}

export interface Baseline {
  /** Upserts every row (guest then stay, one transaction each); returns per-push latencies (ms). */
  run(rows: Row[]): Promise<number[]>;
  close(): Promise<void>;
}

/**
 * The driver alone: a better-sqlite3 connection of its own on the same file, with the durability
 * settings Repute uses (WAL, synchronous NORMAL, foreign keys) and the driver's defaults otherwise
 * (automatic checkpoints), as the PostgreSQL side has a pg pool of its own.
 */
export function baselineSqlite(db: TestDatabase, accountId = ''): Baseline {
  const s = new SQLite(sqlitePath(db.url));
  s.pragma('journal_mode = WAL');
  s.pragma('synchronous = NORMAL');
  s.pragma('foreign_keys = ON');
  s.pragma('busy_timeout = 5000');
  const g = s.prepare(GUEST_UPSERT(sqliteMerge));
  const r = s.prepare(STAY_UPSERT(sqliteMerge));
  const one = s.transaction((row: Row, account: string) => {
    const p = params(row, account);
    const { id } = g.get(...p.guest(crypto.randomUUID())) as { id: string };
    return r.get(...p.stay(id));
  });
  return {
    async run(rows) {
      const account = accountId || (s.prepare('select id from accounts limit 1').get() as { id: string }).id;
      const latencies: number[] = [];
      for (const row of rows) {
        const start = performance.now();
        one(row, account);
        latencies.push(performance.now() - start);
      }
      return latencies;
    },
    async close() {
      s.close();
    },
  };
}

export function baselinePostgres(db: TestDatabase, concurrency: number): Baseline {
  const p = new pg.Pool({ connectionString: db.url, max: concurrency, options: `-c search_path=${db.schema}` });
  const guestSql = numbered(GUEST_UPSERT(pgMerge));
  const staySql = numbered(STAY_UPSERT(pgMerge));
  let account: string | null = null;
  return {
    async run(rows) {
      account ??= (await p.query<{ id: string }>('select id from accounts limit 1')).rows[0]!.id;
      const latencies: number[] = [];
      let next = 0;
      const worker = async () => {
        const client = await p.connect();
        try {
          while (next < rows.length) {
            const row = rows[next++]!;
            const start = performance.now();
            const q = params(row, account!);
            await client.query('begin');
            const { rows: [g] } = await client.query({ name: 'bench-guest', text: guestSql, values: q.guest(crypto.randomUUID()) });
            await client.query({ name: 'bench-stay', text: staySql, values: q.stay(g.id) });
            await client.query('commit');
            latencies.push(performance.now() - start);
          }
        } finally {
          client.release();
        }
      };
      await Promise.all(Array.from({ length: concurrency }, worker));
      return latencies;
    },
    async close() {
      await p.end();
    },
  };
}
