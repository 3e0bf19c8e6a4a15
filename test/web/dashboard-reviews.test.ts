// The review inbox (/reviews, src/web/dashboard/reviews.ts): a user sees the reviews of their reach
// only, newest first and filtered with the API's own listing; a manager answers (owner_reply through
// the public API, review.replied emitted) and hides; a viewer reads only; forged ids answer 404;
// output is escaped; a bad filter or an empty reply is shown beside its field.
import assert from 'node:assert/strict';
import { eachDatabase } from '../support/each-database.ts';
import { createKey, createReview, createTree } from '../support/factories.ts';
import { createUser, csrfOf, signedIn } from '../support/dashboard.ts';

const articles = (html: string): string[] => [...html.matchAll(/<article id="review-([^"]+)"/g)].map((m) => m[1]!);

eachDatabase('a manager bound to one hotel reads its reviews, answers one and hides one; the API sees both', async (t) => {
  const tree = await createTree(t);
  const other = await createTree(t, { name: 'Other group' });
  const mine = await createReview(t, tree.accountId, tree.properties[0], { text: 'Lovely <b>breakfast</b>', rating: 5 });
  const second = await createReview(t, tree.accountId, tree.properties[0], { text: 'Noisy room', rating: 2 });
  const elsewhere = await createReview(t, tree.accountId, tree.properties[2], { text: 'Beach was great' });
  const foreign = await createReview(t, other.accountId, other.properties[0], { text: 'Not yours' });
  const manager = await createUser(t, tree.accountId, 'manager', tree.properties[0]);
  const client = await signedIn(t, manager.email);

  const inbox = await client.get('/reviews');
  assert.equal(inbox.statusCode, 200);
  assert.deepEqual(articles(inbox.body), [second.id, mine.id], 'newest first, its hotel only');
  assert.ok(inbox.body.includes('Lovely &lt;b&gt;breakfast&lt;/b&gt;'));
  assert.ok(!inbox.body.includes('<b>breakfast</b>'));
  // Platforms by their names; the filter still sends the API's code.
  assert.match(inbox.body, /<option value="booking">Booking\.com<\/option>/);
  assert.match(inbox.body, /<p class="muted">[^<]* · Google · /);
  assert.match(inbox.body, /<label for="reply-[^"]+">Reply<\/label>/);
  // One form around the page: each review's field and buttons post to that review.
  assert.match(inbox.body, new RegExp(`<textarea id="reply-\\d+" name="reply-${mine.id}"`));
  assert.match(inbox.body, new RegExp(`<button type="submit" formaction="/reviews/${mine.id}/reply" aria-describedby="review-\\d+-head">Send reply</button>`));
  // Each review's field and buttons are described by its heading: a screen reader hears which review "Reply" and "Hide" are for.
  const [, n] = new RegExp(`<textarea id="reply-(\\d+)" name="reply-${mine.id}"`).exec(inbox.body) ?? [];
  assert.match(inbox.body, new RegExp(`<h2 class="review-head" id="review-${n}-head">`));
  assert.match(inbox.body, new RegExp(`<textarea id="reply-${n}" name="reply-${mine.id}" rows="3" maxlength="100000" aria-describedby="review-${n}-head">`));
  assert.match(inbox.body, new RegExp(`formaction="/reviews/${mine.id}/hidden" aria-describedby="review-${n}-head"`));
  assert.equal([...inbox.body.matchAll(/name="_csrf"/g)].length, 2, 'the answers form and Sign out carry the token once each');

  const csrf = csrfOf(inbox.body);
  // As the browser sends it: every review's field, the clicked review's is the reply.
  const sent = await client.post(`/reviews/${mine.id}/reply`, {
    _csrf: csrf, [`reply-${second.id}`]: 'not this one', [`reply-${mine.id}`]: 'Thank you, see you soon!', back: '/reviews?replied=no',
  });
  // What was typed for the other review is not lost: the inbox comes back with it, the confirmation
  // taking the focus (so it is in view), and its reload is the inbox with the confirmation.
  assert.equal(sent.statusCode, 200);
  assert.match(sent.body, new RegExp(`<textarea id="reply-\\d+" name="reply-${second.id}"[^>]*>not this one</textarea>`));
  assert.match(sent.body, /<p class="notice" role="status" id="sent" tabindex="-1" autofocus>Reply saved\. Connected systems receive it; Repute itself does not post it to the review site\.<\/p>/);
  assert.match(sent.body, new RegExp(`<link rel="canonical" href="/reviews\\?replied=no&amp;sent=${mine.id}">`));
  // With nothing else typed, the answer is a redirect to the confirmation, where #sent lands.
  const quiet = await createReview(t, tree.accountId, tree.properties[0], { text: 'Quiet room', rating: 4 });
  const plain = await client.post(`/reviews/${quiet.id}/reply`, { _csrf: csrf, [`reply-${quiet.id}`]: 'Thanks!', [`reply-${second.id}`]: '  ', back: '/reviews?replied=no' });
  assert.equal(plain.statusCode, 303);
  assert.equal(plain.headers.location, `/reviews?replied=no&sent=${quiet.id}#sent`);
  // Back on the inbox, the reply is confirmed at the top (the "not replied" filter now leaves the review
  // out), where the address's #sent lands; the confirmation takes the focus, so a screen reader says it.
  const after = await client.get(`/reviews?replied=no&sent=${mine.id}`);
  const notice = after.body.indexOf('<p class="notice" role="status" id="sent" tabindex="-1" autofocus>Reply saved. Connected systems receive it; Repute itself does not post it to the review site.</p>');
  assert.ok(notice > 0 && notice < after.body.indexOf('<article'), 'above the reviews');
  // Where the page still shows the review, the confirmation is inside it, beneath the reply.
  const inPlace = await client.get(`/reviews?sent=${mine.id}`);
  assert.match(inPlace.body, new RegExp(`<article id="review-${mine.id}" class="review">(?:(?!</article>)[\\s\\S])*<div class="owner-reply">(?:(?!</article>)[\\s\\S])*<p class="notice" role="status" id="sent" tabindex="-1" autofocus>Reply saved\\. Connected systems receive it; Repute itself does not post it to the review site\\.</p>`));
  assert.equal((inPlace.body.match(/Reply saved\./g) ?? []).length, 1);
  assert.doesNotMatch((await client.get('/reviews?replied=no')).body, /Reply saved\./);
  const key = await createKey(t, tree.accountId, tree.root);
  assert.equal((await t.api(key, 'GET', `/reviews/${mine.id}`)).json().owner_reply, 'Thank you, see you soon!');
  assert.equal((await t.api(key, 'GET', `/reviews/${second.id}`)).json().owner_reply, null);
  const replied = await t.ctx.db.selectFrom('events').select('type').where('type', '=', 'review.replied').execute();
  assert.equal(replied.length, 2);
  assert.deepEqual(articles((await client.get('/reviews?replied=no')).body), [second.id], 'the filter leaves out the answered ones');
  assert.deepEqual(articles((await client.get('/reviews?rating_max=3')).body), [second.id]);

  const hidden = await client.post(`/reviews/${second.id}/hidden`, { _csrf: csrf, hidden: '1', back: 'https://evil.example/' });
  assert.equal(hidden.statusCode, 303);
  assert.equal(hidden.headers.location, `/reviews#review-${second.id}`, 'never an address of another site');
  assert.equal((await t.api(key, 'GET', `/reviews/${second.id}`)).json().is_hidden, true);
  // A back address a Location header cannot carry (it answered 500 after the review was unhidden): the inbox.
  for (const back of ['/reviews?platform=Ā', '/reviews?platform=\u0001']) {
    const odd = await client.post(`/reviews/${second.id}/hidden`, { _csrf: csrf, hidden: '1', back });
    assert.equal(odd.statusCode, 303, back);
    assert.equal(odd.headers.location, `/reviews#review-${second.id}`);
  }
  // Hiding with a reply half typed elsewhere on the page: the page comes back with it, the hidden review in focus.
  const hiddenWithDraft = await client.post(`/reviews/${second.id}/hidden`, { _csrf: csrf, hidden: '0', [`reply-${quiet.id}`]: 'Half a thought', back: '/reviews' });
  assert.equal(hiddenWithDraft.statusCode, 200);
  assert.match(hiddenWithDraft.body, new RegExp(`name="reply-${quiet.id}"[^>]*>Half a thought</textarea>`));
  assert.match(hiddenWithDraft.body, /<h2 class="review-head" id="review-\d+-head" tabindex="-1" autofocus>/);
  assert.equal((await t.api(key, 'GET', `/reviews/${second.id}`)).json().is_hidden, false);

  // Out of reach: another hotel of the account, another account; a forged id.
  for (const id of [elsewhere.id, foreign.id, 'not-an-id']) {
    assert.equal((await client.post(`/reviews/${id}/reply`, { _csrf: csrf, reply: 'x' })).statusCode, 404, id);
  }
  assert.equal((await t.api(key, 'GET', `/reviews/${elsewhere.id}`)).json().owner_reply, null);
  // Without the CSRF token: refused.
  assert.equal((await client.post(`/reviews/${mine.id}/reply`, { reply: 'forged' })).statusCode, 403);
  // An empty reply is shown beside its field.
  const empty = await client.post(`/reviews/${mine.id}/reply`, { _csrf: csrf, reply: '   ', back: '/reviews' });
  assert.equal(empty.statusCode, 400);
  assert.match(empty.body, /<span class="field-fault" role="alert" id="reply-\d+-fault">Please fill this in\.<\/span>/);
});

