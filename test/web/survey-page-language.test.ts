// The survey page's own words (Submit, Yes, No, what a scale's ends mean) exist in five languages. A
// survey written in another is shown in it, with those words in English and marked so: a screen
// reader must not read "Submit" as Dutch.
import assert from 'node:assert/strict';
import { eachDatabase } from '../support/each-database.ts';
import { createTree } from '../support/factories.ts';

const DUTCH = {
  pages: [{ id: 'stay', title: { en: 'Your stay', nl: 'Uw verblijf' }, questions: [
    { id: 'again', type: 'yes_no', text: { en: 'Would you come again?', nl: 'Komt u nog eens terug?' } },
    { id: 'room', type: 'rating', scale: 5, text: { en: 'Your room', nl: 'Uw kamer' } },
  ] }],
};

eachDatabase('a survey page in a language outside the five marks its own English words with lang="en"', async (t) => {
  const tree = await createTree(t);
  const survey = await t.admin('POST', `/accounts/${tree.accountId}/surveys`, { node_id: tree.root, name: 'Verblijf', definition: DUTCH, status: 'published', primary_language: 'nl' });
  assert.equal(survey.statusCode, 201, survey.body);
  const page = (language: string) => t.app.inject({ method: 'GET', url: `/s/public/${survey.json().id}?node=${tree.properties[0]}`, headers: { 'accept-language': language } });

  const dutch = (await page('nl')).body;
  assert.match(dutch, /<html lang="nl"/);
  assert.match(dutch, /<legend>Komt u nog eens terug\?/);
  assert.match(dutch, /<span lang="en">Yes<\/span>/);
  assert.match(dutch, /<span lang="en">No<\/span>/);
  assert.match(dutch, /<button type="submit" lang="en">Submit<\/button>/);
  assert.match(dutch, /class="muted scale-ends" id="[^"]+-ends" lang="en"/);

  // In English, nothing is marked: the page's words are the page's language.
  const english = (await page('en')).body;
  assert.match(english, /<html lang="en"/);
  assert.match(english, /<button type="submit">Submit<\/button>/);
  assert.doesNotMatch(english, /<(span|p|button)[^>]* lang="en"/);
});
