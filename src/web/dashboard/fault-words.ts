// A refusal shown next to a form's field in words a person reads, in the page's language: the API's
// validator says "body.name must NOT have fewer than 1 characters" (right for an integrator reading
// JSON); beside the Name field the page says "Please fill this in." / "Bitte füllen Sie dieses Feld aus.".
// Rules this table does not know keep the service's own message, without the "body." prefix.

type Words = Record<'en' | 'de', (n: string, m: string) => string>;

/** A length limit as the language writes it (100,000 / 100.000). */
const grouped = (n: string, language: string): string => new Intl.NumberFormat(language).format(Number(n));

const RULES: Array<[RegExp, Words]> = [
  [/ must NOT have fewer than 1 characters$/, { en: () => 'Please fill this in.', de: () => 'Bitte füllen Sie dieses Feld aus.' }],
  [/ must NOT have more than (\d+) characters$/, {
    en: (n) => `At most ${grouped(n, 'en')} characters, please.`, de: (n) => `Bitte höchstens ${grouped(n, 'de')} Zeichen.`,
  }],
  [/ must NOT have fewer than 1 items$/, { en: () => 'Please choose at least one.', de: () => 'Bitte wählen Sie mindestens eines aus.' }],
  [/ must be number$/, { en: () => 'Please enter a number.', de: () => 'Bitte geben Sie eine Zahl ein.' }],
  [/ must be integer$/, { en: () => 'Please enter a whole number.', de: () => 'Bitte geben Sie eine ganze Zahl ein.' }],
  [/ must (?:match format "uuid"|be one of: .*)$/, { en: () => 'Please choose one of the options offered.', de: () => 'Bitte wählen Sie eine der angebotenen Möglichkeiten.' }],
  [/^node_id must be your node or a node below it$/, {
    en: () => 'Please choose your own part of the account or one below it.', de: () => 'Bitte wählen Sie Ihren eigenen Bereich des Kontos oder einen darunter.',
  }],
  [/^node_id already has invitations for this survey with other settings/, {
    en: () => 'Invitations already go out here with other settings: stop them first (Stop, above), then start them with the new ones.',
    de: () => 'Hier gehen schon Einladungen mit anderen Einstellungen hinaus: Beenden Sie diese zuerst (oben), dann starten Sie sie mit den neuen.',
  }],
  [/^node_id must be the survey's node or a node below it$/, {
    en: () => 'Please choose the survey\'s own part of the account or one below it.', de: () => 'Bitte wählen Sie den Bereich der Umfrage oder einen darunter.',
  }],
  [/^(?:from|to) must be a date \(YYYY-MM-DD\)$/, { en: () => 'Please enter a date.', de: () => 'Bitte geben Sie ein Datum ein.' }],
  [/^rating_min must be at most rating_max$/, {
    en: () => 'The lowest rating must not be above the highest.', de: () => 'Die niedrigste Bewertung darf nicht über der höchsten liegen.',
  }],
  [/^from must be before to /, { en: () => 'The first day must not come after the last.', de: () => 'Der erste Tag darf nicht nach dem letzten liegen.' }],
  [/ must be >= (-?[\d.]+)$/, { en: (n) => `Please enter ${n} or more.`, de: (n) => `Bitte geben Sie ${n} oder mehr ein.` }],
  [/ must be <= (-?[\d.]+)$/, { en: (n) => `Please enter ${n} or less.`, de: (n) => `Bitte geben Sie ${n} oder weniger ein.` }],
  [/ must (?:be an absolute http or https URL|match format "uri")/, {
    en: () => 'Please enter a web address starting with https:// (or http://).',
    de: () => 'Bitte geben Sie eine Webadresse ein, die mit https:// (oder http://) beginnt.',
  }],
  [/^url keeps the stored password \(•••\) only for the same server and user/, {
    en: () => 'The stored password (•••) stays only with the same server and user name: please type the password again.',
    de: () => 'Das gespeicherte Passwort (•••) bleibt nur beim selben Server und Benutzernamen: Bitte geben Sie das Passwort erneut ein.',
  }],
  [/ must (?:match format "email"|be an e-mail address \(name@domain\))$/, { en: () => 'Please enter an e-mail address.', de: () => 'Bitte geben Sie eine E-Mail-Adresse ein.' }],
  [/ must be (\d+) to (\d+) characters long$/, { en: (n, m) => `Please use ${n} to ${m} characters.`, de: (n, m) => `Bitte verwenden Sie ${n} bis ${m} Zeichen.` }],
  [/^(?:new_)?password must not be only spaces$/, { en: () => 'Please choose a password of more than spaces.', de: () => 'Bitte wählen Sie ein Passwort, das nicht nur aus Leerzeichen besteht.' }],
  [/^repeat_password must be the same as new_password$/, {
    en: () => 'The two new passwords differ: please type the same one twice.', de: () => 'Die beiden neuen Passwörter unterscheiden sich: Bitte geben Sie zweimal dasselbe ein.',
  }],
  [/^new_password must differ from the current password$/, {
    en: () => 'This is your current password: please choose a new one.', de: () => 'Das ist Ihr aktuelles Passwort: Bitte wählen Sie ein neues.',
  }],
  [/^delay_hours must be at most max_age_days × 24 \((\d+)\)/, {
    en: (n) => `At most ${n} hours, please: no stay is invited later than "Not after (days)".`,
    de: (n) => `Bitte höchstens ${n} Stunden: Kein Aufenthalt wird später als „Nicht später als (Tage)“ eingeladen.`,
  }],
  [/^email is already the e-mail of a user$/, {
    en: () => 'A user with this e-mail address already exists.', de: () => 'Es gibt bereits einen Benutzer mit dieser E-Mail-Adresse.',
  }],
];

/** The message for a person: a known rule in the page's language, else the service's words without "body.". */
export function faultWords(message: string, language: string): string {
  const plain = message.replace(/^(?:body|querystring)\./, '');
  for (const [rule, words] of RULES) {
    const match = rule.exec(plain);
    if (match) return (language === 'de' ? words.de : words.en)(match[1] ?? '', match[2] ?? '');
  }
  return plain;
}
