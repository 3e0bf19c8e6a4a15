// Text of the Surveys page (/surveys), in English (complete) and German.
import type { PageCatalogs } from './render.ts';

const en = {
  'surveys.title': 'Surveys',
  'surveys.name': 'Survey',
  'surveys.responses': 'Responses',
  'surveys.completed': 'Completed',
  'surveys.nps': 'NPS',
  'surveys.none': 'No published surveys yet.',
  'surveys.show': 'Responses of {name}',
  'surveys.latest': 'Latest responses',
  'surveys.response': '{status} · {channel} · {date}',
  'surveys.score': 'Overall score: {score}',
  'surveys.noResponses': 'No responses yet.',
  'surveys.question': 'Question',
  'surveys.answer': 'Answer',
  'surveys.more': 'Older responses',
};

export const surveysCatalog: PageCatalogs<keyof typeof en> = {
  en,
  de: {
    'surveys.title': 'Umfragen',
    'surveys.name': 'Umfrage',
    'surveys.responses': 'Antworten',
    'surveys.completed': 'Abgeschlossen',
    'surveys.none': 'Noch keine veröffentlichten Umfragen.',
    'surveys.show': 'Antworten: {name}',
    'surveys.latest': 'Neueste Antworten',
    'surveys.score': 'Gesamtwert: {score}',
    'surveys.noResponses': 'Noch keine Antworten.',
    'surveys.question': 'Frage',
    'surveys.answer': 'Antwort',
    'surveys.more': 'Ältere Antworten',
  },
};
