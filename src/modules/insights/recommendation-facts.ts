// What a generated recommendation says, as figures rather than sentences: stored beside its English
// title, body and impact (the API's, shared/spec/insights.md) so that a page in another language can
// say the same thing in its own words (recommendation-text.ts). An operator's own
// recommendations have none: their text is theirs.

/** Mentions of a topic, and how many of them are negative. */
export interface MentionCount { negative: number; total: number }

export interface RecommendationFacts {
  /** The node's name when the recommendation was drawn. */
  node: string;
  /** The topic's stored (English) name: an engine topic, translated by the page. */
  topic: string;
  /** The last 90 days. */
  recent: MentionCount;
  /** The 90 days before, when there were enough mentions to compare. */
  before: MentionCount | null;
  /** The account's other properties over the last 90 days, when there were enough mentions. */
  others: MentionCount | null;
  /** Typical negative mentions, as guests wrote them. */
  quotes: string[];
  /** Stars (of 5) that fixing the topic would add to the node's average rating, if any. */
  gain: number | null;
}

export const negativeShare = (c: MentionCount): number => (c.total === 0 ? 0 : c.negative / c.total);

/** The stored column's text back as facts; null for an operator's recommendation or unreadable text. */
export function parseFacts(stored: string | null): RecommendationFacts | null {
  if (stored === null) return null;
  try {
    const facts = JSON.parse(stored) as RecommendationFacts;
    return typeof facts.node === 'string' && typeof facts.topic === 'string' && typeof facts.recent?.total === 'number' ? facts : null;
  } catch {
    return null;
  }
}
