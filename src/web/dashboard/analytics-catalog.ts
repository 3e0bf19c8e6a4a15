// Text of the Analytics page (/analytics), in English (complete) and German.
import type { PageCatalogs } from './render.ts';

const en = {
  'analytics.title': 'Analytics',
  'analytics.overTime': 'Score over time by platform (last 12 months)',
  'analytics.month': 'Month',
  'analytics.distribution': 'Rating distribution (last 90 days)',
  'analytics.stars': '{stars} ★',
  'analytics.reviews': 'Reviews',
  'analytics.responses': 'Responses (last 90 days)',
  'analytics.responseRate': 'Response rate',
  'analytics.responseTime': 'Mean time to answer',
  'analytics.hours': '{hours} h',
  'analytics.compare': 'Properties compared',
  'analytics.property': 'Property',
  'analytics.score': 'Score (of 5)',
  'analytics.none': '–',
};

export const analyticsCatalog: PageCatalogs<keyof typeof en> = {
  en,
  de: {
    'analytics.title': 'Auswertungen',
    'analytics.overTime': 'Bewertung im Zeitverlauf je Plattform (letzte 12 Monate)',
    'analytics.month': 'Monat',
    'analytics.distribution': 'Verteilung der Bewertungen (letzte 90 Tage)',
    'analytics.stars': '{stars} ★',
    'analytics.reviews': 'Bewertungen',
    'analytics.responses': 'Antworten (letzte 90 Tage)',
    'analytics.responseRate': 'Antwortquote',
    'analytics.responseTime': 'Mittlere Antwortzeit',
    'analytics.hours': '{hours} Std.',
    'analytics.compare': 'Hotels im Vergleich',
    'analytics.property': 'Hotel',
    'analytics.score': 'Bewertung (von 5)',
  },
};
