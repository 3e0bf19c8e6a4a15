// Benchmark: the insights engine's speed and memory. Reviews of 60–120 words in the five languages,
// composed from sentences written here (not from the evaluation sets), are read by the engine on
// this one thread, with their language given and without it (detected); the baseline measured in
// the same run is the engine's own tokenizer alone over the same reviews (the floor any reading
// pays). Memory: RSS growth from loading and warming the engine (lexicons, detector).
//   node --import tsx bench/extraction.ts [--reviews 20000] [--rounds 3]
import { performance } from 'node:perf_hooks';
import { parseArgs } from 'node:util';

const { values } = parseArgs({ options: { reviews: { type: 'string', default: '20000' }, rounds: { type: 'string', default: '3' } } });
const REVIEWS = Number(values.reviews);
const ROUNDS = Number(values.rounds);

const SENTENCES: Record<string, string[]> = {
  en: [
    'We stayed three nights in a double room on the fourth floor.', 'The staff at reception were friendly and checked us in quickly.',
    'Breakfast had a good choice of fresh fruit, eggs and pastries.', 'The room was clean but rather small, and the bathroom felt dated.',
    'The wifi kept dropping in the evening, which was annoying.', 'Parking costs extra and the garage is a short walk away.',
    'The bed was very comfortable and we slept well.', 'Unfortunately the street noise kept us awake until late.',
    'Great location, ten minutes on foot from the old town.', 'The pool was lovely, although the sauna was closed on Sunday.',
    'Dinner at the restaurant was overpriced for what it was.', 'The shower had poor water pressure and no hot water one morning.',
  ],
  de: [
    'Wir waren drei Nächte in einem Doppelzimmer im vierten Stock.', 'Das Personal an der Rezeption war freundlich und schnell.',
    'Das Frühstücksbuffet war reichhaltig mit frischem Obst und Brötchen.', 'Das Zimmer war sauber, aber eher klein, und das Bad wirkte alt.',
    'Das WLAN funktionierte abends nicht richtig.', 'Parken kostet extra und die Tiefgarage ist etwas entfernt.',
    'Das Bett war sehr bequem und wir haben gut geschlafen.', 'Leider war es wegen des Straßenlärms sehr hellhörig.',
    'Tolle Lage, zehn Minuten zu Fuß zur Altstadt.', 'Der Pool war schön, obwohl die Sauna am Sonntag geschlossen war.',
    'Das Abendessen im Restaurant war überteuert.', 'Die Dusche hatte wenig Wasserdruck und einmal kein warmes Wasser.',
  ],
  fr: [
    'Nous avons passé trois nuits dans une chambre double au quatrième étage.', "Le personnel de la réception était aimable et l'enregistrement rapide.",
    'Le petit-déjeuner proposait des fruits frais, des œufs et des viennoiseries.', 'La chambre était propre mais assez petite, et la salle de bain vieillotte.',
    'Le wifi ne marchait pas le soir, ce qui était pénible.', 'Le parking est payant et le garage est un peu loin.',
    'Le lit était très confortable et nous avons bien dormi.', 'Malheureusement le bruit de la rue nous a empêchés de dormir.',
    'Emplacement idéal, à dix minutes à pied de la vieille ville.', 'La piscine était agréable, mais le sauna était fermé le dimanche.',
    'Le dîner au restaurant était trop cher pour ce que c’était.', "La douche manquait de pression et un matin il n'y avait pas d'eau chaude.",
  ],
  es: [
    'Estuvimos tres noches en una habitación doble en la cuarta planta.', 'El personal de recepción fue amable y el check-in rápido.',
    'El desayuno tenía fruta fresca, huevos y bollería.', 'La habitación estaba limpia pero era algo pequeña, y el baño anticuado.',
    'El wifi no funcionaba bien por la noche, algo molesto.', 'El aparcamiento se paga aparte y el garaje está un poco lejos.',
    'La cama era muy cómoda y dormimos bien.', 'Por desgracia el ruido de la calle no nos dejó dormir.',
    'Ubicación estupenda, a diez minutos a pie del casco antiguo.', 'La piscina era agradable, aunque la sauna estaba cerrada el domingo.',
    'La cena en el restaurante era demasiado cara.', 'La ducha tenía poca presión y una mañana no había agua caliente.',
  ],
  it: [
    'Abbiamo passato tre notti in una camera doppia al quarto piano.', 'Il personale della reception era gentile e il check-in veloce.',
    'La colazione aveva frutta fresca, uova e cornetti.', 'La camera era pulita ma piuttosto piccola, e il bagno datato.',
    'Il wifi non funzionava la sera, cosa fastidiosa.', 'Il parcheggio è a pagamento e il garage è un po’ lontano.',
    'Il letto era molto comodo e abbiamo dormito bene.', 'Purtroppo il rumore della strada ci ha tenuti svegli.',
    'Posizione ottima, a dieci minuti a piedi dal centro storico.', 'La piscina era bella, anche se la sauna era chiusa la domenica.',
    'La cena al ristorante era troppo cara.', "La doccia aveva poca pressione e una mattina non c'era acqua calda.",
  ],
};

