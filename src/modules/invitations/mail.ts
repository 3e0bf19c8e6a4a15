// The invitation e-mail: a text and an HTML part in the invitation's language, the survey link and
// the unsubscribe link, and the one-click unsubscribe headers of RFC 8058 (a mail provider POSTs
// `List-Unsubscribe=One-Click` to the link in List-Unsubscribe). The HTML part is an Eta template
// that escapes every value (a property or survey name is text, never markup).
import { baseLanguage } from '../../lib/language-tag.ts';
import { Eta } from 'eta';
import type { SendMailOptions } from 'nodemailer';

interface Words { subject: string; greeting: string; greetingNamed: string; ask: string; button: string; time: string; unsubscribe: string; unsubscribeLink: string; link: string }

const WORDS: Readonly<Record<string, Words>> = {
  en: {
    subject: 'How was your stay at {property}?', greeting: 'Hello,', greetingNamed: 'Dear {name},',
    ask: 'Thank you for staying at {property}. Would you tell us how it was?', button: 'Answer the survey',
    time: 'It takes about two minutes.', unsubscribe: 'Rather not receive these e-mails?', unsubscribeLink: 'Unsubscribe', link: 'Open the survey:',
  },
  de: {
    subject: 'Wie war Ihr Aufenthalt im {property}?', greeting: 'Guten Tag,', greetingNamed: 'Guten Tag, {name},',
    ask: 'Vielen Dank für Ihren Aufenthalt im {property}. Möchten Sie uns sagen, wie er war?', button: 'Zur Umfrage',
    time: 'Es dauert etwa zwei Minuten.', unsubscribe: 'Sie möchten diese E-Mails nicht?', unsubscribeLink: 'Abbestellen', link: 'Zur Umfrage:',
  },
  fr: {
    subject: 'Comment s’est passé votre séjour à {property} ?', greeting: 'Bonjour,', greetingNamed: 'Bonjour {name},',
    ask: 'Merci d’avoir séjourné à {property}. Voulez-vous nous dire comment cela s’est passé ?', button: 'Répondre au questionnaire',
    time: 'Cela prend environ deux minutes.', unsubscribe: 'Vous ne souhaitez plus recevoir ces e-mails ?', unsubscribeLink: 'Se désabonner', link: 'Ouvrir le questionnaire :',
  },
  es: {
    subject: '¿Qué tal su estancia en {property}?', greeting: 'Hola:', greetingNamed: 'Estimado/a {name}:',
    ask: 'Gracias por alojarse en {property}. ¿Nos cuenta qué tal fue?', button: 'Responder la encuesta',
    time: 'Le llevará unos dos minutos.', unsubscribe: '¿No desea recibir estos correos?', unsubscribeLink: 'Darse de baja', link: 'Abrir la encuesta:',
  },
  it: {
    subject: 'Com’è stato il suo soggiorno presso {property}?', greeting: 'Buongiorno,', greetingNamed: 'Gentile {name},',
    ask: 'Grazie per aver soggiornato presso {property}. Ci racconta com’è andata?', button: 'Rispondi al sondaggio',
    time: 'Ci vogliono circa due minuti.', unsubscribe: 'Non desidera ricevere queste e-mail?', unsubscribeLink: 'Annulla l’iscrizione', link: 'Apri il sondaggio:',
  },
};

const HTML = `<!doctype html>
<html lang="<%= it.language %>"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width"><title><%= it.subject %></title></head>
<body style="margin:0;padding:24px;background:#f5f5f4;font-family:-apple-system,Segoe UI,Roboto,Helvetica,Arial,sans-serif;color:#1c1917">
<div style="max-width:560px;margin:0 auto;background:#fff;border-radius:8px;padding:24px">
<p><%= it.greeting %></p>
<p><%= it.ask %></p>
<p style="margin:28px 0"><a href="<%= it.surveyUrl %>" style="display:inline-block;background:#1d4ed8;color:#fff;padding:12px 20px;line-height:24px;border-radius:6px;text-decoration:none;font-weight:600"><%= it.button %></a></p>
<p style="color:#57534e"><%= it.time %></p>
</div>
<p style="max-width:560px;margin:16px auto;font-size:13px;color:#57534e"><%= it.unsubscribe %> <a href="<%= it.unsubscribeUrl %>" style="color:#57534e"><%= it.unsubscribeLink %></a></p>
</body></html>
`;

const eta = new Eta({ autoEscape: true, cache: true });
eta.loadTemplate('@invitation', HTML);

export interface InvitationMail {
  to: string;
  from: string;
  language: string;
  firstName: string | null;
  propertyName: string;
  surveyUrl: string;
  unsubscribeUrl: string;
  /** Message-ID's local part and the .eml file's name: the invitation's id. */
  invitationId: string;
  messageDomain: string;
}

const fill = (text: string, vars: Record<string, string>): string => text.replace(/\{(\w+)\}/g, (whole, k: string) => vars[k] ?? whole);

export function invitationMessage(m: InvitationMail): SendMailOptions & { fileName: string } {
  // The language the e-mail is written in: the invitation's, its base language (de for de-CH or deu), else English.
  const base = baseLanguage(m.language);
  const language = Object.hasOwn(WORDS, m.language) ? m.language : Object.hasOwn(WORDS, base) ? base : 'en';
  const words = WORDS[language]!;
  const vars = { property: m.propertyName, name: m.firstName ?? '' };
  const greeting = m.firstName ? fill(words.greetingNamed, vars) : words.greeting;
  const subject = fill(words.subject, vars);
  const ask = fill(words.ask, vars);
  // "-- " with its space: the signature separator mail readers recognise (RFC 3676).
  const text = [greeting, '', ask, words.time, '', `${words.link} ${m.surveyUrl}`, '', '-- ', `${words.unsubscribe} ${words.unsubscribeLink}: ${m.unsubscribeUrl}`, ''].join('\n');
  const html = eta.render('@invitation', {
    language, subject, greeting, ask, time: words.time, button: words.button,
    surveyUrl: m.surveyUrl, unsubscribeUrl: m.unsubscribeUrl, unsubscribe: words.unsubscribe, unsubscribeLink: words.unsubscribeLink,
  });
  return {
    from: m.from, to: m.to, subject, text, html,
    messageId: `<invitation-${m.invitationId}@${m.messageDomain}>`,
    headers: {
      'List-Unsubscribe': `<${m.unsubscribeUrl}>`, 'List-Unsubscribe-Post': 'List-Unsubscribe=One-Click', 'Auto-Submitted': 'auto-generated',
      'Content-Language': language,
    },
    fileName: m.invitationId,
  };
}
