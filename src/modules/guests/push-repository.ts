// SQL of the push hot path. One fixed statement per upsert whatever fields a push carries ("sent"
// flags choose the stored or the pushed value), so it is built once per process: SQLite prepares it
// once (better-sqlite3) with the erasure check inline; PostgreSQL runs the whole push (erasure check,
// guest, stay, and the guest.created outbox rows) as one data-modifying WITH statement, prepared by
// name: one round trip. Upserts are INSERT … ON CONFLICT on the identity indexes (guests_identity,
// reservations_identity), so concurrent pushes never race a read against a write.
import { CompiledQuery, type Kysely } from 'kysely';
import type SQLite from 'better-sqlite3';
import type pg from 'pg';
import type { DB, GuestRow, ReservationRow } from '../../db/schema.ts';
import { GUEST_FIELDS, STAY_FIELDS } from './validate.ts';

const GUEST_COLUMNS = ['id', 'account_id', 'property_id', 'email', 'source', ...GUEST_FIELDS, 'custom_fields', 'marketing_consent', 'created_at', 'updated_at'] as const;
const STAY_COLUMNS = ['id', 'account_id', 'property_id', 'guest_id', 'external_id', 'status', ...STAY_FIELDS, 'custom_fields', 'created_at', 'updated_at'] as const;

/** What one upsert writes: the row a create inserts, and which fields replace stored ones on conflict. */
export interface GuestWrite {
  row: GuestRow;
  sent: ReadonlySet<string>;
  customFieldsSent: boolean;
  /** Consent true: granted unless already withdrawn. */
  grant: boolean;
}

export interface StayWrite {
  row: ReservationRow;
  sent: ReadonlySet<string>;
  customFieldsSent: boolean;
}

type Placeholder = (name: string, cast?: string) => string;
type Merge = (stored: string, sent: string) => string;

/** ON CONFLICT … DO UPDATE SET for a table: sent fields from excluded, custom fields merged key by key. */
function updateSet(table: string, fields: readonly string[], p: Placeholder, merge: Merge, extra: string[]): string {
  return [
    ...fields.map((f) => `${f} = case when ${p(`s_${f}`, 'boolean')} then excluded.${f} else ${table}.${f} end`),
    `custom_fields = case when ${p('s_custom', 'boolean')} then ${merge(`${table}.custom_fields`, 'excluded.custom_fields')} else ${table}.custom_fields end`,
    ...extra,
    'updated_at = excluded.updated_at',
  ].join(', ');
}

function guestUpsert(p: Placeholder, merge: Merge, values: string): string {
  const set = updateSet('guests', GUEST_FIELDS, p, merge, [
    `marketing_consent = case when ${p('grant', 'boolean')} and guests.marketing_consent <> 'withdrawn' then 'granted' else guests.marketing_consent end`,
  ]);
  return `insert into guests (${GUEST_COLUMNS.join(', ')}) ${values} on conflict (property_id, email) do update set ${set}`;
}

/**
 * sameGuest: update only a stay the pushing guest already holds (no row back otherwise), leaving
 * guest_id out of the SET: SQLite rewrites the entries of every index on a column that an UPDATE
 * sets, equal value or not, and reservations_guest is one. Without it, the stay moves to this guest.
 */
function stayUpsert(p: Placeholder, merge: Merge, values: string, sameGuest = false): string {
  const set = updateSet('reservations', ['status', ...STAY_FIELDS], p, merge, sameGuest ? [] : ['guest_id = excluded.guest_id']);
  return `insert into reservations (${STAY_COLUMNS.join(', ')}) ${values} on conflict (property_id, external_id) do update set ${set}`
    + (sameGuest ? ' where reservations.guest_id = excluded.guest_id' : '');
}

function guestParams(w: GuestWrite): Record<string, unknown> {
  const params: Record<string, unknown> = { grant: w.grant, s_custom: w.customFieldsSent };
  for (const c of GUEST_COLUMNS) params[c] = w.row[c];
  for (const f of GUEST_FIELDS) params[`s_${f}`] = w.sent.has(f);
  return params;
}

/** customKey: the stay's own custom-fields flag, renamed when it shares a statement with the guest's. */
function stayParams(w: StayWrite, customKey = 's_custom'): Record<string, unknown> {
  const params: Record<string, unknown> = { [customKey]: w.customFieldsSent, s_status: w.sent.has('status') };
  for (const c of STAY_COLUMNS) params[`r_${c}`] = w.row[c];
  for (const f of STAY_FIELDS) params[`s_${f}`] = w.sent.has(f);
  return params;
}