/** Deterministic reviews of 60–120 words: sentences of one language drawn in turn by a small LCG. */
function compose(count: number): { text: string; language: string }[] {
  const languages = Object.keys(SENTENCES);
  let seed = 42;
  const next = () => (seed = (seed * 1103515245 + 12345) % 2147483648);
  const out: { text: string; language: string }[] = [];
  for (let i = 0; i < count; i++) {
    const language = languages[i % languages.length]!;
    const pool = SENTENCES[language]!;
    const target = 60 + (next() % 61);
    const parts: string[] = [];
    let words = 0;
    while (words < target) {
      const s = pool[next() % pool.length]!;
      parts.push(s);
      words += s.split(/\s+/).length;
    }
    out.push({ text: parts.join(' '), language });
  }
  return out;
}

const reviews = compose(REVIEWS);
const meanWords = reviews.reduce((n, r) => n + r.text.split(/\s+/).length, 0) / reviews.length;
global.gc?.();
const rssBefore = process.memoryUsage().rss;
const { createExtractor } = await import('../src/extraction/index.ts');
const { tokenize } = await import('../src/extraction/tokens.ts');
const extractor = createExtractor();
for (const r of reviews.slice(0, 2000)) extractor.extract({ title: null, text: r.text, language: null });
global.gc?.();
const rssGrowth = process.memoryUsage().rss - rssBefore;

function rate(run: (r: { text: string; language: string }) => void): number {
  const started = performance.now();
  for (const r of reviews) run(r);
  return reviews.length / ((performance.now() - started) / 1000);
}

const scenarios: [string, (r: { text: string; language: string }) => void][] = [
  ['tokenizer only (baseline)', (r) => tokenize(r.text, false)],
  ['engine, language given', (r) => extractor.extract({ title: null, text: r.text, language: r.language })],
  ['engine, language detected', (r) => extractor.extract({ title: null, text: r.text, language: null })],
];
const best = new Map<string, number>();
for (let round = 0; round < ROUNDS; round++) {
  for (const [name, run] of scenarios) best.set(name, Math.max(best.get(name) ?? 0, rate(run)));
}
const fmt = (n: number) => Math.round(n).toLocaleString('en-US');
console.log(`${fmt(REVIEWS)} reviews (mean ${meanWords.toFixed(0)} words, five languages), best of ${ROUNDS} rounds, one thread:`);
const floor = best.get('tokenizer only (baseline)')!;
for (const [name] of scenarios) {
  const r = best.get(name)!;
  console.log(`  ${name.padEnd(28)} ${fmt(r).padStart(9)} reviews/s   ${(r / floor).toFixed(2)}× the tokenizer`);
}
const given = best.get('engine, language given')!;
console.log(`target ≥ 2,000 reviews/s: ${given >= 2000 ? 'met' : 'NOT met'} (${(given / 2000).toFixed(1)}× the target)`);
console.log(`RSS growth from loading and warming the engine: ${(rssGrowth / 1048576).toFixed(1)} MB (target ≤ 150 MB)`);