eachDatabase('a viewer reads the inbox without forms and may not answer; a bad filter is named', async (t) => {
  const tree = await createTree(t);
  const review = await createReview(t, tree.accountId, tree.properties[1], { text: 'Fine stay' });
  const viewer = await createUser(t, tree.accountId, 'viewer');
  const client = await signedIn(t, viewer.email);
  const inbox = await client.get('/reviews');
  assert.equal(inbox.statusCode, 200);
  assert.deepEqual(articles(inbox.body), [review.id]);
  assert.doesNotMatch(inbox.body, /Send reply/);
  const csrf = csrfOf(inbox.body); // the frame's Sign out form
  assert.equal((await client.post(`/reviews/${review.id}/reply`, { _csrf: csrf, reply: 'hello' })).statusCode, 403);
  const bad = await client.get('/reviews?from=yesterday');
  assert.equal(bad.statusCode, 400);
  assert.match(bad.body, /<input id="f-from" name="from" type="date" value="yesterday" aria-invalid="true" aria-describedby="from-fault" autofocus><span class="field-fault" id="from-fault">Please enter a date\.<\/span>/, 'the fault stands next to its field, which is marked');
  // Every fault at once, each beside its field; a day the calendar does not have is not a date.
  const several = await client.get('/reviews?from=2026-02-30&to=soon&rating_min=9', { 'accept-language': 'de' });
  assert.equal(several.statusCode, 400);
  assert.match(several.body, /id="from-fault">Bitte geben Sie ein Datum ein\.</);
  assert.match(several.body, /id="to-fault">Bitte geben Sie ein Datum ein\.</);
  assert.match(several.body, /id="rating_min-fault">Bitte geben Sie 5 oder weniger ein\.</);
  // The first faulty field takes the focus (in the form's order), the others are marked.
  assert.match(several.body, /<select id="f-min" name="rating_min" aria-invalid="true" aria-describedby="rating_min-fault" autofocus>/);
  assert.match(several.body, /<input id="f-to" name="to" type="date" value="soon" aria-invalid="true" aria-describedby="to-fault">/, 'every faulty field marked at once');
  const reversed = await client.get('/reviews?rating_min=5&rating_max=1');
  assert.match(reversed.body, /id="rating_min-fault">The lowest rating must not be above the highest\.</);
  // A property outside the user's reach, typed into the address: a fault of the filter, not a missing page.
  const stranger = await createTree(t);
  const outside = await client.get(`/reviews?node_id=${stranger.properties[0]}`);
  assert.equal(outside.statusCode, 400);
  assert.match(outside.body, /id="node_id-fault">Please choose your own part of the account or one below it\.</);
  const badLanguage = await client.get(`/reviews?language=${'x'.repeat(40)}`);
  assert.equal(badLanguage.statusCode, 400);
  assert.match(badLanguage.body, /<datalist id="f-lang-choices">.*<\/datalist><span class="field-fault" id="language-fault">/, 'the language fault stands next to its field');
  const german = await client.get('/reviews', { 'accept-language': 'de' });
  assert.match(german.body, /<h1>Bewertungen<\/h1>/);
  // The language filter suggests the five extraction languages, named in the page's language.
  assert.match(german.body, /<input id="f-lang" name="language" type="text" size="5" list="f-lang-choices" value="">/);
  assert.match(german.body, /<option value="fr">Französisch<\/option>/);
  assert.match(inbox.body, /<option value="fr">French<\/option>/);
  // A review's language by its name; the filter takes a language's name or its code in any case.
  const french = await createReview(t, tree.accountId, tree.properties[1], { text: 'Très bien', language: 'fr' });
  assert.match((await client.get('/reviews', { 'accept-language': 'de' })).body, /<p class="muted">[^<]*<time[^>]*>[^<]*<\/time> · Französisch</);
  for (const typed of ['fr', 'FR', 'Französisch', 'french']) {
    assert.deepEqual(articles((await client.get(`/reviews?language=${encodeURIComponent(typed)}`, { 'accept-language': 'de' })).body), [french.id], typed);
  }
  // On an English page too, by its own name or another of the five languages' ("Français", "Französisch").
  for (const typed of ['Français', 'Französisch', 'francese']) {
    assert.deepEqual(articles((await client.get(`/reviews?language=${encodeURIComponent(typed)}`, { 'accept-language': 'en' })).body), [french.id], typed);
  }
});

