// A generated recommendation said from its figures (src/modules/insights/recommendation-text.ts):
// the API's English, and the dashboard's German, with every sentence the figures call for.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { RecommendationFacts } from '../../src/modules/insights/recommendation-facts.ts';
import { recommendationText } from '../../src/modules/insights/recommendation-text.ts';

const facts: RecommendationFacts = {
  node: 'Harbour Hotel', topic: 'Breakfast', recent: { negative: 6, total: 10 }, before: { negative: 1, total: 10 },
  others: { negative: 2, total: 20 }, quotes: ['cold eggs', 'no coffee'], gain: 0.125,
};

test('English: the figures, the change against the 90 days before, the other properties, quotes and impact', () => {
  assert.deepEqual(recommendationText(facts, 'en'), {
    title: 'Breakfast at Harbour Hotel: 60 % of mentions negative',
    body: '6 of 10 mentions of Breakfast at Harbour Hotel in the last 90 days are negative (60 %). '
      + 'In the 90 days before: 1 of 10 (10 %), up 50 points. At the account\'s other properties: 10 % negative. '
      + 'Guests wrote: “cold eggs” “no coffee”',
    impact: 'about +0.13 on the average rating (of 5)',
  });
});

test('German, with the topic named by the page; a fall of one point; no comparison, quotes or impact when there are none', () => {
  const fewer: RecommendationFacts = { ...facts, recent: { negative: 49, total: 100 }, before: { negative: 50, total: 100 }, others: null, quotes: [], gain: null };
  assert.deepEqual(recommendationText(fewer, 'de', 'Frühstück'), {
    title: 'Frühstück in Harbour Hotel: 49 % der Erwähnungen negativ',
    body: '49 von 100 Erwähnungen von Frühstück in Harbour Hotel in den letzten 90 Tagen sind negativ (49 %). '
      + 'In den 90 Tagen davor: 50 von 100 (50 %), jetzt 1 Prozentpunkt weniger.',
    impact: null,
  });
  assert.equal(recommendationText(facts, 'de', 'Frühstück').impact, 'etwa +0,13 auf die Durchschnittsbewertung (von 5)');
  assert.match(recommendationText(facts, 'de', 'Frühstück').body, /Gäste schrieben: „cold eggs“ „no coffee“$/);
});

test('a language without sentences of its own gets English', () => {
  assert.deepEqual(recommendationText(facts, 'fr'), recommendationText(facts, 'en'));
});

test('a share that did not move is said to be unchanged, not "up 0 points"', () => {
  const same: RecommendationFacts = { ...facts, before: { negative: 6, total: 10 } };
  assert.match(recommendationText(same, 'en').body, /In the 90 days before: 6 of 10 \(60 %\), unchanged\./);
  assert.match(recommendationText(same, 'de', 'Frühstück').body, /In den 90 Tagen davor: 6 von 10 \(60 %\), unverändert\./);
});
