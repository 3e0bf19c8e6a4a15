// Text of the Analytics page (/analytics), in English (complete) and German.
import type { PageCatalogs } from './render.ts';

const en = {
  'analytics.title': 'Analytics',
  'analytics.overTime': 'Score over time by platform (last 12 months)',
  'analytics.month': 'Month',
  'analytics.distribution': 'Rating distribution (this month and the 3 before)',
  'analytics.stars': '{stars} ★',
  'analytics.reviews': 'Reviews',
  'analytics.responses': 'Responses (this month and the 3 before)',
  'analytics.responseRate': 'Response rate',
  'analytics.responseTime': 'Mean time to answer',
  'analytics.hours': '{hours} h',
  'analytics.compare': 'Properties compared',
  'analytics.property': 'Property',
  'analytics.score': 'Score (of 5)',
  'analytics.none': '–',
  'analytics.showFor': 'Show for',
  'analytics.allProperties': 'All properties',
  'analytics.show': 'Show',
  'analytics.overTimeOf': 'Score over time by platform at {property} (last 12 months)',
};

export const analyticsCatalog: PageCatalogs<keyof typeof en> = {
  en,
  de: {
    'analytics.title': 'Auswertungen',
    'analytics.overTime': 'Bewertung im Zeitverlauf je Plattform (letzte 12 Monate)',
    'analytics.month': 'Monat',
    'analytics.distribution': 'Verteilung der Bewertungen (dieser Monat und die 3 davor)',
    'analytics.stars': '{stars} ★',
    'analytics.reviews': 'Bewertungen',
    'analytics.responses': 'Antworten (dieser Monat und die 3 davor)',
    'analytics.responseRate': 'Antwortquote',
    'analytics.responseTime': 'Mittlere Antwortzeit',
    'analytics.hours': '{hours} Std.',
    'analytics.compare': 'Hotels im Vergleich',
    'analytics.property': 'Hotel',
    'analytics.score': 'Bewertung (von 5)',
    'analytics.showFor': 'Anzeigen für',
    'analytics.allProperties': 'Alle Hotels',
    'analytics.show': 'Anzeigen',
    'analytics.overTimeOf': 'Bewertung im Zeitverlauf je Plattform in {property} (letzte 12 Monate)',
  },
};
