// The demo's survey invitations: a rule on the post-stay survey (a day after check-out, guests who
// granted consent), guests who checked out recently, and the e-mails of those already due written
// as .eml files (no SMTP server needed: nodemailer writes the message an SMTP server would get).
// The printed survey link opens on the demo server.
import type { Kysely } from 'kysely';
import type { DB } from '../db/schema.ts';
import { newId } from '../lib/ids.ts';
import { createMailer } from '../mail/transport.ts';
import { newPlannerState, planInvitations } from '../modules/invitations/planner.ts';
import { createRule } from '../modules/invitations/rules.ts';
import { sendDueBatch } from '../modules/invitations/sender.ts';
import { invitationToken } from '../modules/invitations/tokens.ts';
import type { Random } from './random.ts';

const HOUR = 3_600_000;

const GUESTS: [first: string, last: string, language: string][] = [
  ['Anna', 'Berger', 'de'], ['James', 'Walker', 'en'], ['Claire', 'Dubois', 'fr'], ['Giulia', 'Rossi', 'it'], ['Lucía', 'García', 'es'],
  ['Tobias', 'Huber', 'de'], ['Emma', 'Clarke', 'en'], ['Marco', 'Bianchi', 'it'], ['Sophie', 'Martin', 'fr'], ['Lena', 'Gruber', 'de'],
];

export interface DemoInvitations {
  sent: number;
  scheduled: number;
  mailDir: string;
  /** The survey link of the first invitation sent (an English-speaking guest's). */
  link: string;
}

export async function createDemoInvitations(
  db: Kysely<DB>, random: Random, accountId: string, mail: { secretKey: Buffer; publicUrl: string; mailFrom: string; mailDir: string }, now = Date.now(),
): Promise<DemoInvitations> {
  const survey = await db.selectFrom('surveys').select(['id', 'node_id']).where('account_id', '=', accountId).where('name', '=', 'Post-stay survey').executeTakeFirstOrThrow();
  const hotels = await db.selectFrom('nodes').select('id').where('account_id', '=', accountId).where('type', '=', 'property').orderBy('path').execute();
  await createRule(db, survey.id, { node_id: survey.node_id, delay_hours: 24, consent: 'granted', max_age_days: 14, cooldown_days: 30 });

  // Six guests left two to four days ago (due: their e-mails are written now); four left this
  // morning (scheduled for tomorrow, sent by the demo server's worker when due).
  for (const [i, [first, last, language]] of GUESTS.entries()) {
    const left = new Date(now - (i < 6 ? 48 + i * 8 : 3 + i) * HOUR).toISOString();
    const arrived = new Date(Date.parse(left) - random.int(2, 6) * 24 * HOUR).toISOString();
    const hotel = hotels[i % hotels.length]!.id;
    const guestId = newId();
    const at = new Date(now).toISOString();
    await db.insertInto('guests').values({
      id: guestId, account_id: accountId, property_id: hotel, email: `${first.toLowerCase()}.${last.toLowerCase()}@guest.example`.normalize('NFD').replace(/[\u0300-\u036f]/g, ''),
      source: 'api', salutation: null, first_name: first, last_name: last, phone: null, country_code: null, language_code: language,
      custom_fields: '{}', marketing_consent: 'granted', created_at: at, updated_at: at, unsubscribed_at: null,
    }).execute();
    await db.insertInto('reservations').values({
      id: newId(), account_id: accountId, property_id: hotel, guest_id: guestId, external_id: `PMS-${40_000 + i}`, status: 'checked_out',
      raw_status: 'CO', check_in: arrived.slice(0, 10), check_out: left.slice(0, 10), checked_in_at: arrived, checked_out_at: left,
      channel: 'direct', custom_fields: '{}', created_at: at, updated_at: at,
    }).execute();
  }

  await planInvitations(db, mail.secretKey, newPlannerState(), now);
  const mailer = createMailer({ smtpUrl: null, mailDir: mail.mailDir })!;
  const log = { debug() {}, info() {}, warn() {}, error() {} };
  try {
    while ((await sendDueBatch({ db, mailer, secretKey: mail.secretKey, publicUrl: mail.publicUrl, mailFrom: mail.mailFrom, retryScheduleS: [60], log }, now)) > 0) { /* all due */ }
  } finally {
    mailer.close();
  }
  const rows = await db.selectFrom('survey_invitations').select(['id', 'status', 'language']).where('survey_id', '=', survey.id).execute();
  const first = rows.find((r) => r.status === 'sent' && r.language === 'en') ?? rows.find((r) => r.status === 'sent');
  return {
    sent: rows.filter((r) => r.status === 'sent').length,
    scheduled: rows.filter((r) => r.status === 'scheduled').length,
    mailDir: mail.mailDir,
    link: first ? `${mail.publicUrl}/s/${invitationToken(mail.secretKey, first.id, 'survey')}` : '',
  };
}
