// The demo data set: a hotel group with 2 regions and 5 hotels, two years of multilingual reviews
// (through the bulk import path, so review_stats and events are what an import gives), surveys with
// responses, an own category, mentions and recommendations read from the reviews by the insights
// engine, an alert rule and one API key per use.
// Everything is drawn from a seeded generator: the same seed gives the same data (ids and "now" aside).
import { randomBytes } from 'node:crypto';
import type { Kysely } from 'kysely';
import type { Database } from '../db/connect.ts';
import type { DB, NodeRow } from '../db/schema.ts';
import { createAccount } from '../modules/accounts/service.ts';
import { createExtractor } from '../extraction/index.ts';
import { createCategory } from '../modules/insights/categories.ts';
import { extractDueBatch } from '../modules/insights/extraction.ts';
import { refreshRecommendations } from '../modules/insights/recommendations.ts';
import type { Scope } from '../access/scopes.ts';
import { createKey } from '../modules/keys/service.ts';
import { createUser } from '../modules/users/service.ts';
import { createNode } from '../modules/nodes/service.ts';
import { createAlertRule } from '../modules/reviews/alerts.ts';
import { upsertReviewsBulk } from '../modules/reviews/bulk.ts';
import { storesFor } from '../stores.ts';
import type { ReviewInput } from '../modules/reviews/schemas.ts';
import { DEFAULT_SEED, type Random, seeded } from './random.ts';
import { createSurveys, type SurveyCounts } from './surveys.ts';
import { BANKS, type Language, type Sentiment, TOPIC_KEYS, type TopicKey } from './texts.ts';

export const DEMO_ACCOUNT = 'Alpenrose Hotels (demo)';
const DAY = 86_400_000;

export interface DemoKey {
  label: string;
  node: string;
  scopes: Scope[];
  key: string;
}

export interface DemoResult {
  accountId: string;
  nodes: { regions: number; properties: number };
  reviews: { total: number; hidden: number; replied: number; platforms: string[]; languages: string[] };
  surveys: SurveyCounts;
  topics: number;
  mentions: number;
  recommendations: number;
  alertRules: number;
  keys: DemoKey[];
  /** The dashboard's owner user and its password (shown this once). */
  owner: { email: string; password: string };
}

interface Hotel {
  name: string;
  region: number;
  reviews: number;
  languages: ReadonlyArray<readonly [Language, number]>;
  /** Ratings 5..1 by weight: each hotel has its own character. */
  ratings: ReadonlyArray<readonly [number, number]>;
  /** The topic guests complain about most here. */
  weakSpot: TopicKey;
}

const REGIONS = ['Alps', 'Riviera'];
const HOTELS: Hotel[] = [
  { name: 'Alpenrose Grand Hotel Innsbruck', region: 0, reviews: 560, languages: [['de', 55], ['en', 30], ['it', 10], ['fr', 5]], ratings: [[5, 46], [4, 32], [3, 11], [2, 6], [1, 5]], weakSpot: 'value' },
  { name: 'Berghof Lodge Zermatt', region: 0, reviews: 420, languages: [['de', 40], ['en', 35], ['fr', 20], ['es', 5]], ratings: [[5, 52], [4, 30], [3, 9], [2, 5], [1, 4]], weakSpot: 'breakfast' },
  { name: 'Seeblick Hotel Lucerne', region: 0, reviews: 460, languages: [['de', 40], ['en', 40], ['fr', 10], ['es', 5], ['it', 5]], ratings: [[5, 38], [4, 33], [3, 14], [2, 8], [1, 7]], weakSpot: 'cleanliness' },
  { name: 'Villa Mare Nice', region: 1, reviews: 500, languages: [['fr', 45], ['en', 30], ['it', 10], ['de', 10], ['es', 5]], ratings: [[5, 34], [4, 32], [3, 15], [2, 10], [1, 9]], weakSpot: 'noise' },
  { name: 'Hotel Portofino Bay', region: 1, reviews: 460, languages: [['it', 40], ['en', 30], ['de', 15], ['es', 10], ['fr', 5]], ratings: [[5, 44], [4, 31], [3, 12], [2, 7], [1, 6]], weakSpot: 'staff' },
];
const PLATFORMS = [['google', 40], ['booking', 30], ['tripadvisor', 18], ['expedia', 12]] as const;

interface PlannedMention { topic: TopicKey; text: string; sentiment: Sentiment }
interface PlannedReview { input: ReviewInput; mentions: PlannedMention[] }

