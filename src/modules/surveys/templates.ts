// The standard post-stay survey, in the five languages guest pages are written in: what a survey
// made in the dashboard starts from (src/web/dashboard/surveys.ts), and the demo's post-stay survey.
// Its questions are fixed there; a survey of other questions is made through the admin API or
// `repute import` (README, "Survey definitions").

const text = (en: string, de: string, fr: string, it: string, es: string) => ({ en, de, fr, it, es });

export const POST_STAY_TEMPLATE = {
  pages: [
    {
      id: 'stay', title: text('Your stay', 'Ihr Aufenthalt', 'Votre séjour', 'Il suo soggiorno', 'Su estancia'),
      questions: [
        { id: 'nps', type: 'nps', min: 0, max: 10, required: true, text: text('How likely are you to recommend us to a friend or colleague?', 'Wie wahrscheinlich ist es, dass Sie uns weiterempfehlen?', 'Quelle est la probabilité que vous nous recommandiez ?', 'Quanto è probabile che ci consigli a un amico?', '¿Qué probabilidad hay de que nos recomiende a un amigo o colega?') },
        { id: 'overall', type: 'rating', scale: 5, text: text('Overall, how satisfied were you?', 'Wie zufrieden waren Sie insgesamt?', 'Globalement, êtes-vous satisfait ?', 'Complessivamente, quanto è soddisfatto?', 'En general, ¿qué tan satisfecho quedó?') },
        { id: 'cleanliness', type: 'rating', scale: 5, text: text('Cleanliness of your room', 'Sauberkeit Ihres Zimmers', 'Propreté de la chambre', 'Pulizia della camera', 'Limpieza de su habitación') },
        { id: 'staff', type: 'rating', scale: 5, text: text('Friendliness of our staff', 'Freundlichkeit unseres Personals', 'Amabilité du personnel', 'Cortesia del personale', 'Amabilidad de nuestro personal') },
      ],
    },
    {
      id: 'comments', title: text('Comments', 'Anmerkungen', 'Commentaires', 'Commenti', 'Comentarios'),
      questions: [
        { id: 'improve', type: 'text', required: false, text: text('What could we do better?', 'Was können wir besser machen?', 'Que pourrions-nous améliorer ?', 'Cosa potremmo migliorare?', '¿Qué podríamos mejorar?') },
      ],
    },
  ],
};

/** The languages the template is written in, as a survey's primary language may be. */
export const TEMPLATE_LANGUAGES = ['en', 'de', 'fr', 'it', 'es'] as const;
