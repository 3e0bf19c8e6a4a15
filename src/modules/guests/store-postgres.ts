// Guest push and erasure on PostgreSQL. Most pushes are one autocommitted statement (tombstone
// check, guest and stay upserts, and guest.created with its deliveries when the guest is new),
// prepared by name: one round trip. Pushes that must look at the stored row after writing (a
// withdrawal, to emit guest.unsubscribed once; a stay date sent alone, checked against the stored
// other one) run the same statement in a transaction instead.
import { CompiledQuery, sql } from 'kysely';
import type { PostgresDatabase } from '../../db/connect.ts';
import type { GuestRow, ReservationRow } from '../../db/schema.ts';
import { inTransaction, runAgainIfEndpointGone } from '../../db/transaction.ts';
import { postgresSql } from '../../db/dialect.ts';
import { appendEvents, fanOutSql } from '../../events/outbox.ts';
import {
  GUEST_COLUMNS, type GuestStore, type GuestWrite, guestParams, guestUpsert, type Merge, type Placeholder,
  STAY_COLUMNS, type StayWrite, stayParams, stayUpsert, withdrawConsent,
} from './repository.ts';

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

/**
 * e, d: the guest.created event of a guest this statement created (g.id is then the id it was given),
 * fanned out by the outbox's own fan-out statement (fanOutSql, src/events/outbox.ts), so deliveries
 * are exactly what appendEvents writes; a test compares the two. Ids and the body are made here, so
 * a push that creates nothing pays nothing for them.
 */
function outboxAfter(n: ReturnType<typeof numbering>): string {
  const account = n.p('account_id');
  const now = n.p('created_at', 'text');
  const body = `json_build_object('id', i.id, 'type', 'guest.created', 'timestamp', ${now}, 'account_id', ${account}::text,
      'data', json_build_object('guest_id', g.id, 'property_id', g.property_id))::text`;
  return `, e as (insert into events (id, account_id, type, payload, created_at)
      select i.id, ${account}, 'guest.created', ${body}, ${now} from g, (select ${postgresSql.newId} as id from ${postgresSql.idClock}) i
      where g.id = ${n.p('id')} returning id, account_id, type)`
    + `, d as (${fanOutSql(postgresSql, '(select id, account_id, type, null::text as endpoint_id from e)', now)})`;
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

interface PgPushed {
  erased: boolean;
  guest: GuestRow | null;
  stay: ReservationRow | null;
}

/** The single statement of a common push (guest, a stay, guest.created when new) and its parameter layout; bench/floor.ts runs it bare. */
export const pgPushStatementWithStay = PG_PUSH[1]![1]!;

function pgPushQuery(fingerprint: string, g: GuestWrite, s: StayWrite | null, withOutbox: boolean) {
  const statement = PG_PUSH[s ? 1 : 0]![withOutbox ? 1 : 0]!;
  const params = guestParams(g, { fingerprint });
  if (s) stayParams(s, 'r_s_custom', params);
  return { name: statement.name, text: statement.text, values: statement.values(params) };
}

export function postgresGuestStore({ db, pool, commits }: PostgresDatabase): GuestStore {
  return {
    async push(w, rules) {
      // Pushes that must look at the stored row after writing (a withdrawal, to emit guest.unsubscribed
      // once; a stay date sent alone, checked against the stored other one; custom fields, whose merge
      // must fit the cap) run in a transaction, rolled back when a check fails; the others in one statement.
      const dates = w.stay ? ['check_in', 'check_out'].filter((f) => w.stay?.sent.has(f)).length : 0;
      const custom = w.guest.customFieldsSent || w.stay?.customFieldsSent === true;
      if (w.consent !== false && dates !== 1 && !custom) {
        const { rows: [pushed] } = await runAgainIfEndpointGone(() => pool.query<PgPushed>(pgPushQuery(w.fingerprint, w.guest, w.stay, true)));
        if (!pushed || pushed.erased || !pushed.guest) throw rules.erased();
        const created = pushed.guest.id === w.guest.row.id;
        // The statement appended guest.created (its own transaction, committed now).
        if (created) commits.notify();
        return { guest: pushed.guest, stay: pushed.stay, created, unsubscribed: false };
      }
      return inTransaction(db, async (trx) => {
        const query = pgPushQuery(w.fingerprint, w.guest, w.stay, false);
        const { rows: [pushed] } = await trx.executeQuery<PgPushed>(CompiledQuery.raw(query.text, query.values));
        if (!pushed || pushed.erased || !pushed.guest) throw rules.erased();
        const { guest, stay } = pushed;
        const created = guest.id === w.guest.row.id;
        const unsubscribed = w.consent === false && (created || (await withdrawConsent(trx, guest.id, w.now)));
        rules.checkStored(w, guest, stay);
        const outcome = { guest, stay, created, unsubscribed };
        await appendEvents(trx, rules.events(outcome));
        return outcome;
      });
    },

    erase: (run) => inTransaction(db, async (trx) => {
      // The erasure first locks the guests table against writers (pushes hold ROW EXCLUSIVE until
      // they commit): it waits for pushes in flight, and pushes that arrive meanwhile wait at parse
      // and then see the tombstone in their execution snapshot. Erasures are rare and take milliseconds.
      await sql`lock table guests in share row exclusive mode`.execute(trx);
      return run(trx);
    }),
  };
}