export async function generateDemo(database: Database, seed = DEFAULT_SEED, now = new Date()): Promise<DemoResult> {
  const db = database.db;
  const random = seeded(seed);
  // Whole days back from today's midnight: the same seed gives the same dates all day long.
  const today = Math.floor(now.getTime() / DAY) * DAY;

  const account = await createAccount(db, { name: DEMO_ACCOUNT });
  const root = await createNode(db, account.id, { name: 'Alpenrose Hotels', type: 'account', parent_id: null });
  const regions: NodeRow[] = [];
  for (const name of REGIONS) regions.push(await createNode(db, account.id, { name, type: 'region', parent_id: root.id }));
  const hotels: NodeRow[] = [];
  for (const hotel of HOTELS) hotels.push(await createNode(db, account.id, { name: hotel.name, type: 'property', parent_id: regions[hotel.region]!.id }));

  const topics = await createTopics(db, account.id);

  // Reviews: oldest first, through the same bulk path as `repute import`.
  const planned = HOTELS.flatMap((hotel, h) => Array.from({ length: hotel.reviews }, () => planReview(random, hotel, hotels[h]!.id, today)))
    .sort((a, b) => a.input.reviewed_at.localeCompare(b.input.reviewed_at));
  planned.forEach((p, i) => { p.input.external_id = `${p.input.platform}-${String(100_000 + i)}`; });
  const ids: string[] = [];
  const bulk = { db: database.db, reviews: storesFor(database).reviews };
  for (let i = 0; i < planned.length; i += 500) {
    for (const outcome of await upsertReviewsBulk(bulk, account.id, planned.slice(i, i + 500).map((p) => p.input))) {
      if (outcome.status === 'rejected') throw new Error(`demo review rejected: ${outcome.error}`);
      ids.push(outcome.id);
    }
  }

  const surveys = await createSurveys(db, random, account.id, { root: root.id, hotels: hotels.map((h) => h.id) }, today);
  // Mentions and recommendations come from the insights engine, as they would in production: the
  // reviews were queued by their writes; the demo reads them before it prints (no worker needed yet).
  const mentions = await extractAll(db);
  const recommendations = await refreshRecommendations(db, account.id, now);

  // Watching from now on: the imported history does not trigger it.
  await createAlertRule(db, account.id, { node_id: root.id, max_rating: 2, keywords: ['dirty', 'schmutzig', 'sale', 'sucia', 'sporca'] });

  const keySpecs: Array<[string, string, Scope[]]> = [
    ['whole group, read everything', root.id, ['reviews:read', 'surveys:read', 'analytics:read', 'insights:read', 'nodes:read']],
    [`region ${REGIONS[0]}: reviews, analytics, nodes`, regions[0]!.id, ['reviews:read', 'analytics:read', 'nodes:read']],
    [`property ${HOTELS[0]!.name}: guest push + reviews`, hotels[0]!.id, ['guests:write', 'reviews:read']],
    ['webhooks manager (whole group)', root.id, ['webhooks:manage']],
  ];
  const keys: DemoKey[] = [];
  for (const [label, node, scopes] of keySpecs) {
    keys.push({ label, node, scopes, key: (await createKey(db, account.id, { node_id: node, scopes, name: `demo: ${label}` })).key });
  }

  // The dashboard's first user: an owner of the whole group, with a fresh random password each run.
  const owner = { email: 'owner@demo.repute.example', password: randomBytes(12).toString('base64url') };
  await createUser(db, account.id, { email: owner.email, password: owner.password, role: 'owner' });

  return {
    accountId: account.id,
    owner,
    nodes: { regions: regions.length, properties: hotels.length },
    reviews: {
      total: planned.length,
      hidden: planned.filter((p) => p.input.is_hidden).length,
      replied: planned.filter((p) => p.input.owner_reply).length,
      platforms: PLATFORMS.map(([p]) => p),
      languages: [...new Set(planned.map((p) => p.input.language!))].sort(),
    },
    surveys,
    topics: topics.count,
    mentions,
    recommendations,
    alertRules: 1,
    keys,
  };
}

/** The account's own category: keywords the engine marks in mentions of any topic. */
async function createTopics(db: Kysely<DB>, accountId: string): Promise<{ count: number }> {
  await createCategory(db, accountId, {
    name: 'Spa & wellness',
    keywords: { en: ['spa', 'sauna'], de: ['spa', 'sauna', 'wellness'], fr: ['spa', 'sauna'], es: ['spa', 'sauna'], it: ['spa', 'sauna'] },
  });
  const global = await db.selectFrom('topics').select((eb) => eb.fn.countAll<number>().as('n')).where('account_id', 'is', null).executeTakeFirstOrThrow();
  return { count: Number(global.n) + 1 };
}

async function extractAll(db: Kysely<DB>): Promise<number> {
  const extractor = createExtractor();
  const log = { warn: () => {} };
  while ((await extractDueBatch({ db, extractor, log }, 500)) > 0) { /* until every queued review is read */ }
  const count = await db.selectFrom('mentions').select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow();
  return Number(count.n);
}

