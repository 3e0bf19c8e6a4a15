// A survey definition with every question type, texts in English and German, and HTML in some
// texts (pages must show it as text); and stays to invite, seeded in bulk.
import type { Kysely } from 'kysely';
import type { DB } from '../../src/db/schema.ts';
import { newId } from '../../src/lib/ids.ts';

export const DEFINITION = {
  pages: [
    { id: 'stay', title: { en: 'Your stay', de: 'Ihr Aufenthalt' }, questions: [
      { id: 'nps', type: 'nps', required: true, text: { en: 'How likely are you to recommend us?', de: 'Wie wahrscheinlich empfehlen Sie uns?' } },
      { id: 'room', type: 'rating', scale: 5, text: { en: 'Your room', de: 'Ihr Zimmer' } },
    ] },
    { id: 'more', title: { en: 'More', de: 'Mehr' }, questions: [
      { id: 'again', type: 'yes_no', text: { en: 'Would you stay again?', de: 'Würden Sie wiederkommen?' } },
      { id: 'liked', type: 'choice', multiple: true, text: { en: 'What did you like?', de: 'Was hat Ihnen gefallen?' },
        options: [{ id: 'spa', text: { en: 'Spa', de: 'Spa' } }, { id: 'food', text: { en: 'Food <b>', de: 'Essen <b>' } }] },
      { id: 'note', type: 'text', text: { en: 'Anything else? <script>alert(1)</script>', de: 'Sonst noch etwas? <script>alert(1)</script>' } },
    ] },
  ],
};

/** n guests (consent granted) with a stay at the property checked out an hour ago, written straight into the tables. */
export async function seedCheckedOutStays(db: Kysely<DB>, accountId: string, propertyId: string, n: number): Promise<void> {
  const now = new Date().toISOString();
  const left = new Date(Date.now() - 3_600_000).toISOString();
  for (let i = 0; i < n; i += 500) {
    const guests = [];
    const stays = [];
    for (let j = i; j < Math.min(n, i + 500); j++) {
      const guestId = newId();
      guests.push({
        id: guestId, account_id: accountId, property_id: propertyId, email: `seeded-${j}@stays.example`, source: 'api', salutation: null,
        first_name: null, last_name: null, phone: null, country_code: null, language_code: 'en', custom_fields: '{}',
        marketing_consent: 'granted', created_at: now, updated_at: now, unsubscribed_at: null,
      });
      stays.push({
        id: newId(), account_id: accountId, property_id: propertyId, guest_id: guestId, external_id: `S-${j}`, status: 'checked_out',
        raw_status: null, check_in: null, check_out: null, checked_in_at: null, checked_out_at: left, channel: null, custom_fields: '{}',
        created_at: now, updated_at: now,
      });
    }
    await db.insertInto('guests').values(guests).execute();
    await db.insertInto('reservations').values(stays).execute();
  }
}
