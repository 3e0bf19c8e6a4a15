// The demo's surveys: a published post-stay survey (NPS, ratings, free text) for the whole group, a
// published breakfast pulse at the Innsbruck hotel, and a draft; responses with answers, some only started.
import type { Kysely } from 'kysely';
import type { DB } from '../db/schema.ts';
import type { AnswerInput } from '../modules/surveys/schemas.ts';
import { completeResponse, createResponse, createSurvey } from '../modules/surveys/service.ts';
import { POST_STAY_TEMPLATE as POST_STAY } from '../modules/surveys/templates.ts';
import type { Random } from './random.ts';

const DAY = 86_400_000;
const MINUTE = 60_000;

export interface SurveyCounts {
  published: number;
  drafts: number;
  responses: number;
  completed: number;
}


const BREAKFAST_OPTIONS = [
  { id: 'fresh_fruit', text: { de: 'Frisches Obst', en: 'Fresh fruit' } },
  { id: 'regional_cheese', text: { de: 'Käse aus der Region', en: 'Regional cheese' } },
  { id: 'vegan_options', text: { de: 'Vegane Speisen', en: 'Vegan dishes' } },
  { id: 'gluten_free_bread', text: { de: 'Glutenfreies Brot', en: 'Gluten-free bread' } },
  { id: 'barista_coffee', text: { de: 'Kaffee vom Barista', en: 'Barista coffee' } },
];
const BREAKFAST_ITEMS = BREAKFAST_OPTIONS.map((o) => o.id);
const BREAKFAST = {
  pages: [
    {
      id: 'breakfast', title: { de: 'Frühstück', en: 'Breakfast' },
      questions: [
        { id: 'rating', type: 'rating', scale: 5, text: { de: 'Wie hat Ihnen das Frühstück heute geschmeckt?', en: 'How did you enjoy breakfast today?' } },
        { id: 'missing', type: 'choice', multiple: true, options: BREAKFAST_OPTIONS, text: { de: 'Was haben Sie vermisst?', en: 'What did you miss?' } },
        { id: 'comment', type: 'text', required: false, text: { de: 'Möchten Sie uns noch etwas sagen?', en: 'Anything else you would like to tell us?' } },
      ],
    },
  ],
};

const SPA = {
  pages: [{ id: 'spa', title: { en: 'Spa' }, questions: [
    { id: 'rating', type: 'rating', scale: 5, text: { en: 'How would you rate your spa treatment?' } },
    { id: 'comment', type: 'text', text: { en: 'Tell us about your visit' } },
  ] }],
};

const IMPROVE = [
  'Faster check-in at busy times.', 'Better soundproofing of the windows.', 'More choice at breakfast, especially fruit.',
  'Free parking for hotel guests.', 'Everything was perfect, keep it up!', 'The Wi-Fi was slow in the evening.',
  'Schnelleres WLAN bitte.', 'Mehr vegetarische Gerichte im Restaurant.', 'Un peu plus de calme la nuit.', 'Più prese elettriche in camera.',
];
const BREAKFAST_COMMENTS = ['Sehr leckerer Kaffee!', 'Bitte mehr regionale Produkte.', 'Der Saft war leider leer.', 'Great pastries, thank you.', 'Zu wenig Sitzplätze um 9 Uhr.'];
const CHANNELS = [['email', 70], ['qr_code', 20], ['sms', 10]] as const;