function planReview(random: Random, hotel: Hotel, nodeId: string, today: number): PlannedReview {
  const platform = random.weighted(PLATFORMS);
  const language = random.weighted(hotel.languages);
  const bank = BANKS[language];
  const stars = random.weighted(hotel.ratings);
  // Booking.com scores on ten: its ratings carry a decimal once brought to five.
  const rating = platform === 'booking' ? Math.max(1, Math.round((stars - random.next() * 0.8) * 10) / 10) : stars;
  const sentiment: Sentiment = rating >= 4 ? 'positive' : rating >= 3 ? 'neutral' : 'negative';
  // More reviews lately: the density of review dates grows over the two years.
  const reviewedAt = today - Math.floor((1 - Math.sqrt(random.next())) * 730 * DAY) - random.int(1, 23) * 3_600_000 - random.int(0, 59) * 60_000;

  const mentions: PlannedMention[] = [];
  const ratingOnly = platform === 'google' && random.chance(0.08);
  if (!ratingOnly) {
    const count = random.weighted([[1, 30], [2, 45], [3, 25]] as const);
    const chosen = new Set<TopicKey>();
    if (sentiment !== 'positive' && random.chance(0.6)) chosen.add(hotel.weakSpot);
    while (chosen.size < count) chosen.add(random.pick(TOPIC_KEYS));
    for (const topic of chosen) {
      const tone = sentenceTone(random, sentiment, topic === hotel.weakSpot);
      mentions.push({ topic, text: random.pick(bank.topics[topic][tone]), sentiment: tone });
    }
  }
  const closing = !ratingOnly && random.chance(0.6) ? ` ${random.pick(bank.closings[sentiment])}` : '';
  const text = ratingOnly ? null : `${joinSentences(random, language, mentions)}${closing}`;

  const replyChance = sentiment === 'negative' ? 0.7 : sentiment === 'neutral' ? 0.4 : 0.25;
  const repliedAt = reviewedAt + Math.floor((0.3 + random.next() * 3.5) * DAY);
  const replied = random.chance(replyChance) && repliedAt < today;
  const recommendPlatform = platform === 'tripadvisor' || platform === 'expedia';
  const recommend = recommendPlatform && random.chance(0.85) ? (rating >= 4 ? true : rating < 3 ? false : random.chance(0.5)) : null;
  const first = random.pick(bank.firstNames);

  return {
    input: {
      node_id: nodeId,
      platform,
      external_id: '',
      reviewed_at: new Date(reviewedAt).toISOString(),
      author: `${first} ${random.pick([...bank.lastInitials])}.`,
      rating,
      title: platform === 'google' ? null : random.pick(bank.titles[sentiment]),
      text,
      language,
      // Left out: the insights engine computes it from the text, as for any review that comes without one.
      owner_reply: replied ? random.pick(bank.replies[sentiment === 'positive' ? 'positive' : 'negative']) : null,
      replied_at: replied ? new Date(repliedAt).toISOString() : null,
      is_hidden: random.chance(0.015),
      recommend,
    },
    mentions,
  };
}

const BUT: Record<Language, string> = { en: 'but', de: 'aber', fr: 'mais', es: 'pero', it: 'ma' };

/** Sentences in a row, two of opposite tones often joined by the language's "but", as guests write. */
function joinSentences(random: Random, language: Language, parts: readonly PlannedMention[]): string {
  const out: string[] = [];
  for (let i = 0; i < parts.length; i++) {
    const here = parts[i]!;
    const next = parts[i + 1];
    if (next && next.sentiment !== here.sentiment && random.chance(0.6)) {
      // German nouns keep their capital; other languages lower the sentence's first letter.
      const second = language === 'de' ? next.text : next.text.charAt(0).toLocaleLowerCase(language) + next.text.slice(1);
      out.push(`${here.text.replace(/[.!]+$/, '')}, ${BUT[language]} ${second}`);
      i++;
    } else {
      out.push(here.text);
    }
  }
  return out.join(' ');
}

/** A sentence's tone follows the review's, with some nuance (and the hotel's weak spot pulling down). */
function sentenceTone(random: Random, review: Sentiment, weakSpot: boolean): Sentiment {
  if (review === 'positive') return random.weighted([['positive', weakSpot ? 60 : 88], ['neutral', weakSpot ? 30 : 10], ['negative', weakSpot ? 10 : 2]] as const);
  if (review === 'negative') return random.weighted([['negative', 80], ['neutral', 15], ['positive', 5]] as const);
  return random.weighted([['positive', 35], ['neutral', 35], ['negative', weakSpot ? 50 : 30]] as const);
}