// ---------------------------------------------------------------- SQLite: prepared once per handle

export interface SqliteStatements {
  guest: SQLite.Statement;
  /** A stay that is new or already this guest's (the common case). */
  stay: SQLite.Statement;
  /** A stay that belongs to another guest of the property: it moves to this one. */
  stayMoved: SQLite.Statement;
  withdraw: SQLite.Statement;
}

const prepared = new WeakMap<SQLite.Database, SqliteStatements>();

export function sqliteStatements(s: SQLite.Database): SqliteStatements {
  let st = prepared.get(s);
  if (st) return st;
  const merge: Merge = (a, b) => `json_patch(${a}, ${b})`;
  const named: Placeholder = (name) => `@${name}`;
  const stayValues = `values (${STAY_COLUMNS.map((c) => `@r_${c}`).join(', ')})`;
  st = {
    // No row back when (property, e-mail) was erased: the single writer makes the inline check safe.
    guest: s.prepare(`${guestUpsert(named, merge, `select ${GUEST_COLUMNS.map((c) => `@${c}`).join(', ')}
      where not exists (select 1 from erased_guests where property_id = @property_id and fingerprint = @fingerprint)`)} returning *`),
    stay: s.prepare(`${stayUpsert(named, merge, stayValues, true)} returning *`),
    stayMoved: s.prepare(`${stayUpsert(named, merge, stayValues)} returning *`),
    withdraw: s.prepare(`update guests set marketing_consent = 'withdrawn', updated_at = ? where id = ? and marketing_consent <> 'withdrawn'`),
  };
  prepared.set(s, st);
  return st;
}

/** SQLite binds booleans as 0/1. */
const bits = (params: Record<string, unknown>): Record<string, unknown> => {
  for (const [k, v] of Object.entries(params)) if (typeof v === 'boolean') params[k] = v ? 1 : 0;
  return params;
};

/** The stored guest, or undefined when (property, e-mail) was erased (then nothing was written). */
export const sqliteUpsertGuest = (st: SqliteStatements, w: GuestWrite, fingerprint: string): GuestRow | undefined =>
  st.guest.get(bits({ ...guestParams(w), fingerprint })) as GuestRow | undefined;
export function sqliteUpsertStay(st: SqliteStatements, w: StayWrite): ReservationRow {
  const params = bits(stayParams(w));
  return (st.stay.get(params) ?? st.stayMoved.get(params)) as ReservationRow;
}
export const sqliteWithdraw = (st: SqliteStatements, guestId: string, now: string): boolean => st.withdraw.run(now, guestId).changes > 0;

// ---------------------------------------------------------------- PostgreSQL: one statement per push

/** Numbers named parameters $1, $2, … in order of first use; values() lays a params object out to match. */
function numbering(): { p: Placeholder; values(params: Record<string, unknown>): unknown[] } {
  const order: string[] = [];
  return {
    p: (name, cast) => {
      let i = order.indexOf(name);
      if (i < 0) i = order.push(name) - 1;
      return `$${i + 1}${cast ? `::${cast}` : ''}`;
    },
    values: (params) => order.map((name) => params[name]),
  };
}

const pgMerge: Merge = (a, b) => `(${a}::jsonb || ${b}::jsonb)::text`;

const ERASED_CHECK = (p: Placeholder) =>
  `select exists (select 1 from erased_guests where property_id = ${p('property_id')} and fingerprint = ${p('fingerprint')}) as erased`;

/** r: the stay upserted under g's id; its custom-fields flag is its own (other flags do not clash). */
function stayAfter(n: ReturnType<typeof numbering>): string {
  const stayP: Placeholder = (name, cast) => n.p(name === 's_custom' ? 'r_s_custom' : name, cast);
  const values = STAY_COLUMNS.map((c) => (c === 'guest_id' ? 'g.id' : n.p(`r_${c}`))).join(', ');
  return `, r as (${stayUpsert(stayP, pgMerge, `select ${values} from g`)} returning *)`;
}

/** A UUIDv7 in SQL: the statement's millisecond clock (k.ts, 12 hex digits) and a random UUID's tail. */
const UUID_V7 = "substr(k.ts, 1, 8) || '-' || substr(k.ts, 9, 4) || '-7' || substr(gen_random_uuid()::text, 16)";

