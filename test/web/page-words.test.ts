// Why an invitation or a webhook delivery failed, on a German page (src/web/dashboard/reason-words.ts):
// the stored English reasons the workers write, said in German; English pages and unknown reasons as
// stored. And a form's length limit as each language writes a large number (fault-words.ts).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { faultWords } from '../../src/web/dashboard/fault-words.ts';
import { reasonWords } from '../../src/web/dashboard/reason-words.ts';

test('webhook reasons in German, without the operator\'s setting; English as stored', () => {
  const refused = 'address refused: 127.0.0.1 is a loopback address (WEBHOOK_ALLOW_PRIVATE can admit it for development)';
  assert.equal(reasonWords(refused, 'en'), refused);
  assert.equal(reasonWords(refused, 'de'), 'Abgewiesen: 127.0.0.1 ist eine private oder lokale Adresse, Webhooks gehen nur an öffentliche Server.');
  assert.equal(reasonWords('address refused: hooks.internal resolves to a private address (WEBHOOK_ALLOW_PRIVATE can admit it for development)', 'de'),
    'Abgewiesen: hooks.internal verweist auf eine private oder lokale Adresse, Webhooks gehen nur an öffentliche Server.');
  assert.equal(reasonWords('timed out after 15000 ms', 'de'), 'Keine Antwort innerhalb von 15 s.');
  assert.equal(reasonWords('host name not resolved (ENOTFOUND)', 'de'), 'Diesen Host-Namen gibt es nicht, oder er ließ sich nicht auflösen.');
  assert.equal(reasonWords('connection refused', 'de'), 'Der Server hat die Verbindung abgelehnt.');
});

test('invitation reasons in German, with their figures; an SMTP server\'s own answer as stored', () => {
  assert.equal(reasonWords('the guest was invited within the last 30 days', 'de'), 'Der Gast wurde in den letzten 30 Tagen schon eingeladen.');
  assert.equal(reasonWords('the guest has not granted consent', 'de'), 'Der Gast hat E-Mails nicht zugestimmt.');
  assert.equal(reasonWords('550 5.1.1 mailbox unavailable', 'de'), '550 5.1.1 mailbox unavailable');
});

test('a length limit beside a field, with the thousands as the page\'s language groups them', () => {
  assert.equal(faultWords('body.text must NOT have more than 100000 characters', 'de'), 'Bitte höchstens 100.000 Zeichen.');
  assert.equal(faultWords('body.text must NOT have more than 100000 characters', 'en'), 'At most 100,000 characters, please.');
});