export async function createSurveys(
  db: Kysely<DB>, random: Random, accountId: string, nodes: { root: string; hotels: string[] }, today: number,
): Promise<SurveyCounts> {
  const counts: SurveyCounts = { published: 0, drafts: 0, responses: 0, completed: 0 };
  const postStayFrom = today - 420 * DAY;
  const postStay = await createSurvey(db, accountId, {
    node_id: nodes.root, name: 'Post-stay survey', description: 'Sent the day after check-out to every guest with an e-mail address.',
    definition: POST_STAY, status: 'published', primary_language: 'en',
    created_at: new Date(postStayFrom - 5 * DAY).toISOString(), published_at: new Date(postStayFrom).toISOString(),
  });
  const breakfastFrom = today - 120 * DAY;
  const breakfast = await createSurvey(db, accountId, {
    node_id: nodes.hotels[0]!, name: 'Breakfast pulse', description: 'A QR code on every breakfast table.',
    definition: BREAKFAST, status: 'published', primary_language: 'de',
    created_at: new Date(breakfastFrom - 2 * DAY).toISOString(), published_at: new Date(breakfastFrom).toISOString(),
  });
  counts.published = 2;
  await createSurvey(db, accountId, {
    node_id: nodes.hotels[3]!, name: 'Spa & wellness feedback', description: 'Not sent yet: waiting for the new spa menu.',
    definition: SPA, status: 'draft', primary_language: 'en',
  });
  counts.drafts = 1;

  for (let i = 0; i < 260; i++) {
    const nps = random.weighted([[10, 28], [9, 27], [8, 16], [7, 12], [6, 6], [5, 4], [4, 3], [3, 2], [2, 1], [1, 0.5], [0, 0.5]] as const);
    const stars = Math.max(1, Math.min(5, Math.round(nps / 2 + (random.next() - 0.5))));
    const answers = (at: number): AnswerInput[] => [
      { question_id: 'nps', question_path: 'stay/nps', question_type: 'nps', value: nps, numeric_value: nps, answered_at: iso(at + MINUTE) },
      { question_id: 'overall', question_path: 'stay/overall', question_type: 'rating', value: stars, numeric_value: stars, answered_at: iso(at + 2 * MINUTE) },
      { question_id: 'cleanliness', question_path: 'stay/cleanliness', question_type: 'rating', value: clamp(stars + random.int(-1, 1)), numeric_value: null, answered_at: iso(at + 2 * MINUTE) },
      { question_id: 'staff', question_path: 'stay/staff', question_type: 'rating', value: clamp(stars + random.int(-1, 1)), numeric_value: null, answered_at: iso(at + 3 * MINUTE) },
      ...(random.chance(0.55) ? [{ question_id: 'improve', question_path: 'comments/improve', question_type: 'text', value: random.pick(IMPROVE), numeric_value: null, answered_at: iso(at + 5 * MINUTE) }] : []),
    ].map((a) => ({ ...a, numeric_value: typeof a.value === 'number' ? a.value : null }));
    await respond(db, random, counts, postStay.id, random.pick(nodes.hotels), postStayFrom, today, nps, answers);
  }
  for (let i = 0; i < 90; i++) {
    const rating = random.weighted([[5, 40], [4, 35], [3, 15], [2, 6], [1, 4]] as const);
    const missing = BREAKFAST_ITEMS.filter(() => random.chance(rating >= 4 ? 0.12 : 0.35));
    const answers = (at: number): AnswerInput[] => [
      { question_id: 'rating', question_path: 'breakfast/rating', question_type: 'rating', value: rating, numeric_value: rating, answered_at: iso(at + 20_000) },
      { question_id: 'missing', question_path: 'breakfast/missing', question_type: 'choice', value: missing, numeric_value: null, answered_at: iso(at + 40_000) },
      ...(random.chance(0.3) ? [{ question_id: 'comment', question_path: 'breakfast/comment', question_type: 'text', value: random.pick(BREAKFAST_COMMENTS), numeric_value: null, answered_at: iso(at + 90_000) }] : []),
    ];
    // The overall score as the service computes it (overallScore): a 1–5 rating mapped onto 0–10.
    await respond(db, random, counts, breakfast.id, nodes.hotels[0]!, breakfastFrom, today, ((rating - 1) / 4) * 10, answers);
  }
  return counts;
}

/** One response: most completed at once, some completed later (the event then), some only started (partial answers). */
async function respond(
  db: Kysely<DB>, random: Random, counts: SurveyCounts, surveyId: string, nodeId: string,
  from: number, today: number, score: number, answers: (startedAt: number) => AnswerInput[],
): Promise<void> {
  const startedAt = from + Math.floor(random.next() * (today - from - DAY)) + random.int(7, 21) * 3_600_000;
  const all = answers(startedAt);
  const fate = random.weighted([['completed', 78], ['completed-later', 10], ['started', 12]] as const);
  const completedAt = iso(startedAt + random.int(3, 15) * MINUTE);
  const base = {
    node_id: nodeId, channel: random.weighted(CHANNELS), started_at: iso(startedAt),
    respondent_email: `guest${random.int(1000, 99_999)}@example.com`,
    context: { room: String(random.int(101, 640)), nights: random.int(1, 7) },
  };
  counts.responses += 1;
  if (fate === 'started') {
    await createResponse(db, surveyId, { ...base, status: 'started', overall_score: null, answers: all.slice(0, random.int(0, 2)) });
    return;
  }
  counts.completed += 1;
  if (fate === 'completed') {
    await createResponse(db, surveyId, { ...base, status: 'completed', overall_score: score, completed_at: completedAt, answers: all });
    return;
  }
  const { id } = await createResponse(db, surveyId, { ...base, status: 'started', overall_score: score, answers: all });
  await completeResponse(db, id, completedAt);
}

const iso = (ms: number): string => new Date(ms).toISOString();
const clamp = (n: number): number => Math.max(1, Math.min(5, n));
