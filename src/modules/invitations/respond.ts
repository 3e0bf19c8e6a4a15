// What a guest's links do (shared/spec/surveys.md): the survey link opens the survey (creating the
// response, `started`, once) and takes the answers (completing it once, with the event); a public
// QR-code link takes answers without an invitation; the unsubscribe link withdraws consent for good.
// An unknown or altered token is a 404, whatever the method.
import type { Kysely } from 'kysely';
import type { DB, SurveyRow } from '../../db/schema.ts';
import { appendEvent } from '../../events/outbox.ts';
import { inTransaction } from '../../db/transaction.ts';
import { notFound } from '../../lib/errors.ts';
import { lookup } from '../../lib/ids.ts';
import { parseJson } from '../../lib/json.ts';
import { nowIso } from '../../lib/time.ts';
import { findNode } from '../nodes/repository.ts';
import { PROPERTY } from '../nodes/service.ts';
import { overallScore, type ParsedForm, parseForm, ratingScales } from '../surveys/answers.ts';
import { type Definition, languagesOf, parseDefinition } from '../surveys/definition.ts';
import { findResponseRow, findSurveyRow, startResponse, submitResponse } from '../surveys/service.ts';
import { isSecretTokenShaped, secretTokenHash } from '../../lib/secret-token.ts';
import * as repo from './repository.ts';

/** The survey as a page shows it. */
export interface SurveyView {
  surveyId: string;
  name: string;
  /** The hotel the guest is asked about (the stay's property, or the QR code's), when there is one. */
  place: string | null;
  definition: Definition;
  primaryLanguage: string;
  languages: string[];
}

export type PageOutcome =
  | { kind: 'form'; survey: SurveyView; language: string | null; form: ParsedForm | null }
  | { kind: 'thanks'; survey: SurveyView; language: string | null };

export const invalidLink = () => notFound('link', 'This link is not valid: it may be mistyped or cut short.');

function viewOf(survey: SurveyRow, place: string | null): SurveyView {
  const definition = parseDefinition(parseJson<unknown>(survey.published_definition, {}), 'definition');
  return { surveyId: survey.id, name: survey.name, place, definition, primaryLanguage: survey.primary_language, languages: languagesOf(definition, survey.primary_language) };
}

/** The name of the hotel a page is about: the node's, when it is a property. */
async function placeOf(db: Kysely<DB>, nodeId: string): Promise<string | null> {
  const node = await findNode(db, nodeId);
  return node?.type === PROPERTY ? node.name : null;
}

async function invitationByToken(db: Kysely<DB>, token: string, purpose: 'survey' | 'unsubscribe'): Promise<repo.InvitationRow> {
  if (!isSecretTokenShaped(token)) throw invalidLink();
  const hash = secretTokenHash(token);
  const row = purpose === 'survey' ? await repo.findBySurveyToken(db, hash) : await repo.findByUnsubscribeToken(db, hash);
  if (!row) throw invalidLink();
  return row;
}

async function publishedSurvey(db: Kysely<DB>, id: string): Promise<SurveyRow> {
  const survey = await findSurveyRow(db, id);
  if (survey?.status !== 'published' || survey.published_definition === null) throw invalidLink();
  return survey;
}

const languageOf = (invitation: repo.InvitationRow): string | null => invitation.language || null;

/** GET /s/<token>: the first open creates the response (started) and marks the invitation opened. */
export async function openInvitation(db: Kysely<DB>, token: string): Promise<PageOutcome> {
  const invitation = await invitationByToken(db, token, 'survey');
  const survey = await publishedSurvey(db, invitation.survey_id);
  const view = viewOf(survey, await placeOf(db, invitation.node_id));
  if (invitation.response_id !== null) {
    const response = await findResponseRow(db, invitation.response_id);
    if (response?.status === 'completed') return { kind: 'thanks', survey: view, language: languageOf(invitation) };
    return { kind: 'form', survey: view, language: languageOf(invitation), form: null };
  }
  await inTransaction(db, async (trx) => {
    const now = nowIso();
    // The write first, and conditional: of two opens at once one creates the response.
    const claimed = await trx.updateTable('survey_invitations').set({ opened_at: now, updated_at: now })
      .where('id', '=', invitation.id).where('response_id', 'is', null).where('opened_at', 'is', null).executeTakeFirst();
    if (Number(claimed.numUpdatedRows) === 0) return;
    const responseId = await startResponse(trx, survey, invitation.node_id, 'email');
    await repo.updateInvitation(trx, invitation.id, { response_id: responseId });
  });
  return { kind: 'form', survey: view, language: languageOf(invitation), form: null };
}

