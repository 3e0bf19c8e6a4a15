// Events from every trigger reach a subscribed receiver: review.received (admin API and import),
// review.replied, review.alert_triggered (max_rating, sentiments, keywords, subtree),
// survey.response_completed (once per response), guest.created, guest.unsubscribed.
import assert from 'node:assert/strict';
import { Readable } from 'node:stream';
import { eachDatabase } from '../support/each-database.ts';
import { createKey, createReview, createTree } from '../support/factories.ts';
import { startReceiver } from '../support/receiver.ts';
import { importNdjson } from '../../src/import/run.ts';
import { createEndpoint, sleep, verified, WEBHOOK_ENV, worker } from './helpers.ts';

const options = { env: WEBHOOK_ENV };

eachDatabase('review.received from the admin API and from an import, review.replied, and alert rules', async (t) => {
  const receiver = await startReceiver();
  const w = worker(t);
  try {
    const tree = await createTree(t);
    const key = await createKey(t, tree.accountId, tree.root, ['webhooks:manage']);
    const { secret } = await createEndpoint(t, key, receiver.url);
    const rule = async (body: Record<string, unknown>) => {
      const r = await t.admin('POST', `/accounts/${tree.accountId}/alert-rules`, body);
      assert.equal(r.statusCode, 201, r.body);
      return r.json().id as string;
    };
    const lowRating = await rule({ node_id: tree.regions[0], max_rating: 2 });
    const negative = await rule({ node_id: tree.root, sentiments: ['negative'] });
    const keyword = await rule({ node_id: tree.properties[2], keywords: ['Mould'] });

    const received = () => receiver.requests.map((r) => verified(secret, r));
    const ofType = (type: string) => received().filter((e) => e.type === type);

    const plain = await createReview(t, tree.accountId, tree.properties[0], { rating: 4, sentiment: 'positive' });
    const low = await createReview(t, tree.accountId, tree.properties[1], { rating: 1 });
    const lowElsewhere = await createReview(t, tree.accountId, tree.properties[2], { rating: 1 }); // outside the region's subtree
    const angry = await createReview(t, tree.accountId, tree.properties[2], { rating: 5, sentiment: 'negative' });
    const mould = await createReview(t, tree.accountId, tree.properties[2], { rating: 4, text: 'Black MOULD in the shower' });
    const mouldElsewhere = await createReview(t, tree.accountId, tree.properties[0], { rating: 4, text: 'mould' });
    // An update in place is not a new review: no event.
    await t.admin('POST', `/accounts/${tree.accountId}/reviews`, {
      node_id: tree.properties[0], platform: 'google', external_id: plain.external_id, reviewed_at: plain.reviewed_at, rating: 3,
    });
    const reply = await t.admin('PUT', `/reviews/${plain.id}/reply`, { text: 'Thank you!' });
    assert.equal(reply.statusCode, 200, reply.body);

    const imported = await importNdjson(t.testDb.database, Readable.from([JSON.stringify({
      type: 'review', account_id: tree.accountId, node_id: tree.properties[1], platform: 'tripadvisor', external_id: 'imp-1',
      reviewed_at: '2026-01-05T10:00:00.000Z', rating: 5,
    }) + '\n']));
    assert.equal(imported.created.review, 1);

    await receiver.waitFor(() => ofType('review.received').length === 7 && ofType('review.alert_triggered').length === 3 && ofType('review.replied').length === 1);
    await sleep(200);
    const ids = (type: string) => ofType(type).map((e) => e.data.review.id).sort();
    assert.deepEqual(ids('review.received').length, 7);
    assert.ok(received().some((e) => e.type === 'review.received' && e.data.review.platform === 'tripadvisor' && e.data.review.external_id === 'imp-1'));
    assert.deepEqual(ids('review.replied'), [plain.id]);
    assert.equal(ofType('review.replied')[0].data.review.owner_reply, 'Thank you!');
    const alerts = ofType('review.alert_triggered').map((e) => `${e.data.review.id}:${e.data.alert_rule_id}`).sort();
    assert.deepEqual(alerts, [`${low.id}:${lowRating}`, `${angry.id}:${negative}`, `${mould.id}:${keyword}`].sort());
    for (const quiet of [lowElsewhere.id, mouldElsewhere.id]) assert.ok(!ofType('review.alert_triggered').some((e) => e.data.review.id === quiet));
    assert.equal(receiver.requests.length, 11);
  } finally {
    await w.stop();
    await receiver.close();
  }
}, options);

