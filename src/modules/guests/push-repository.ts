// SQL of the push hot path: one fixed statement per upsert whatever fields a push carries ("sent"
// flags pick stored or pushed values), so it is written once per process: prepared once on SQLite
// (better-sqlite3), plain text on PostgreSQL where guest and stay go in one statement (a
// data-modifying WITH), saving a round trip. Both upserts are INSERT … ON CONFLICT on the identity
// indexes, so concurrent pushes never race a read against a write.
import { CompiledQuery, type Kysely } from 'kysely';
import type SQLite from 'better-sqlite3';
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

function stayUpsert(p: Placeholder, merge: Merge, values: string): string {
  const set = updateSet('reservations', ['status', ...STAY_FIELDS], p, merge, ['guest_id = excluded.guest_id']);
  return `insert into reservations (${STAY_COLUMNS.join(', ')}) ${values} on conflict (property_id, external_id) do update set ${set}`;
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
  begin: SQLite.Statement;
  commit: SQLite.Statement;
  rollback: SQLite.Statement;
  guest: SQLite.Statement;
  stay: SQLite.Statement;
  erased: SQLite.Statement;
  withdraw: SQLite.Statement;
}

const prepared = new WeakMap<SQLite.Database, SqliteStatements>();

export function sqliteStatements(s: SQLite.Database): SqliteStatements {
  let st = prepared.get(s);
  if (st) return st;
  const merge: Merge = (a, b) => `json_patch(${a}, ${b})`;
  const named: Placeholder = (name) => `@${name}`;
  st = {
    begin: s.prepare('begin immediate'),
    commit: s.prepare('commit'),
    rollback: s.prepare('rollback'),
    guest: s.prepare(`${guestUpsert(named, merge, `values (${GUEST_COLUMNS.map((c) => `@${c}`).join(', ')})`)} returning *`),
    stay: s.prepare(`${stayUpsert(named, merge, `values (${STAY_COLUMNS.map((c) => `@r_${c}`).join(', ')})`)} returning *`),
    erased: s.prepare('select 1 from erased_guests where property_id = ? and fingerprint = ?').pluck(),
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

export const sqliteUpsertGuest = (st: SqliteStatements, w: GuestWrite): GuestRow => st.guest.get(bits(guestParams(w))) as GuestRow;
export const sqliteUpsertStay = (st: SqliteStatements, w: StayWrite): ReservationRow => st.stay.get(bits(stayParams(w))) as ReservationRow;
export const sqliteIsErased = (st: SqliteStatements, propertyId: string, fingerprint: string): boolean => st.erased.get(propertyId, fingerprint) !== undefined;
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

/**
 * The whole push as one statement: t checks the erasure tombstone, g upserts the guest unless erased,
 * r upserts the stay under g's id. eraseGuest locks the guests table first, so this statement either
 * runs before an erasure starts or, blocked at parse, sees its tombstone in its execution snapshot.
 */
function pgPushStatement(withStay: boolean) {
  const n = numbering();
  const erased = `select exists (select 1 from erased_guests where property_id = ${n.p('property_id')} and fingerprint = ${n.p('fingerprint')}) as erased`;
  const guest = guestUpsert(n.p, pgMerge, `select ${GUEST_COLUMNS.map((c) => n.p(c)).join(', ')} from t where not t.erased`);
  let text = `with t as (${erased}), g as (${guest} returning *)`;
  if (withStay) {
    // The stay has its own custom-fields flag; its other flags (s_status, s_check_in, …) do not clash.
    const stayP: Placeholder = (name, cast) => n.p(name === 's_custom' ? 'r_s_custom' : name, cast);
    const values = STAY_COLUMNS.map((c) => (c === 'guest_id' ? 'g.id' : n.p(`r_${c}`))).join(', ');
    text += `, r as (${stayUpsert(stayP, pgMerge, `select ${values} from g`)} returning *)`;
    text += ' select t.erased, row_to_json(g) as guest, row_to_json(r) as stay from t left join g on true left join r on true';
  } else {
    text += ' select t.erased, row_to_json(g) as guest, null as stay from t left join g on true';
  }
  return { text, values: n.values };
}

const PG_GUEST = pgPushStatement(false);
const PG_GUEST_AND_STAY = pgPushStatement(true);

export interface PgPushed {
  erased: boolean;
  guest: GuestRow | null;
  stay: ReservationRow | null;
}

/** Guest (and stay) in one statement, unless (property, e-mail) was erased. */
export async function pgPush(db: Kysely<DB>, fingerprint: string, g: GuestWrite, s: StayWrite | null): Promise<PgPushed> {
  const statement = s ? PG_GUEST_AND_STAY : PG_GUEST;
  const params = { ...guestParams(g), fingerprint, ...(s ? stayParams(s, 'r_s_custom') : {}) };
  const result = await db.executeQuery<PgPushed>(CompiledQuery.raw(statement.text, statement.values(params)));
  return result.rows[0]!;
}
