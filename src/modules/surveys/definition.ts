// A survey's definition (shared/spec/surveys.md): pages of typed questions with texts per language.
// parseDefinition checks one on create and publish and names the path of the first fault; the
// survey page and the answers' storage read the parsed form. Keys the spec does not name are kept
// and ignored (a theme, a question's min/max), so definitions written for other tools still load.
import { invalid } from '../../lib/errors.ts';

/** { <language>: text } */
export type Texts = Readonly<Record<string, string>>;

interface QuestionBase { id: string; text: Texts; required: boolean }
export type Question =
  | QuestionBase & { type: 'nps' }
  | QuestionBase & { type: 'rating'; scale: 5 | 10 }
  | QuestionBase & { type: 'text' }
  | QuestionBase & { type: 'choice'; options: { id: string; text: Texts }[]; multiple: boolean }
  | QuestionBase & { type: 'yes_no' };
export type QuestionType = Question['type'];

export interface Page { id: string; title: Texts; questions: Question[] }
export interface Definition { pages: Page[] }

export const QUESTION_TYPES: readonly QuestionType[] = ['nps', 'rating', 'text', 'choice', 'yes_no'];
/** The longest free-text answer. */
export const MAX_TEXT_ANSWER = 5000;
const MAX_ID = 100;
const MAX_TEXT = 2000;
const LANGUAGE = /^[a-z]{2,3}(-[A-Za-z]{2})?$/;

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

function id(value: unknown, path: string): string {
  if (typeof value !== 'string' || value.length === 0 || value.length > MAX_ID || !/^[A-Za-z0-9_.-]+$/.test(value)) {
    throw invalid(`${path} must be an id of 1 to ${MAX_ID} letters, digits, "_", "." or "-"`);
  }
  return value;
}

function texts(value: unknown, path: string, optional = false): Texts {
  if (value === undefined && optional) return {};
  if (!isObject(value) || Object.keys(value).length === 0) {
    throw invalid(`${path} must be an object of texts by language, e.g. { "en": "…" }`);
  }
  for (const [language, text] of Object.entries(value)) {
    if (!LANGUAGE.test(language)) throw invalid(`${path}.${language} is not a language code (e.g. en, de, pt-BR)`);
    if (typeof text !== 'string' || text.trim() === '' || text.length > MAX_TEXT) {
      throw invalid(`${path}.${language} must be a non-empty text of at most ${MAX_TEXT} characters`);
    }
  }
  return value as Texts;
}

function question(value: unknown, path: string, seen: Set<string>): Question {
  if (!isObject(value)) throw invalid(`${path} must be an object`);
  const qid = id(value.id, `${path}.id`);
  if (seen.has(qid)) throw invalid(`${path}.id "${qid}" is used by another question: question ids must be unique in the survey`);
  seen.add(qid);
  if (value.required !== undefined && typeof value.required !== 'boolean') throw invalid(`${path}.required must be a boolean`);
  const base: QuestionBase = { id: qid, text: texts(value.text, `${path}.text`), required: value.required === true };
  switch (value.type) {
    case 'nps': case 'text': case 'yes_no':
      return { ...base, type: value.type };
    case 'rating':
      if (value.scale !== 5 && value.scale !== 10) throw invalid(`${path}.scale must be 5 or 10`);
      return { ...base, type: 'rating', scale: value.scale };
    case 'choice': {
      if (!Array.isArray(value.options) || value.options.length === 0 || value.options.length > 100) {
        throw invalid(`${path}.options must be an array of 1 to 100 options { id, text }`);
      }
      const ids = new Set<string>();
      const options = value.options.map((option: unknown, i: number) => {
        const at = `${path}.options.${i}`;
        if (!isObject(option)) throw invalid(`${at} must be an object { id, text }`);
        const oid = id(option.id, `${at}.id`);
        if (ids.has(oid)) throw invalid(`${at}.id "${oid}" is used by another option of this question`);
        ids.add(oid);
        return { id: oid, text: texts(option.text, `${at}.text`) };
      });
      if (value.multiple !== undefined && typeof value.multiple !== 'boolean') throw invalid(`${path}.multiple must be a boolean`);
      return { ...base, type: 'choice', options, multiple: value.multiple === true };
    }
    default:
      throw invalid(`${path}.type must be one of ${QUESTION_TYPES.join(', ')}`);
  }
}

/**
 * The definition as the survey page reads it, or a 400 naming the path of the first fault
 * (`body.definition.pages.0.questions.2.scale must be 5 or 10`). A definition without `pages` has
 * no questions: a draft may start empty.
 */
export function parseDefinition(value: unknown, path = 'body.definition'): Definition {
  if (!isObject(value)) throw invalid(`${path} must be an object`);
  if (value.pages === undefined) return { pages: [] };
  if (!Array.isArray(value.pages) || value.pages.length > 50) throw invalid(`${path}.pages must be an array of at most 50 pages`);
  const pageIds = new Set<string>();
  const questionIds = new Set<string>();
  const pages = value.pages.map((page: unknown, p: number): Page => {
    const at = `${path}.pages.${p}`;
    if (!isObject(page)) throw invalid(`${at} must be an object { id, title, questions }`);
    const pid = id(page.id, `${at}.id`);
    if (pageIds.has(pid)) throw invalid(`${at}.id "${pid}" is used by another page`);
    pageIds.add(pid);
    if (!Array.isArray(page.questions) || page.questions.length > 200) throw invalid(`${at}.questions must be an array of at most 200 questions`);
    return {
      id: pid, title: texts(page.title, `${at}.title`, true),
      questions: page.questions.map((q: unknown, i: number) => question(q, `${at}.questions.${i}`, questionIds)),
    };
  });
  return { pages };
}

/** The languages the definition has every text in, the primary one first when it is complete. */
export function languagesOf(definition: Definition, primary: string): string[] {
  const all: Texts[] = definition.pages.flatMap((p) => p.questions.flatMap((q) => [q.text, ...(q.type === 'choice' ? q.options.map((o) => o.text) : [])]));
  if (all.length === 0) return [primary];
  const candidates = Object.keys(all[0]!).filter((language) => all.every((t) => t[language] !== undefined));
  return candidates.includes(primary) ? [primary, ...candidates.filter((l) => l !== primary)] : candidates;
}

/** A text in the language, else the primary language, else any. */
export function textIn(t: Texts, language: string, primary: string): string {
  return t[language] ?? t[primary] ?? Object.values(t)[0] ?? '';
}
