// A generated recommendation's title, body and impact, said from its figures (recommendation-facts.ts)
// in one of the dashboard's languages. English is what the API stores and serves (shared/spec/insights.md);
// the dashboard says the same in the page's language.
import { negativeShare, type RecommendationFacts } from './recommendation-facts.ts';

/** A share as the texts write it: whole percent. */
const percent = (x: number): string => `${Math.round(x * 100)} %`;

export interface RecommendationText { title: string; body: string; impact: string | null }

interface Sentences {
  title(topic: string, node: string, share: string): string;
  recent(negative: number, total: number, topic: string, node: string, share: string): string;
  before(negative: number, total: number, share: string, rose: boolean, points: number): string;
  others(share: string): string;
  quotes(quoted: readonly string[]): string;
  impact(gain: number): string;
}

const ENGLISH: Sentences = {
  title: (topic, node, share) => `${topic} at ${node}: ${share} of mentions negative`,
  recent: (negative, total, topic, node, share) => `${negative} of ${total} mentions of ${topic} at ${node} in the last 90 days are negative (${share}).`,
  before: (negative, total, share, rose, points) =>
    `In the 90 days before: ${negative} of ${total} (${share}), ${points === 0 ? 'unchanged' : `${rose ? 'up' : 'down'} ${points} ${points === 1 ? 'point' : 'points'}`}.`,
  others: (share) => `At the account's other properties: ${share} negative.`,
  quotes: (quoted) => `Guests wrote: ${quoted.map((q) => `“${q}”`).join(' ')}`,
  impact: (gain) => `about +${gain.toFixed(2)} on the average rating (of 5)`,
};

const germanNumber = new Intl.NumberFormat('de', { minimumFractionDigits: 2, maximumFractionDigits: 2 });

const GERMAN: Sentences = {
  title: (topic, node, share) => `${topic} in ${node}: ${share} der Erwähnungen negativ`,
  recent: (negative, total, topic, node, share) =>
    `${negative} von ${total} Erwähnungen von ${topic} in ${node} in den letzten 90 Tagen sind negativ (${share}).`,
  before: (negative, total, share, rose, points) =>
    `In den 90 Tagen davor: ${negative} von ${total} (${share}), ${points === 0 ? 'unverändert' : `jetzt ${points} ${points === 1 ? 'Prozentpunkt' : 'Prozentpunkte'} ${rose ? 'mehr' : 'weniger'}`}.`,
  others: (share) => `In den anderen Hotels des Kontos: ${share} negativ.`,
  quotes: (quoted) => `Gäste schrieben: ${quoted.map((q) => `„${q}“`).join(' ')}`,
  impact: (gain) => `etwa +${germanNumber.format(gain)} auf die Durchschnittsbewertung (von 5)`,
};

const LANGUAGES: Record<string, Sentences> = { en: ENGLISH, de: GERMAN };

/**
 * The recommendation in `language` (English where it has no sentences). `topic` is the topic's name
 * in that language: the engine's topics are named by the page (src/web/dashboard/topic-names.ts).
 */
export function recommendationText(facts: RecommendationFacts, language: string, topic: string = facts.topic): RecommendationText {
  const say = LANGUAGES[language] ?? ENGLISH;
  const share = percent(negativeShare(facts.recent));
  const parts = [say.recent(facts.recent.negative, facts.recent.total, topic, facts.node, share)];
  if (facts.before !== null) {
    // How the negative share moved against the 90 days before (positive when it rose).
    const change = negativeShare(facts.recent) - negativeShare(facts.before);
    parts.push(say.before(facts.before.negative, facts.before.total, percent(negativeShare(facts.before)), change >= 0, Math.abs(Math.round(change * 100))));
  }
  if (facts.others !== null) parts.push(say.others(percent(negativeShare(facts.others))));
  if (facts.quotes.length > 0) parts.push(say.quotes(facts.quotes));
  return { title: say.title(topic, facts.node, share), body: parts.join(' '), impact: facts.gain === null ? null : say.impact(facts.gain) };
}
