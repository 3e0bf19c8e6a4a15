// GET /reviews and GET /insights/mentions are written with JSON.stringify, not their response
// schema's serializer (src/http/as-built.ts). Their answers must still be exactly what the schema's
// serializer makes of them: same fields, same order, same types, same escaping. Checked on awkward
// data: quotes, backslashes, control characters, line separators, emoji, other scripts, nulls,
// fractional numbers, a hidden review, a full page with its next cursor and the last page.
import assert from 'node:assert/strict';
import Fastify from 'fastify';
import type { TSchema } from 'typebox';
import { Page } from '../../src/http/schemas.ts';
import { Mention } from '../../src/modules/insights/schemas.ts';
import { Review } from '../../src/modules/reviews/schemas.ts';
import type { TestApp } from '../support/app.ts';
import { eachDatabase } from '../support/each-database.ts';
import { createKey, createReview, createTree } from '../support/factories.ts';

/** What Fastify's own serializer for `schema` (fast-json-stringify) writes for `data`. */
async function schemaSerialized(schema: TSchema, data: unknown): Promise<string> {
  const app = Fastify();
  app.get('/', { schema: { response: { 200: schema } } }, async () => data);
  try {
    return (await app.inject('/')).body;
  } finally {
    await app.close();
  }
}

const AWKWARD = [
  'He said "perfect" \\ then left\n\ttabbed',
  'bell \u0007 and unit separator \u001f, line\u2028separator\u2029',
  'Zimmer 😀 très propre, 部屋はきれい, غرفة نظيفة',
  '</script><b>bold</b> & ampersand',
];

async function pageMatchesSchema(t: TestApp, key: string, path: string, schema: TSchema): Promise<number> {
  let cursor: string | null = null;
  let pages = 0;
  do {
    const r = await t.api(key, 'GET', `${path}?limit=2${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`);
    assert.equal(r.statusCode, 200, r.body);
    // As every other JSON answer: a client that reads the media type must see JSON.
    assert.equal(r.headers['content-type'], 'application/json; charset=utf-8', `${path}: content-type`);
    const answer = r.json();
    assert.equal(r.body, await schemaSerialized(schema, answer), `${path}, page ${pages + 1}: the answer is not what its schema writes`);
    cursor = answer.next_cursor;
    pages += 1;
  } while (cursor);
  return pages;
}

eachDatabase('GET /reviews and GET /insights/mentions answer byte for byte what their response schemas write', async (t) => {
  const tree = await createTree(t);
  const key = await createKey(t, tree.accountId, tree.root);
  const node = tree.properties[0]!;
  const reviews = [
    await createReview(t, tree.accountId, node, { title: AWKWARD[0], text: AWKWARD[1], author: AWKWARD[2], rating: 4.5, language: 'fr', sentiment: 'positive' }),
    await createReview(t, tree.accountId, node, { title: null, text: AWKWARD[3], rating: null, url: 'https://example.com/r?a=1&b="2"' }),
    await createReview(t, tree.accountId, node, { text: AWKWARD[2], rating: 1, rating_normalized: 2.25 }),
  ];
  assert.equal((await t.admin('PUT', `/reviews/${reviews[0].id}/reply`, { text: AWKWARD[0] })).statusCode, 200);
  assert.equal((await t.admin('PATCH', `/reviews/${reviews[2].id}`, { is_hidden: true })).statusCode, 200);
  const topics = (await t.api(key, 'GET', '/insights/topics')).json().data as Array<{ id: string }>;
  for (const [i, text] of AWKWARD.entries()) {
    const r = await t.admin('POST', `/reviews/${reviews[i % reviews.length].id}/mentions`, {
      canonical_label_id: topics[i]!.id, text, source_field: i % 2 ? 'title' : 'text',
      sentiment: i === 1 ? null : 'negative', confidence: i === 2 ? null : 0.75 - i / 10,
    });
    assert.equal(r.statusCode, 201, r.body);
  }
  assert.equal(await pageMatchesSchema(t, key, '/reviews', Page(Review)), 2);
  assert.ok(await pageMatchesSchema(t, key, '/insights/mentions', Page(Mention)) >= 2);
});
