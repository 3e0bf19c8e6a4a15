// A survey page's form → the answers stored (shared/spec/surveys.md): one answer per answered
// question with its path, type, value and numeric value; faults per question (a required question
// left empty, a value the question does not offer); and the response's overall_score.
import type { Definition, Question } from './definition.ts';
import { MAX_TEXT_ANSWER } from './definition.ts';

export interface ParsedAnswer {
  question_id: string;
  question_path: string;
  question_type: Question['type'];
  value: number | string | string[] | boolean;
  numeric_value: number | null;
}

/**
 * Why a question's answer was refused; the page shows it beside the question. `none`: nothing at all
 * was answered (a survey of optional questions only), told at its first question.
 */
export type AnswerFault = 'required' | 'invalid' | 'too_long' | 'none';

export interface ParsedForm {
  answers: ParsedAnswer[];
  faults: Map<string, AnswerFault>;
  /** What the guest entered, by question id, to fill the form again when it is shown with faults. */
  entered: Map<string, string[]>;
}

/** The form field of a question (`q.<id>`; a multiple choice sends it once per ticked box). */
export const fieldOf = (questionId: string): string => `q.${questionId}`;

const valuesOf = (form: Record<string, unknown>, field: string): string[] => {
  const raw = form[field];
  const list = Array.isArray(raw) ? raw : raw === undefined ? [] : [raw];
  // A browser sends a text area's line breaks as CRLF, yet counts each as one character against its
  // maxlength: read as LF, a text the browser let through is never refused as too long.
  return list.filter((v): v is string => typeof v === 'string').map((v) => v.replace(/\r\n?/g, '\n').trim()).filter((v) => v !== '');
};

function integerIn(raw: string, min: number, max: number): number | null {
  if (!/^\d{1,2}$/.test(raw)) return null;
  const n = Number(raw);
  return n >= min && n <= max ? n : null;
}

/** The stored value of one question's entries, or why they are not a valid answer. */
function answerOf(q: Question, entries: string[]): { value: ParsedAnswer['value']; numeric: number | null } | AnswerFault {
  const one = entries[0]!;
  if (entries.length > 1 && !(q.type === 'choice' && q.multiple)) return 'invalid';
  switch (q.type) {
    case 'nps': {
      const n = integerIn(one, 0, 10);
      return n === null ? 'invalid' : { value: n, numeric: n };
    }
    case 'rating': {
      const n = integerIn(one, 1, q.scale);
      return n === null ? 'invalid' : { value: n, numeric: n };
    }
    case 'text':
      return one.length > MAX_TEXT_ANSWER ? 'too_long' : { value: one, numeric: null };
    case 'yes_no':
      return one === 'yes' ? { value: true, numeric: 1 } : one === 'no' ? { value: false, numeric: 0 } : 'invalid';
    case 'choice': {
      const offered = new Set(q.options.map((o) => o.id));
      const picked = [...new Set(entries)];
      if (picked.some((id) => !offered.has(id))) return 'invalid';
      return { value: q.multiple ? picked : picked[0]!, numeric: null };
    }
  }
}

/** Reads a submitted form against the definition: the answers to store, and the faults to show. */
export function parseForm(definition: Definition, form: Record<string, unknown>): ParsedForm {
  const answers: ParsedAnswer[] = [];
  const faults = new Map<string, AnswerFault>();
  const entered = new Map<string, string[]>();
  for (const page of definition.pages) {
    for (const q of page.questions) {
      const entries = valuesOf(form, fieldOf(q.id));
      entered.set(q.id, entries);
      if (entries.length === 0) {
        if (q.required) faults.set(q.id, 'required');
        continue;
      }
      const parsed = answerOf(q, entries);
      if (typeof parsed === 'string') {
        faults.set(q.id, parsed);
        continue;
      }
      answers.push({ question_id: q.id, question_path: `${page.id}/${q.id}`, question_type: q.type, value: parsed.value, numeric_value: parsed.numeric });
    }
  }
  // An empty response says nothing, yet would count as an answer (the response rate, NPS's count,
  // survey.response_completed): where no question is required, at least one is asked for.
  const first = definition.pages.flatMap((page) => page.questions)[0];
  if (answers.length === 0 && faults.size === 0 && first !== undefined) faults.set(first.id, 'none');
  return { answers, faults, entered };
}

/** Each rating question's scale, by question id: what overallScore maps ratings from. */
export const ratingScales = (definition: Definition): Map<string, number> =>
  new Map(definition.pages.flatMap((p) => p.questions).flatMap((q) => (q.type === 'rating' ? [[q.id, q.scale] as const] : [])));

/**
 * The response's overall score (0–10): its NPS answer when it has one; else the mean of its rating
 * answers, each mapped linearly from 1…scale onto 0…10 (so 5 of 5 is 10 and 1 of 5 is 0), to one
 * decimal; else null.
 */
export function overallScore(scales: ReadonlyMap<string, number>, answers: ReadonlyArray<{ question_id: string; question_type: string; numeric_value?: number | null }>): number | null {
  const nps = answers.find((a) => a.question_type === 'nps' && a.numeric_value != null);
  if (nps) return nps.numeric_value!;
  // Answers imported through the admin API may name a question the definition lacks: they have no scale to map from.
  const ratings = answers.flatMap((a) => {
    const scale = scales.get(a.question_id);
    return a.question_type === 'rating' && a.numeric_value != null && scale !== undefined ? [((a.numeric_value - 1) / (scale - 1)) * 10] : [];
  });
  if (ratings.length === 0) return null;
  return Math.round((ratings.reduce((s, r) => s + r, 0) / ratings.length) * 10) / 10;
}
