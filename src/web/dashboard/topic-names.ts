// The insights engine's own topics (CANONICAL_TOPICS, stored under their English names) in the
// page's language. An account's own categories keep the names their owners gave them.
import type { CanonicalTopic } from '../../extraction/types.ts';

const GERMAN: Record<CanonicalTopic, string> = {
  Cleanliness: 'Sauberkeit', Staff: 'Personal', Breakfast: 'Frühstück', 'Food & drink': 'Essen & Trinken', Location: 'Lage',
  Room: 'Zimmer', Bed: 'Bett', Bathroom: 'Bad', Noise: 'Lärm', Value: 'Preis-Leistung', 'Wi-Fi': 'WLAN', 'Check-in': 'Check-in',
  Parking: 'Parken', Wellness: 'Wellness',
};

const NAMES: Record<string, Record<string, string>> = { de: GERMAN };

/** An engine topic's name in `language` (English, the stored name, where there is no other). */
export function topicName(language: string, name: string): string {
  return NAMES[language]?.[name] ?? name;
}
