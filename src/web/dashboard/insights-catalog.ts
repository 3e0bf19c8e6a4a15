// Text of the Insights page (/insights), in English (complete) and German.
import type { PageCatalogs } from './render.ts';

const en = {
  'insights.title': 'Insights',
  'insights.heat': 'Topics by property, last 90 days',
  'insights.heatNote': 'Each cell: share of negative and positive mentions, and how many mentions. The redder, the larger the negative share (under 10 %, 10 %, 20 %, 35 %, 50 % and more); a cell of fewer than {few} mentions is not coloured.',
  'insights.property': 'Property',
  'insights.cell': '{negative} % negative, {positive} % positive ({total})',
  'insights.trend': 'Trend per topic',
  'insights.topic': 'Topic',
  'insights.recent': 'Last 90 days',
  'insights.before': 'The 90 days before',
  'insights.share': '{negative} % negative of {total}',
  'insights.mentionsOf': 'Mentions of {topic}',
  'insights.fromReview': 'From the review',
  'insights.noMentions': 'No mentions yet: they appear as the insights engine reads the reviews.',
  'insights.recommendations': 'Recommendations',
  'insights.noRecommendations': 'No recommendations at the moment.',
  'insights.priority': 'Priority: {priority}',
  'insights.impact': 'Impact: {impact}',
  'insights.show': 'Show mentions',
  // Words the engine writes (a mention's sentiment, a recommendation's priority); others stay as stored.
  'insights.word.positive': 'positive',
  'insights.word.neutral': 'neutral',
  'insights.word.negative': 'negative',
  'insights.word.high': 'high',
  'insights.word.medium': 'medium',
  'insights.word.low': 'low',
};

/** The stored values insights.word.* puts in words. */
export const INSIGHT_WORDS: ReadonlySet<string> = new Set(['positive', 'neutral', 'negative', 'high', 'medium', 'low']);

export const insightsCatalog: PageCatalogs<keyof typeof en> = {
  en,
  de: {
    'insights.title': 'Einblicke',
    'insights.heat': 'Themen nach Hotel, letzte 90 Tage',
    'insights.heatNote': 'Jede Zelle: Anteil negativer und positiver Erwähnungen und ihre Anzahl. Je röter, desto größer der negative Anteil (unter 10 %, 10 %, 20 %, 35 %, 50 % und mehr); eine Zelle mit weniger als {few} Erwähnungen bleibt ungefärbt.',
    'insights.property': 'Hotel',
    'insights.cell': '{negative} % negativ, {positive} % positiv ({total})',
    'insights.trend': 'Entwicklung je Thema',
    'insights.topic': 'Thema',
    'insights.recent': 'Letzte 90 Tage',
    'insights.before': 'Die 90 Tage davor',
    'insights.share': '{negative} % negativ von {total}',
    'insights.mentionsOf': 'Erwähnungen: {topic}',
    'insights.fromReview': 'Aus der Bewertung',
    'insights.noMentions': 'Noch keine Erwähnungen: sie erscheinen, sobald die Bewertungen gelesen sind.',
    'insights.recommendations': 'Empfehlungen',
    'insights.noRecommendations': 'Zurzeit keine Empfehlungen.',
    'insights.priority': 'Priorität: {priority}',
    'insights.impact': 'Wirkung: {impact}',
    'insights.show': 'Erwähnungen zeigen',
    'insights.word.positive': 'positiv',
    'insights.word.neutral': 'neutral',
    'insights.word.negative': 'negativ',
    'insights.word.high': 'hoch',
    'insights.word.medium': 'mittel',
    'insights.word.low': 'niedrig',
  },
};