eachDatabase('answering a review on the second page comes back to that page, not the first', async (t) => {
  const tree = await createTree(t);
  for (let i = 0; i < 27; i++) await createReview(t, tree.accountId, tree.properties[0], { text: `Review ${i}`, rating: 2 });
  const client = await signedIn(t, (await createUser(t, tree.accountId, 'manager')).email);
  const first = await client.get('/reviews?rating_max=2');
  const older = /<a class="button secondary" href="([^"]+)">Older reviews<\/a>/.exec(first.body)?.[1]?.replaceAll('&amp;', '&');
  assert.ok(older, 'a link to the second page');
  const second = await client.get(older);
  assert.match(second.body, /<a href="\/reviews\?rating_max=2">Back to the newest<\/a>/, 'a later page leads back to the first, filters kept');
  assert.doesNotMatch(first.body, /Back to the newest/);
  const [review] = articles(second.body);
  assert.ok(review && !articles(first.body).includes(review));
  const back = /name="back" value="([^"]+)"/.exec(second.body)?.[1]?.replaceAll('&amp;', '&');
  assert.equal(back, older, 'the page\'s forms come back to this page, cursor and filters kept');
  const sent = await client.post(`/reviews/${review}/reply`, { _csrf: csrfOf(second.body), [`reply-${review}`]: 'Thank you', back: back! });
  assert.equal(sent.statusCode, 303);
  assert.equal(sent.headers.location, `${older}&sent=${review}#sent`);
  assert.ok(articles((await client.get(String(sent.headers.location).split('#')[0]!)).body).includes(review));
});