/**
 * e, d: the guest.created event of a guest this statement created (g.id is then the id it was given),
 * fanned out to one pending delivery per endpoint of the account subscribed to it (paused ones too),
 * exactly as appendEvents (src/events/outbox.ts) writes them; a test compares the two. Ids and the
 * body are made here, so a push that creates nothing pays nothing for them.
 */
function outboxAfter(n: ReturnType<typeof numbering>): string {
  const account = n.p('account_id');
  const now = n.p('created_at');
  const body = `json_build_object('id', i.id, 'type', 'guest.created', 'timestamp', ${now}::text, 'account_id', ${account}::text,
      'data', json_build_object('guest_id', g.id, 'property_id', g.property_id))::text`;
  return `, k as (select lpad(to_hex(floor(extract(epoch from clock_timestamp()) * 1000)::bigint), 12, '0') as ts)`
    + `, e as (insert into events (id, account_id, type, payload, created_at)
      select i.id, ${account}, 'guest.created', ${body}, ${now} from g, (select ${UUID_V7} as id from k) i
      where g.id = ${n.p('id')} returning id)`
    + `, d as (insert into webhook_deliveries (id, account_id, endpoint_id, event_id, event_type, status, attempt_count,
        last_status_code, last_attempt_at, next_attempt_at, lease_until, created_at)
      select ${UUID_V7}, ${account}, w.id, e.id, 'guest.created', 'pending', 0, null, null, ${now}, null, ${now}
      from e cross join k join webhook_endpoints w on w.account_id = ${account} and w.events::jsonb ? 'guest.created')`;
}

const SELECT_RESULT = (withStay: boolean) => (withStay
  ? ' select t.erased, row_to_json(g) as guest, row_to_json(r) as stay from t left join g on true left join r on true'
  : ' select t.erased, row_to_json(g) as guest, null as stay from t left join g on true');

/**
 * The whole push as one statement: t checks the erasure tombstone, g upserts the guest unless erased,
 * r upserts the stay under g's id, and with the outbox e/d append guest.created when g is new.
 * eraseGuest locks the guests table first, so this statement either runs before an erasure starts
 * or, blocked at parse, sees its tombstone in its execution snapshot.
 */
function pgPushStatement(withStay: boolean, withOutbox: boolean) {
  const n = numbering();
  const guest = guestUpsert(n.p, pgMerge, `select ${GUEST_COLUMNS.map((c) => n.p(c)).join(', ')} from t where not t.erased`);
  const text = `with t as (${ERASED_CHECK(n.p)}), g as (${guest} returning *)${withStay ? stayAfter(n) : ''}`
    + `${withOutbox ? outboxAfter(n) : ''}${SELECT_RESULT(withStay)}`;
  return { text, values: n.values };
}

const PG_PUSH = [false, true].map((withStay) => [false, true].map((withOutbox) => ({
  ...pgPushStatement(withStay, withOutbox),
  // Prepared once per pooled connection when run through the pool (planning it costs more than running it).
  name: `repute_guest_push_${Number(withStay)}${Number(withOutbox)}`,
})));

export interface PgPushed {
  erased: boolean;
  guest: GuestRow | null;
  stay: ReservationRow | null;
}

function pgPushQuery(fingerprint: string, g: GuestWrite, s: StayWrite | null, withOutbox: boolean) {
  const statement = PG_PUSH[s ? 1 : 0]![withOutbox ? 1 : 0]!;
  const params = { ...guestParams(g), fingerprint, ...(s ? stayParams(s, 'r_s_custom') : {}) };
  return { name: statement.name, text: statement.text, values: statement.values(params) };
}

/** Guest (and stay) in one statement inside the caller's transaction, unless (property, e-mail) was erased. */
export async function pgPush(db: Kysely<DB>, fingerprint: string, g: GuestWrite, s: StayWrite | null): Promise<PgPushed> {
  const query = pgPushQuery(fingerprint, g, s, false);
  const result = await db.executeQuery<PgPushed>(CompiledQuery.raw(query.text, query.values));
  return result.rows[0]!;
}

/**
 * The same as its own transaction (autocommit) through the pool, as a named prepared statement; it
 * also appends guest.created when it creates the guest, so nothing else needs to run with it.
 */
export async function pgPushAlone(pool: pg.Pool, fingerprint: string, g: GuestWrite, s: StayWrite | null): Promise<PgPushed> {
  const result = await pool.query<PgPushed>(pgPushQuery(fingerprint, g, s, true));
  return result.rows[0]!;
}