/** POST /s/<token>: faults re-show the form; valid answers complete the response once. */
export async function submitInvitation(db: Kysely<DB>, token: string, body: Record<string, unknown>): Promise<PageOutcome> {
  const invitation = await invitationByToken(db, token, 'survey');
  const survey = await publishedSurvey(db, invitation.survey_id);
  const view = viewOf(survey, await placeOf(db, invitation.node_id));
  const language = languageOf(invitation);
  if (invitation.response_id !== null && (await findResponseRow(db, invitation.response_id))?.status === 'completed') {
    return { kind: 'thanks', survey: view, language };
  }
  const form = parseForm(view.definition, body);
  if (form.faults.size > 0) return { kind: 'form', survey: view, language, form };
  await inTransaction(db, async (trx) => {
    const now = nowIso();
    let responseId = invitation.response_id;
    if (responseId === null) {
      // Answered without the page being opened first (a form posted from elsewhere): start it now.
      const claimed = await trx.updateTable('survey_invitations').set({ opened_at: now, updated_at: now })
        .where('id', '=', invitation.id).where('response_id', 'is', null).executeTakeFirst();
      if (Number(claimed.numUpdatedRows) > 0) {
        responseId = await startResponse(trx, survey, invitation.node_id, 'email');
        await repo.updateInvitation(trx, invitation.id, { response_id: responseId });
      } else {
        responseId = (await repo.findBySurveyToken(trx, invitation.survey_token_hash))?.response_id ?? null;
      }
    }
    if (responseId !== null && (await submitResponse(trx, responseId, form.answers, overallScore(ratingScales(view.definition), form.answers)))) {
      await repo.updateInvitation(trx, invitation.id, { answered_at: now, updated_at: now });
    }
  });
  return { kind: 'thanks', survey: view, language };
}

/** The survey and property of a public (QR-code) link, or 404: the property must be in the survey's subtree. */
async function publicTarget(db: Kysely<DB>, surveyId: string, nodeId: string | undefined): Promise<{ survey: SurveyRow; nodeId: string; place: string }> {
  const survey = await publishedSurvey(db, surveyId);
  if (!nodeId) throw notFound('property', 'This link is not valid: it names no hotel (?node=…).');
  const [owner, node] = await Promise.all([findNode(db, survey.node_id), lookup(nodeId, (uuid) => findNode(db, uuid))]);
  if (!owner || !node || node.account_id !== survey.account_id || node.type !== PROPERTY || !node.path.startsWith(owner.path)) throw invalidLink();
  return { survey, nodeId: node.id, place: node.name };
}

/** GET /s/public/<survey id>?node=…: nothing is stored until the guest submits. */
export async function openPublic(db: Kysely<DB>, surveyId: string, nodeId: string | undefined): Promise<SurveyView> {
  const target = await publicTarget(db, surveyId, nodeId);
  return viewOf(target.survey, target.place);
}

/** POST /s/public/<survey id>?node=…: a completed response (channel qr_code) with no personal data. */
export async function submitPublic(db: Kysely<DB>, surveyId: string, nodeId: string | undefined, body: Record<string, unknown>): Promise<PageOutcome> {
  const { survey, nodeId: property, place } = await publicTarget(db, surveyId, nodeId);
  const view = viewOf(survey, place);
  const form = parseForm(view.definition, body);
  if (form.faults.size > 0) return { kind: 'form', survey: view, language: null, form };
  await inTransaction(db, async (trx) => {
    const responseId = await startResponse(trx, survey, property, 'qr_code');
    await submitResponse(trx, responseId, form.answers, overallScore(ratingScales(view.definition), form.answers));
  });
  return { kind: 'thanks', survey: view, language: null };
}

/** GET /u/<token>: the page only checks the link; nothing changes until the guest confirms. */
export async function checkUnsubscribeLink(db: Kysely<DB>, token: string): Promise<{ language: string | null; place: string | null; unsubscribed: boolean }> {
  const invitation = await invitationByToken(db, token, 'unsubscribe');
  // A guest who already unsubscribed (by this link or another way), whose consent the hotel has
  // withdrawn (the operator's unsubscribe), or who was erased (nothing is sent to them any more) is
  // told so, not offered the button again.
  const guest = await db.selectFrom('guests').select(['unsubscribed_at', 'marketing_consent']).where('id', '=', invitation.guest_id).executeTakeFirst();
  const unsubscribed = guest === undefined || guest.unsubscribed_at !== null || guest.marketing_consent === 'withdrawn';
  return { language: languageOf(invitation), place: await placeOf(db, invitation.node_id), unsubscribed };
}

/**
 * POST /u/<token> (the page's button, or a mail provider's RFC 8058 one-click POST): withdraws the
 * guest's invitation-email consent for good (unsubscribed_at outlives any later grant), emits
 * guest.unsubscribed when consent changed, and cancels invitations not yet sent.
 */
export async function unsubscribeByToken(db: Kysely<DB>, token: string): Promise<{ language: string | null; place: string | null }> {
  const invitation = await invitationByToken(db, token, 'unsubscribe');
  await inTransaction(db, async (trx) => {
    const now = nowIso();
    const changed = await trx.updateTable('guests').set({ marketing_consent: 'withdrawn', unsubscribed_at: now, updated_at: now })
      .where('id', '=', invitation.guest_id).where('marketing_consent', '<>', 'withdrawn').returning(['id', 'property_id', 'account_id']).executeTakeFirst();
    await trx.updateTable('guests').set({ unsubscribed_at: now }).where('id', '=', invitation.guest_id).where('unsubscribed_at', 'is', null).execute();
    if (changed) {
      await appendEvent(trx, { accountId: changed.account_id, type: 'guest.unsubscribed', data: { guest_id: changed.id, property_id: changed.property_id } });
    }
    await trx.updateTable('survey_invitations').set({ status: 'cancelled', last_error: 'the guest unsubscribed', updated_at: now })
      .where('guest_id', '=', invitation.guest_id).where('status', '=', 'scheduled')
      .where((eb) => eb.or([eb('lease_until', 'is', null), eb('lease_until', '<', now)])).execute();
  });
  return { language: languageOf(invitation), place: await placeOf(db, invitation.node_id) };
}
