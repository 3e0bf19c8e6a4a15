// Phrase banks of the demo data, per language: review titles, one sentence per topic and sentiment
// (each becomes a mention of that topic), closings, owner replies and guest names.

export const LANGUAGES = ['en', 'de', 'fr', 'es', 'it'] as const;
export type Language = (typeof LANGUAGES)[number];
export type Sentiment = 'positive' | 'neutral' | 'negative';
export const TOPIC_KEYS = ['cleanliness', 'staff', 'breakfast', 'location', 'noise', 'value'] as const;
export type TopicKey = (typeof TOPIC_KEYS)[number];

interface Bank {
  titles: Record<Sentiment, string[]>;
  topics: Record<TopicKey, Record<Sentiment, string[]>>;
  closings: Record<Sentiment, string[]>;
  replies: { positive: string[]; negative: string[] };
  firstNames: string[];
  lastInitials: string;
}

export const BANKS: Record<Language, Bank> = {
  en: {
    titles: {
      positive: ['Wonderful stay', 'Perfect weekend getaway', 'Would come back anytime', 'Exceeded our expectations', 'A real gem'],
      neutral: ['Decent but not outstanding', 'OK for a short stay', 'Mixed feelings', 'Good location, average rooms'],
      negative: ['Disappointing', 'Not worth the money', 'Would not stay again', 'Below expectations'],
    },
    topics: {
      cleanliness: {
        positive: ['The room was spotless and the bathroom sparkling clean.', 'Housekeeping did a great job every single day.'],
        neutral: ['The room was clean enough, nothing special.'],
        negative: ['The room was dirty when we arrived and there was hair in the shower.', 'Dusty furniture and stained towels.'],
      },
      staff: {
        positive: ['The staff were incredibly friendly and helpful.', 'The front desk team went out of their way to help us.'],
        neutral: ['Staff were polite but a bit slow at check-in.'],
        negative: ['The receptionist was rude and unhelpful.', 'We waited forty minutes at check-in with nobody apologising.'],
      },
      breakfast: {
        positive: ['Breakfast was excellent, with fresh pastries and great coffee.', 'The breakfast buffet had something for everyone.'],
        neutral: ['Breakfast was fine but quite repetitive.'],
        negative: ['Breakfast was poor: cold eggs and weak coffee.', 'The breakfast room was overcrowded and items ran out early.'],
      },
      location: {
        positive: ['The location is perfect, a short walk from the old town.', 'Great location close to the station and the lake.'],
        neutral: ['The location is convenient but the street is not very attractive.'],
        negative: ['The hotel is far from everything and badly signposted.'],
      },
      noise: {
        positive: ['Our room was very quiet and we slept like babies.'],
        neutral: ['Some street noise at night, but earplugs were provided.'],
        negative: ['Very noisy at night: thin walls and traffic until 2 am.', 'We could hear the bar music until midnight.'],
      },
      value: {
        positive: ['Great value for money.', 'Fair prices for this level of comfort.'],
        neutral: ['A bit pricey for what you get, but acceptable.'],
        negative: ['Far too expensive for the quality offered.', 'Overpriced, and parking was charged extra.'],
      },
    },
    closings: {
      positive: ['Highly recommended!', 'We will definitely be back.', 'Thank you for a lovely stay.'],
      neutral: ['Overall an average experience.', 'Fine for one or two nights.'],
      negative: ['We will not be coming back.', 'Very disappointing overall.'],
    },
    replies: {
      positive: ['Thank you so much for your kind words! We look forward to welcoming you again.', 'Dear guest, thank you for choosing us. Our team will be delighted to read your review.'],
      negative: ['Dear guest, we are sorry your stay did not meet your expectations. We have shared your feedback with our team and are taking action.', 'Thank you for your honest feedback. Please contact us directly so we can make this right.'],
    },
    firstNames: ['James', 'Emma', 'Oliver', 'Sophie', 'Michael', 'Hannah', 'David', 'Laura', 'Chris', 'Rachel', 'Tom', 'Sarah'],
    lastInitials: 'BCDHJKLMPRSTW',
  },
  de: {
    titles: {
      positive: ['Wunderbarer Aufenthalt', 'Rundum zufrieden', 'Jederzeit wieder', 'Ein echtes Juwel', 'Top Hotel'],
      neutral: ['Ganz okay', 'Solide, aber nicht herausragend', 'Gemischte Gefühle', 'Gute Lage, durchschnittliche Zimmer'],
      negative: ['Enttäuschend', 'Nicht das Geld wert', 'Leider nicht zu empfehlen', 'Unter den Erwartungen'],
    },
    topics: {
      cleanliness: {
        positive: ['Das Zimmer war blitzsauber und das Bad makellos.', 'Der Zimmerservice hat jeden Tag hervorragende Arbeit geleistet.'],
        neutral: ['Das Zimmer war ausreichend sauber.'],
        negative: ['Das Zimmer war bei Ankunft schmutzig und im Bad lagen Haare.', 'Staubige Möbel und fleckige Handtücher.'],
      },
      staff: {
        positive: ['Das Personal war unglaublich freundlich und hilfsbereit.', 'Das Team an der Rezeption hat sich toll um uns gekümmert.'],
        neutral: ['Das Personal war höflich, der Check-in dauerte aber etwas.'],
        negative: ['Die Rezeptionistin war unfreundlich und wenig hilfsbereit.', 'Wir haben vierzig Minuten auf den Check-in gewartet.'],
      },
      breakfast: {
        positive: ['Das Frühstück war ausgezeichnet, mit frischem Gebäck und gutem Kaffee.', 'Das Frühstücksbuffet ließ keine Wünsche offen.'],
        neutral: ['Das Frühstück war in Ordnung, aber wenig abwechslungsreich.'],
        negative: ['Das Frühstück war schwach: kalte Eier und dünner Kaffee.', 'Der Frühstücksraum war überfüllt und vieles schnell leer.'],
      },
      location: {
        positive: ['Die Lage ist perfekt, nur wenige Schritte zur Altstadt.', 'Tolle Lage nahe Bahnhof und See.'],
        neutral: ['Die Lage ist praktisch, die Straße aber nicht besonders schön.'],
        negative: ['Das Hotel liegt weit ab vom Schuss und ist schlecht ausgeschildert.'],
      },
      noise: {
        positive: ['Unser Zimmer war sehr ruhig, wir haben hervorragend geschlafen.'],
        neutral: ['Nachts etwas Straßenlärm, Ohrstöpsel lagen aber bereit.'],
        negative: ['Nachts sehr laut: dünne Wände und Verkehr bis 2 Uhr.', 'Die Musik aus der Bar war bis Mitternacht zu hören.'],
      },
      value: {
        positive: ['Sehr gutes Preis-Leistungs-Verhältnis.', 'Faire Preise für diesen Komfort.'],
        neutral: ['Etwas teuer für das Gebotene, aber vertretbar.'],
        negative: ['Viel zu teuer für die gebotene Qualität.', 'Überteuert, und das Parken kostete extra.'],
      },
    },
    closings: {
      positive: ['Absolut empfehlenswert!', 'Wir kommen bestimmt wieder.', 'Vielen Dank für den schönen Aufenthalt.'],
      neutral: ['Insgesamt durchschnittlich.', 'Für ein, zwei Nächte in Ordnung.'],
      negative: ['Wir kommen nicht wieder.', 'Insgesamt sehr enttäuschend.'],
    },
    replies: {
      positive: ['Herzlichen Dank für Ihre netten Worte! Wir freuen uns darauf, Sie wieder bei uns begrüßen zu dürfen.', 'Liebe Gäste, vielen Dank für Ihre Bewertung. Unser Team freut sich sehr darüber.'],
      negative: ['Liebe Gäste, es tut uns leid, dass Ihr Aufenthalt nicht Ihren Erwartungen entsprach. Wir haben Ihr Feedback an das Team weitergegeben.', 'Vielen Dank für Ihre offene Rückmeldung. Bitte kontaktieren Sie uns direkt, damit wir das wiedergutmachen können.'],
    },
    firstNames: ['Lukas', 'Anna', 'Maximilian', 'Sophie', 'Felix', 'Marie', 'Jonas', 'Lena', 'Tobias', 'Katrin', 'Stefan', 'Julia'],
    lastInitials: 'BFHKMNRSTWZ',
  },
  fr: {
    titles: {
      positive: ['Séjour merveilleux', 'Un week-end parfait', 'Nous reviendrons', 'Au-delà de nos attentes', 'Une vraie pépite'],
      neutral: ['Correct sans plus', 'Bien pour un court séjour', 'Avis mitigé', 'Bien situé, chambres moyennes'],
      negative: ['Décevant', 'Trop cher pour ce que c\'est', 'À éviter', 'En dessous de nos attentes'],
    },
    topics: {
      cleanliness: {
        positive: ['La chambre était impeccable et la salle de bain d\'une propreté parfaite.', 'Le ménage était fait avec soin chaque jour.'],
        neutral: ['La chambre était propre, sans plus.'],
        negative: ['La chambre était sale à notre arrivée et il y avait des cheveux dans la douche.', 'Meubles poussiéreux et serviettes tachées.'],
      },
      staff: {
        positive: ['Le personnel était extrêmement aimable et serviable.', 'L\'équipe de la réception a tout fait pour nous aider.'],
        neutral: ['Personnel poli mais enregistrement un peu lent.'],
        negative: ['Le réceptionniste était désagréable et peu serviable.', 'Quarante minutes d\'attente à l\'enregistrement, sans excuses.'],
      },
      breakfast: {
        positive: ['Le petit-déjeuner était excellent, viennoiseries fraîches et très bon café.', 'Le buffet du petit-déjeuner était très varié.'],
        neutral: ['Petit-déjeuner correct mais un peu répétitif.'],
        negative: ['Petit-déjeuner médiocre : œufs froids et café fade.', 'La salle du petit-déjeuner était bondée et le buffet vide trop tôt.'],
      },
      location: {
        positive: ['L\'emplacement est parfait, à deux pas de la vieille ville.', 'Très bien situé, près de la gare et de la mer.'],
        neutral: ['Emplacement pratique mais rue peu agréable.'],
        negative: ['L\'hôtel est loin de tout et mal indiqué.'],
      },
      noise: {
        positive: ['Notre chambre était très calme, nous avons très bien dormi.'],
        neutral: ['Un peu de bruit de la rue la nuit, mais des bouchons d\'oreilles étaient fournis.'],
        negative: ['Très bruyant la nuit : murs fins et circulation jusqu\'à 2 heures.', 'On entendait la musique du bar jusqu\'à minuit.'],
      },
      value: {
        positive: ['Excellent rapport qualité-prix.', 'Des prix honnêtes pour ce niveau de confort.'],
        neutral: ['Un peu cher pour la prestation, mais acceptable.'],
        negative: ['Beaucoup trop cher pour la qualité proposée.', 'Trop cher, et le parking était en supplément.'],
      },
    },
    closings: {
      positive: ['Je recommande vivement !', 'Nous reviendrons sans hésiter.', 'Merci pour ce séjour agréable.'],
      neutral: ['Expérience moyenne dans l\'ensemble.', 'Bien pour une ou deux nuits.'],
      negative: ['Nous ne reviendrons pas.', 'Très décevant dans l\'ensemble.'],
    },
    replies: {
      positive: ['Merci beaucoup pour votre gentil commentaire ! Nous serons ravis de vous accueillir à nouveau.', 'Chère cliente, cher client, merci de nous avoir choisis. Toute l\'équipe est ravie de lire votre avis.'],
      negative: ['Nous sommes désolés que votre séjour n\'ait pas été à la hauteur. Vos remarques ont été transmises à l\'équipe.', 'Merci pour votre retour sincère. N\'hésitez pas à nous contacter directement afin que nous puissions y remédier.'],
    },
    firstNames: ['Camille', 'Louis', 'Chloé', 'Hugo', 'Léa', 'Julien', 'Manon', 'Nicolas', 'Claire', 'Antoine', 'Élodie', 'Thomas'],
    lastInitials: 'BDFGLMPRV',
  },
  es: {
    titles: {
      positive: ['Estancia maravillosa', 'Un fin de semana perfecto', 'Volveremos sin duda', 'Superó nuestras expectativas', 'Una joya'],
      neutral: ['Correcto sin más', 'Bien para una estancia corta', 'Sensaciones mixtas', 'Buena ubicación, habitaciones normales'],
      negative: ['Decepcionante', 'No vale lo que cuesta', 'No volveríamos', 'Por debajo de lo esperado'],
    },
    topics: {
      cleanliness: {
        positive: ['La habitación estaba impecable y el baño relucía.', 'El servicio de limpieza fue excelente todos los días.'],
        neutral: ['La habitación estaba limpia, sin más.'],
        negative: ['La habitación estaba sucia al llegar y había pelos en la ducha.', 'Muebles con polvo y toallas manchadas.'],
      },
      staff: {
        positive: ['El personal fue muy amable y atento.', 'El equipo de recepción hizo todo lo posible por ayudarnos.'],
        neutral: ['El personal fue educado pero el check-in fue algo lento.'],
        negative: ['El recepcionista fue maleducado y poco servicial.', 'Esperamos cuarenta minutos en recepción sin ninguna disculpa.'],
      },
      breakfast: {
        positive: ['El desayuno era excelente, con bollería fresca y buen café.', 'El bufé de desayuno tenía de todo.'],
        neutral: ['El desayuno estaba bien pero era algo repetitivo.'],
        negative: ['El desayuno fue flojo: huevos fríos y café aguado.', 'El comedor estaba abarrotado y se acababa todo pronto.'],
      },
      location: {
        positive: ['La ubicación es perfecta, a pocos pasos del casco antiguo.', 'Muy bien situado, cerca de la estación y del lago.'],
        neutral: ['La ubicación es práctica pero la calle no es muy bonita.'],
        negative: ['El hotel está lejos de todo y mal señalizado.'],
      },
      noise: {
        positive: ['La habitación era muy tranquila y dormimos de maravilla.'],
        neutral: ['Algo de ruido de la calle por la noche, pero había tapones.'],
        negative: ['Mucho ruido por la noche: paredes finas y tráfico hasta las 2.', 'Se oía la música del bar hasta medianoche.'],
      },
      value: {
        positive: ['Muy buena relación calidad-precio.', 'Precios justos para este nivel de confort.'],
        neutral: ['Algo caro para lo que ofrece, pero aceptable.'],
        negative: ['Demasiado caro para la calidad ofrecida.', 'Caro, y el aparcamiento se cobraba aparte.'],
      },
    },
    closings: {
      positive: ['¡Muy recomendable!', 'Volveremos seguro.', 'Gracias por una estancia estupenda.'],
      neutral: ['En general, una experiencia normal.', 'Bien para una o dos noches.'],
      negative: ['No volveremos.', 'Muy decepcionante en general.'],
    },
    replies: {
      positive: ['¡Muchas gracias por sus amables palabras! Esperamos darle la bienvenida de nuevo.', 'Estimado huésped, gracias por elegirnos. Todo el equipo se alegra de leer su opinión.'],
      negative: ['Lamentamos que su estancia no cumpliera sus expectativas. Hemos compartido sus comentarios con el equipo.', 'Gracias por su opinión sincera. Contáctenos directamente para poder solucionarlo.'],
    },
    firstNames: ['Lucía', 'Javier', 'Carmen', 'Pablo', 'Marta', 'Alejandro', 'Elena', 'Diego', 'Sofía', 'Sergio', 'Paula', 'Andrés'],
    lastInitials: 'GLMNPRSV',
  },
  it: {
    titles: {
      positive: ['Soggiorno meraviglioso', 'Un weekend perfetto', 'Torneremo sicuramente', 'Oltre le aspettative', 'Una perla'],
      neutral: ['Discreto', 'Va bene per un soggiorno breve', 'Sensazioni contrastanti', 'Buona posizione, camere nella media'],
      negative: ['Deludente', 'Non vale il prezzo', 'Non torneremo', 'Sotto le aspettative'],
    },
    topics: {
      cleanliness: {
        positive: ['La camera era pulitissima e il bagno splendente.', 'Le pulizie sono state impeccabili ogni giorno.'],
        neutral: ['La camera era abbastanza pulita.'],
        negative: ['La camera era sporca all\'arrivo e c\'erano capelli nella doccia.', 'Mobili impolverati e asciugamani macchiati.'],
      },
      staff: {
        positive: ['Il personale è stato gentilissimo e disponibile.', 'Lo staff della reception ha fatto di tutto per aiutarci.'],
        neutral: ['Personale cortese ma check-in un po\' lento.'],
        negative: ['Il receptionist è stato scortese e poco disponibile.', 'Abbiamo aspettato quaranta minuti per il check-in.'],
      },
      breakfast: {
        positive: ['La colazione era ottima, con cornetti freschi e un buon caffè.', 'Il buffet della colazione era molto vario.'],
        neutral: ['La colazione era discreta ma sempre uguale.'],
        negative: ['Colazione scarsa: uova fredde e caffè annacquato.', 'La sala colazione era affollata e il buffet finiva presto.'],
      },
      location: {
        positive: ['La posizione è perfetta, a pochi passi dal centro storico.', 'Ottima posizione vicino alla stazione e al mare.'],
        neutral: ['Posizione comoda ma la strada non è molto bella.'],
        negative: ['L\'hotel è lontano da tutto e mal segnalato.'],
      },
      noise: {
        positive: ['La camera era silenziosissima, abbiamo dormito benissimo.'],
        neutral: ['Un po\' di rumore dalla strada di notte, ma c\'erano i tappi per le orecchie.'],
        negative: ['Molto rumoroso di notte: pareti sottili e traffico fino alle 2.', 'Si sentiva la musica del bar fino a mezzanotte.'],
      },
      value: {
        positive: ['Ottimo rapporto qualità-prezzo.', 'Prezzi onesti per questo livello di comfort.'],
        neutral: ['Un po\' caro per quello che offre, ma accettabile.'],
        negative: ['Troppo caro per la qualità offerta.', 'Caro, e il parcheggio si pagava a parte.'],
      },
    },
    closings: {
      positive: ['Consigliatissimo!', 'Torneremo di sicuro.', 'Grazie per il bellissimo soggiorno.'],
      neutral: ['Nel complesso un\'esperienza nella media.', 'Va bene per una o due notti.'],
      negative: ['Non torneremo.', 'Nel complesso molto deludente.'],
    },
    replies: {
      positive: ['Grazie mille per le sue belle parole! Speriamo di accoglierla di nuovo presto.', 'Gentile ospite, grazie per averci scelto. Tutto lo staff è felice di leggere la sua recensione.'],
      negative: ['Ci dispiace che il soggiorno non sia stato all\'altezza delle aspettative. Abbiamo condiviso il suo commento con lo staff.', 'Grazie per il suo riscontro sincero. Ci contatti direttamente, così potremo rimediare.'],
    },
    firstNames: ['Giulia', 'Marco', 'Francesca', 'Luca', 'Chiara', 'Alessandro', 'Sara', 'Matteo', 'Elena', 'Davide', 'Valentina', 'Simone'],
    lastInitials: 'BCFGLMRS',
  },
};
