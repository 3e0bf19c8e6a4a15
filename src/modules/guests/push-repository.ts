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

/** Where a pushed value comes from in an update: excluded.<column> in an upsert, a parameter in a plain UPDATE. */
type Pushed = (column: string) => string;

/** The SET list for a table: sent fields replace stored ones, custom fields merge key by key. */
function updateSet(table: string, fields: readonly string[], p: Placeholder, merge: Merge, pushed: Pushed, extra: string[]): string {
  return [
    ...fields.map((f) => `${f} = case when ${p(`s_${f}`, 'boolean')} then ${pushed(f)} else ${table}.${f} end`),
    `custom_fields = case when ${p('s_custom', 'boolean')} then ${merge(`${table}.custom_fields`, pushed('custom_fields'))} else ${table}.custom_fields end`,
    ...extra,
    `updated_at = ${pushed('updated_at')}`,
  ].join(', ');
}

const fromExcluded: Pushed = (column) => `excluded.${column}`;

const grantConsent = (p: Placeholder) =>
  `marketing_consent = case when ${p('grant', 'boolean')} and guests.marketing_consent <> 'withdrawn' then 'granted' else guests.marketing_consent end`;

function guestUpsert(p: Placeholder, merge: Merge, values: string): string {
  const set = updateSet('guests', GUEST_FIELDS, p, merge, fromExcluded, [grantConsent(p)]);
  return `insert into guests (${GUEST_COLUMNS.join(', ')}) ${values} on conflict (property_id, email) do update set ${set}`;
}

function stayUpsert(p: Placeholder, merge: Merge, values: string): string {
  const set = updateSet('reservations', ['status', ...STAY_FIELDS], p, merge, fromExcluded, ['guest_id = excluded.guest_id']);
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
  guest: SQLite.Statement;
  stay: SQLite.Statement;
  withdraw: SQLite.Statement;
}

const prepared = new WeakMap<SQLite.Database, SqliteStatements>();

export function sqliteStatements(s: SQLite.Database): SqliteStatements {
  let st = prepared.get(s);
  if (st) return st;
  const merge: Merge = (a, b) => `json_patch(${a}, ${b})`;
  const named: Placeholder = (name) => `@${name}`;
  st = {
    // No row back when (property, e-mail) was erased: the single writer makes the inline check safe.
    guest: s.prepare(`${guestUpsert(named, merge, `select ${GUEST_COLUMNS.map((c) => `@${c}`).join(', ')}
      where not exists (select 1 from erased_guests where property_id = @property_id and fingerprint = @fingerprint)`)} returning *`),
    stay: s.prepare(`${stayUpsert(named, merge, `values (${STAY_COLUMNS.map((c) => `@r_${c}`).join(', ')})`)} returning *`),
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
export const sqliteUpsertStay = (st: SqliteStatements, w: StayWrite): ReservationRow => st.stay.get(bits(stayParams(w))) as ReservationRow;
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

const SELECT_RESULT = (withStay: boolean) => (withStay
  ? ' select t.erased, row_to_json(g) as guest, row_to_json(r) as stay from t left join g on true left join r on true'
  : ' select t.erased, row_to_json(g) as guest, null as stay from t left join g on true');

/**
 * The whole push as one statement: t checks the erasure tombstone, g upserts the guest unless erased,
 * r upserts the stay under g's id. eraseGuest locks the guests table first, so this statement either
 * runs before an erasure starts or, blocked at parse, sees its tombstone in its execution snapshot.
 */
function pgPushStatement(withStay: boolean) {
  const n = numbering();
  const guest = guestUpsert(n.p, pgMerge, `select ${GUEST_COLUMNS.map((c) => n.p(c)).join(', ')} from t where not t.erased`);
  const text = `with t as (${ERASED_CHECK(n.p)}), g as (${guest} returning *)${withStay ? stayAfter(n) : ''}${SELECT_RESULT(withStay)}`;
  return { text, values: n.values };
}

/** The same for a guest that already exists: a plain UPDATE of it (no row when it does not exist). */
function pgUpdateStatement(withStay: boolean) {
  const n = numbering();
  const set = updateSet('guests', GUEST_FIELDS, n.p, pgMerge, (c) => n.p(c), [grantConsent(n.p)]);
  const guest = `update guests set ${set} where property_id = ${n.p('property_id')} and email = ${n.p('email')} and not (select erased from t)`;
  const text = `with t as (${ERASED_CHECK(n.p)}), g as (${guest} returning *)${withStay ? stayAfter(n) : ''}${SELECT_RESULT(withStay)}`;
  return { text, values: n.values };
}

const PG_GUEST = pgPushStatement(false);
const PG_GUEST_AND_STAY = pgPushStatement(true);
const PG_UPDATE = pgUpdateStatement(false);
const PG_UPDATE_AND_STAY = pgUpdateStatement(true);

export interface PgPushed {
  erased: boolean;
  guest: GuestRow | null;
  stay: ReservationRow | null;
}

/**
 * Guest (and stay) in one statement, unless (property, e-mail) was erased. updateOnly: only when the
 * guest exists (guest null otherwise), so it can run outside a transaction: it never creates a guest
 * and so never has an event to append.
 */
export async function pgPush(db: Kysely<DB>, fingerprint: string, g: GuestWrite, s: StayWrite | null, updateOnly = false): Promise<PgPushed> {
  const statement = updateOnly ? (s ? PG_UPDATE_AND_STAY : PG_UPDATE) : (s ? PG_GUEST_AND_STAY : PG_GUEST);
  const params = { ...guestParams(g), fingerprint, ...(s ? stayParams(s, 'r_s_custom') : {}) };
  const result = await db.executeQuery<PgPushed>(CompiledQuery.raw(statement.text, statement.values(params)));
  return result.rows[0]!;
}
