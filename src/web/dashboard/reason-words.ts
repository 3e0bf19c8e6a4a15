// Why an invitation was not sent, or why a webhook delivery got no answer, on a page in another
// language than English. The stored reasons are English sentences the README and the API document
// (`last_error`), and the English page shows them as stored; a reason this table does not know (an
// SMTP server's own answer, say) is shown as stored in every language.

type German = (...parts: string[]) => string;

const GERMAN: Array<[RegExp, German]> = [
  // Invitations (src/modules/invitations/sender.ts, respond.ts, repository.ts).
  [/^the survey is not published$/, () => 'Die Umfrage ist nicht mehr veröffentlicht.'],
  [/^the invitation rule was removed$/, () => 'Die Einladungen wurden vorher beendet.'],
  [/^the stay or the guest was erased$/, () => 'Der Aufenthalt oder der Gast wurde gelöscht (DSGVO).'],
  [/^the survey has no questions$/, () => 'Die Umfrage hat keine Fragen.'],
  [/^the stay is cancelled$/, () => 'Der Aufenthalt wurde storniert.'],
  [/^the stay is (?:arrived|booked)$/, () => 'Der Gast war beim Versand nicht abgereist.'],
  [/^the stay is no_show$/, () => 'Der Gast ist nicht angereist.'],
  [/^the stay has no end$/, () => 'Der Aufenthalt hat kein Abreisedatum.'],
  [/^the stay ended more than (\d+) days ago$/, (n) => `Der Aufenthalt endete vor mehr als ${n} Tagen.`],
  [/^the guest withdrew consent$/, () => 'Der Gast möchte keine Umfrage-E-Mails.'],
  [/^the guest unsubscribed$/, () => 'Der Gast hat abbestellt.'],
  [/^the guest has not granted consent$/, () => 'Der Gast hat E-Mails nicht zugestimmt.'],
  [/^the guest was invited within the last (\d+) days$/, (n) => `Der Gast wurde in den letzten ${n} Tagen schon eingeladen.`],
  // Webhook deliveries (src/delivery/sender.ts, address-guard.ts, attempt.ts).
  [/^address refused: (.+?) resolves to .+$/, (what) => `Abgewiesen: ${what} verweist auf eine private oder lokale Adresse, Webhooks gehen nur an öffentliche Server.`],
  [/^address refused: (.+?) is .+$/, (what) => `Abgewiesen: ${what} ist eine private oder lokale Adresse, Webhooks gehen nur an öffentliche Server.`],
  [/^timed out after (\d+) ms$/, (ms) => `Keine Antwort innerhalb von ${Number(ms) / 1000} s.`],
  [/^connect timed out after (\d+) ms$/, (ms) => `Der Server war innerhalb von ${Number(ms) / 1000} s nicht erreichbar.`],
  [/^connection refused$/, () => 'Der Server hat die Verbindung abgelehnt.'],
  [/^host name not resolved \((\w+)\)$/, () => 'Diesen Host-Namen gibt es nicht, oder er ließ sich nicht auflösen.'],
  [/^the signing secret cannot be decrypted/, () => 'Das Signaturgeheimnis ist nicht lesbar: Bitte wenden Sie sich an den Betreiber.'],
];

/** A stored reason in the page's language (German where this table knows it; else as stored). */
export function reasonWords(reason: string, language: string): string {
  if (language !== 'de') return reason;
  for (const [pattern, say] of GERMAN) {
    const match = pattern.exec(reason);
    if (match) return say(...match.slice(1));
  }
  return reason;
}
