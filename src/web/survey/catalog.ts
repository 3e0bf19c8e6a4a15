// The words of the pages guests see (the survey, its thank-you page, unsubscribe), in the five
// languages surveys are written in. English is the contract the outside tests drive.
import type { Catalog } from '../i18n.ts';

type Key =
  | 'submit' | 'yes' | 'no' | 'required' | 'optional' | 'faults' | 'fault.required' | 'fault.invalid' | 'fault.too_long' | 'fault.none'
  | 'nps.low' | 'nps.high' | 'rating.low' | 'rating.high' | 'thanks.title' | 'thanks.body'
  | 'unsubscribe.title' | 'unsubscribe.body' | 'unsubscribe.button' | 'unsubscribed.title' | 'unsubscribed.body'
  | 'invalid.title' | 'invalid.body' | 'invalid.qrBody' | 'busy';

export const surveyCatalogs: { en: Catalog<Key> } & Record<string, Partial<Catalog<Key>>> = {
  en: {
    submit: 'Submit', yes: 'Yes', no: 'No', required: 'required', optional: 'optional',
    faults: 'Some answers are missing or not valid: see the questions marked below.',
    'fault.required': 'Please answer this question.', 'fault.invalid': 'Please choose one of the answers offered.',
    'fault.too_long': 'Please keep your answer to 5,000 characters at most.',
    'fault.none': 'Please answer at least one question before sending.',
    'nps.low': '0 = not at all likely', 'nps.high': '10 = extremely likely', 'rating.low': '1 = very poor', 'rating.high': '{scale} = excellent',
    'thanks.title': 'Thank you!', 'thanks.body': 'Your answers have been received. We appreciate the time you took.',
    'unsubscribe.title': 'Unsubscribe from survey e-mails',
    'unsubscribe.body': 'Press the button and we will not send you survey invitations any more.',
    'unsubscribe.button': 'Unsubscribe', 'unsubscribed.title': 'You are unsubscribed',
    'unsubscribed.body': 'You will not receive survey invitations from us any more.',
    'invalid.title': 'This link is not valid', 'invalid.body': 'It may be mistyped or cut short: please open it again from the e-mail.',
    'invalid.qrBody': 'It may be mistyped, or this survey may have ended: please scan the code again.',
    busy: 'Many answers have just come from your network. Please press Submit again in {minutes} min: your answers are kept below.',
  },
  de: {
    submit: 'Absenden', yes: 'Ja', no: 'Nein', required: 'Pflichtfeld', optional: 'freiwillig',
    faults: 'Einige Antworten fehlen oder sind ungültig: siehe die markierten Fragen.',
    'fault.required': 'Bitte beantworten Sie diese Frage.', 'fault.invalid': 'Bitte wählen Sie eine der angebotenen Antworten.',
    'fault.too_long': 'Bitte schreiben Sie höchstens 5.000 Zeichen.',
    'fault.none': 'Bitte beantworten Sie vor dem Absenden mindestens eine Frage.',
    'nps.low': '0 = sehr unwahrscheinlich', 'nps.high': '10 = äußerst wahrscheinlich', 'rating.low': '1 = sehr schlecht', 'rating.high': '{scale} = ausgezeichnet',
    'thanks.title': 'Vielen Dank!', 'thanks.body': 'Ihre Antworten sind angekommen. Wir wissen die Zeit zu schätzen, die Sie sich genommen haben.',
    'unsubscribe.title': 'Umfrage-E-Mails abbestellen', 'unsubscribe.body': 'Drücken Sie die Schaltfläche, und wir senden Ihnen keine Umfrage-Einladungen mehr.',
    // Not "Abmelden": the dashboard's word for signing out.
    'unsubscribe.button': 'Abbestellen', 'unsubscribed.title': 'Sie haben abbestellt', 'unsubscribed.body': 'Sie erhalten von uns keine Umfrage-Einladungen mehr.',
    'invalid.title': 'Dieser Link ist ungültig', 'invalid.body': 'Er ist vielleicht falsch eingegeben oder abgeschnitten: Bitte öffnen Sie ihn erneut aus der E-Mail.',
    'invalid.qrBody': 'Er ist vielleicht falsch eingegeben, oder die Umfrage ist beendet: Bitte scannen Sie den Code erneut.',
    busy: 'Aus Ihrem Netzwerk kamen gerade viele Antworten. Bitte drücken Sie in {minutes} Min. erneut auf „Absenden“: Ihre Antworten bleiben unten erhalten.',
  },
  fr: {
    submit: 'Envoyer', yes: 'Oui', no: 'Non', required: 'obligatoire', optional: 'facultatif',
    faults: 'Certaines réponses manquent ou ne sont pas valides : voir les questions signalées.',
    'fault.required': 'Merci de répondre à cette question.', 'fault.invalid': 'Merci de choisir une des réponses proposées.',
    'fault.too_long': 'Merci de ne pas dépasser 5 000 caractères.',
    'fault.none': 'Merci de répondre à au moins une question avant l’envoi.',
    'nps.low': '0 = pas du tout probable', 'nps.high': '10 = très probable', 'rating.low': '1 = très mauvais', 'rating.high': '{scale} = excellent',
    'thanks.title': 'Merci !', 'thanks.body': 'Vos réponses ont bien été reçues. Merci pour le temps accordé.',
    'unsubscribe.title': 'Se désabonner des e-mails de questionnaire', 'unsubscribe.body': 'Appuyez sur le bouton et nous ne vous enverrons plus d’invitations.',
    'unsubscribe.button': 'Se désabonner', 'unsubscribed.title': 'Votre désabonnement est enregistré', 'unsubscribed.body': 'Vous ne recevrez plus d’invitations de notre part.',
    'invalid.title': 'Ce lien n’est pas valide', 'invalid.body': 'Il est peut-être mal saisi ou incomplet : merci de l’ouvrir à nouveau depuis l’e-mail.',
    'invalid.qrBody': 'Il est peut-être mal saisi, ou ce questionnaire est terminé : merci de scanner à nouveau le code.',
    busy: 'Beaucoup de réponses viennent d’arriver de votre réseau. Merci d’appuyer à nouveau sur « Envoyer » dans {minutes} min : vos réponses sont conservées ci-dessous.',
  },
  es: {
    submit: 'Enviar', yes: 'Sí', no: 'No', required: 'obligatoria', optional: 'opcional',
    faults: 'Faltan respuestas o no son válidas: vea las preguntas marcadas.',
    'fault.required': 'Por favor, responda a esta pregunta.', 'fault.invalid': 'Por favor, elija una de las respuestas ofrecidas.',
    'fault.too_long': 'Por favor, no supere los 5000 caracteres.',
    'fault.none': 'Por favor, responda al menos una pregunta antes de enviar.',
    'nps.low': '0 = nada probable', 'nps.high': '10 = muy probable', 'rating.low': '1 = muy malo', 'rating.high': '{scale} = excelente',
    'thanks.title': '¡Gracias!', 'thanks.body': 'Hemos recibido sus respuestas. Gracias por su tiempo.',
    'unsubscribe.title': 'Darse de baja de las encuestas', 'unsubscribe.body': 'Pulse el botón y no le enviaremos más invitaciones.',
    'unsubscribe.button': 'Darse de baja', 'unsubscribed.title': 'Se ha dado de baja', 'unsubscribed.body': 'No recibirá más invitaciones de encuestas.',
    'invalid.title': 'Este enlace no es válido', 'invalid.body': 'Puede estar mal escrito o cortado: ábralo de nuevo desde el correo electrónico.',
    'invalid.qrBody': 'Puede estar mal escrito o la encuesta puede haber terminado: escanee de nuevo el código.',
    busy: 'Acaban de llegar muchas respuestas desde su red. Pulse «Enviar» de nuevo dentro de {minutes} min: sus respuestas se conservan abajo.',
  },
  it: {
    submit: 'Invia', yes: 'Sì', no: 'No', required: 'obbligatoria', optional: 'facoltativa',
    faults: 'Alcune risposte mancano o non sono valide: vedere le domande segnalate.',
    'fault.required': 'Per favore, risponda a questa domanda.', 'fault.invalid': 'Per favore, scelga una delle risposte proposte.',
    'fault.too_long': 'Per favore, non superi i 5.000 caratteri.',
    'fault.none': 'Per favore, risponda ad almeno una domanda prima di inviare.',
    'nps.low': '0 = per niente probabile', 'nps.high': '10 = estremamente probabile', 'rating.low': '1 = pessimo', 'rating.high': '{scale} = eccellente',
    'thanks.title': 'Grazie!', 'thanks.body': 'Abbiamo ricevuto le sue risposte. Grazie per il tempo dedicato.',
    'unsubscribe.title': 'Annulla l’iscrizione ai sondaggi', 'unsubscribe.body': 'Prema il pulsante e non le invieremo più inviti.',
    'unsubscribe.button': 'Annulla iscrizione', 'unsubscribed.title': 'Iscrizione annullata', 'unsubscribed.body': 'Non riceverà più inviti ai sondaggi.',
    'invalid.title': 'Questo link non è valido', 'invalid.body': 'Potrebbe essere scritto male o incompleto: lo riapra dall’e-mail.',
    'invalid.qrBody': 'Potrebbe essere scritto male, o il sondaggio potrebbe essere terminato: scansioni di nuovo il codice.',
    busy: 'Sono appena arrivate molte risposte dalla sua rete. Prema di nuovo «Invia» tra {minutes} min: le sue risposte restano qui sotto.',
  },
};