eachDatabase('survey.response_completed once per response, guest.created and guest.unsubscribed with ids only', async (t) => {
  const receiver = await startReceiver();
  const w = worker(t);
  try {
    const tree = await createTree(t);
    const manage = await createKey(t, tree.accountId, tree.root, ['webhooks:manage']);
    const guestsKey = await createKey(t, tree.accountId, tree.properties[0], ['guests:write']);
    const { secret } = await createEndpoint(t, manage, receiver.url, ['survey.response_completed', 'guest.created', 'guest.unsubscribed']);

    const survey = await t.admin('POST', `/accounts/${tree.accountId}/surveys`, {
      node_id: tree.root, name: 'Stay', status: 'published',
      definition: { pages: [{ id: 'p1', questions: [{ id: 'nps', type: 'nps', text: { en: 'Recommend us?' } }] }] },
    });
    assert.equal(survey.statusCode, 201, survey.body);
    const surveyId = survey.json().id;
    const respond = (status: string) => t.admin('POST', `/surveys/${surveyId}/responses`, {
      node_id: tree.properties[0], channel: 'email', status, started_at: '2026-03-01T10:00:00.000Z',
      ...(status === 'completed' ? { completed_at: '2026-03-01T10:05:00.000Z', overall_score: 9 } : {}),
    });
    const done = (await respond('completed')).json();
    const started = (await respond('started')).json();
    assert.equal((await t.admin('POST', `/responses/${started.id}/complete`, {})).statusCode, 200);
    assert.equal((await t.admin('POST', `/responses/${started.id}/complete`, {})).statusCode, 200);
    assert.equal((await t.admin('POST', `/responses/${done.id}/complete`, {})).statusCode, 200);

    const guest = await t.api(guestsKey, 'POST', '/guests', { email: 'ann@example.com', first_name: 'Ann', marketing_consent: true });
    assert.equal(guest.statusCode, 201, guest.body);
    await t.api(guestsKey, 'POST', '/guests', { email: 'ann@example.com', last_name: 'Lee' });
    await t.api(guestsKey, 'POST', '/guests', { email: 'ann@example.com', marketing_consent: false });
    const bob = await t.api(guestsKey, 'POST', '/guests', { email: 'bob@example.com', marketing_consent: true });
    const unsub = await t.admin('POST', `/accounts/${tree.accountId}/guests/unsubscribe`, { property_id: tree.properties[0], email: 'bob@example.com' });
    assert.equal(unsub.statusCode, 200, unsub.body);

    await receiver.waitFor((r) => r.length >= 6);
    await sleep(300);
    const events = receiver.requests.map((r) => verified(secret, r));
    const ofType = (type: string) => events.filter((e) => e.type === type);
    assert.deepEqual(ofType('survey.response_completed').map((e) => e.data.response.id).sort(), [done.id, started.id].sort());
    assert.equal(ofType('survey.response_completed')[0].data.response.survey_id, surveyId);
    assert.deepEqual(ofType('guest.created').map((e) => e.data).sort((a, b) => a.guest_id.localeCompare(b.guest_id)),
      [{ guest_id: guest.json().id, property_id: tree.properties[0] }, { guest_id: bob.json().id, property_id: tree.properties[0] }]
        .sort((a, b) => a.guest_id.localeCompare(b.guest_id)));
    assert.deepEqual(ofType('guest.unsubscribed').map((e) => e.data.guest_id).sort(), [guest.json().id, bob.json().id].sort());
    assert.equal(events.length, 6);
    assert.ok(!receiver.requests.some((r) => r.body.includes('@')), 'no personal data leaves in an event');
  } finally {
    await w.stop();
    await receiver.close();
  }
}, options);
