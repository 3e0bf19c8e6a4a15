// A survey's public link (shared/spec/surveys.md: answered without an invitation, from a QR code in
// a room): its address for one hotel, the hotels a dashboard user may make one for, and the QR
// code that carries it, as SVG (uqr: encodes and draws, no dependencies, nothing fetched).
import type { Kysely } from 'kysely';
import { renderSVG } from 'uqr';
import type { DB } from '../../db/schema.ts';
import { findNode, listSubtreeProperties } from '../nodes/repository.ts';
import type { PropertyName } from '../nodes/service.ts';

/** The public link's path: `/s/public/<survey id>?node=<hotel id>` (without a hotel when none was named). */
export const publicSurveyPath = (surveyId: string, propertyId?: string): string =>
  `/s/public/${encodeURIComponent(surveyId)}${propertyId === undefined ? '' : `?node=${encodeURIComponent(propertyId)}`}`;

/**
 * The hotels a public link of the survey may name for a user: of the properties the user sees
 * (`visible`, their reach), those at or below the survey's node (what the link accepts), in order.
 */
export async function publicLinkProperties(db: Kysely<DB>, survey: { node_id: string }, visible: readonly PropertyName[]): Promise<PropertyName[]> {
  const owner = await findNode(db, survey.node_id);
  if (!owner) return [];
  const underSurvey = new Set((await listSubtreeProperties(db, owner.path)).map((p) => p.id));
  return visible.filter((p) => underSurvey.has(p.id));
}

/**
 * The QR code of an address as an SVG document. Error correction M (15 %) survives a worn print;
 * a quiet zone of four modules, as the QR standard asks, lets phones find it on any background.
 */
export const qrCodeSvg = (address: string): string => renderSVG(address, { ecc: 'M', border: 4, pixelSize: 8 });
