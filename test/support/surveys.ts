// A survey definition with every question type, texts in English and German, and HTML in some
// texts (pages must show it as text).
export const DEFINITION = {
  pages: [
    { id: 'stay', title: { en: 'Your stay', de: 'Ihr Aufenthalt' }, questions: [
      { id: 'nps', type: 'nps', required: true, text: { en: 'How likely are you to recommend us?', de: 'Wie wahrscheinlich empfehlen Sie uns?' } },
      { id: 'room', type: 'rating', scale: 5, text: { en: 'Your room', de: 'Ihr Zimmer' } },
    ] },
    { id: 'more', title: { en: 'More', de: 'Mehr' }, questions: [
      { id: 'again', type: 'yes_no', text: { en: 'Would you stay again?', de: 'Würden Sie wiederkommen?' } },
      { id: 'liked', type: 'choice', multiple: true, text: { en: 'What did you like?', de: 'Was hat Ihnen gefallen?' },
        options: [{ id: 'spa', text: { en: 'Spa', de: 'Spa' } }, { id: 'food', text: { en: 'Food <b>', de: 'Essen <b>' } }] },
      { id: 'note', type: 'text', text: { en: 'Anything else? <script>alert(1)</script>', de: 'Sonst noch etwas? <script>alert(1)</script>' } },
    ] },
  ],
};
