// How a survey's answers read on /surveys: each question by its text and each chosen option by its
// text, in the page's language (else the survey's primary one), yes and no in words, a score with its
// scale (4 / 5). The stored ids
// ("breakfast/rating", "vegan_options") show only where the published definition lacks them.
import { type Definition, parseDefinition, type Question, textIn } from '../../modules/surveys/definition.ts';

export interface AnswerWords {
  /** The published questions' paths (`page id/question id`), in the order guests see them. */
  paths: string[];
  /** The question at `page id/question id`. */
  question(path: string): string;
  /** An answer's value as a person reads it. */
  value(path: string, value: unknown): string;
}

export function answerWords(published: unknown, primary: string, language: string, yesNo: { yes: string; no: string }): AnswerWords {
  let definition: Definition | null = null;
  try {
    definition = published === null ? null : parseDefinition(published, 'definition');
  } catch {
    definition = null; // a definition published before a rule was added: its ids are still readable
  }
  const questions = new Map<string, Question>();
  for (const page of definition?.pages ?? []) for (const q of page.questions) questions.set(`${page.id}/${q.id}`, q);
  const words = (texts: Readonly<Record<string, string>>) => textIn(texts, language, primary);
  const option = (q: Question | undefined, id: unknown): string => {
    const found = q?.type === 'choice' ? q.options.find((o) => o.id === id) : undefined;
    return found === undefined ? String(id) : words(found.text);
  };
  return {
    paths: [...questions.keys()],
    question: (path) => {
      const q = questions.get(path);
      return q === undefined ? path : words(q.text);
    },
    value: (path, value) => {
      const q = questions.get(path);
      if (value === null || value === undefined) return '';
      if (typeof value === 'boolean') return value ? yesNo.yes : yesNo.no;
      if (Array.isArray(value)) return value.map((v) => option(q, v)).join(', ');
      if (q?.type === 'choice') return option(q, value);
      // A score with its scale: "4 / 5", "9 / 10".
      if (q?.type === 'rating' && typeof value === 'number') return `${value} / ${q.scale}`;
      if (q?.type === 'nps' && typeof value === 'number') return `${value} / 10`;
      return typeof value === 'string' ? value : String(value);
    },
  };
}
