"""The hand-picked picture-naming items: emoji, French word, gender, category and semantic cue.

One line per item, fields separated by ``|``:
``emoji | word | gender | category | semantic cue [| h]``.
``gender`` is ``m`` or ``f`` (``-`` for an action: an infinitive, said without a
determiner); a final ``h`` marks an aspirated h ("le hibou", never "l'hibou").
The cue names the category and the use or a salient feature, as a speech
therapist's semantic cue does, without the word itself. Each emoji shows one
thing (no flags, no faces standing for a person, no pairs or piles).
``models/naming/build.py`` checks every word and gender against Lexique 3.83
and takes its frequency from there.
"""

from __future__ import annotations

CATEGORIES = {
    "fruit": "un fruit",
    "légume": "un légume",
    "aliment": "un aliment",
    "boisson": "une boisson",
    "cuisine": "un objet de la cuisine",
    "maison": "un objet de la maison",
    "outil": "un outil",
    "bureau": "un objet pour écrire ou ranger",
    "santé": "un objet de la santé et de la toilette",
    "vêtement": "un vêtement ou un accessoire",
    "animal": "un animal",
    "corps": "une partie du corps",
    "transport": "un moyen de transport",
    "lieu": "un lieu",
    "nature": "quelque chose de la nature",
    "loisir": "un objet de loisir",
    "action": "une action",
}
"""Category -> how the semantic cue names it ("C'est un fruit.")."""

ITEMS = """
🍎|pomme|f|fruit|Il est rond, rouge ou vert, on le croque.
🍐|poire|f|fruit|Il est jaune ou vert, en forme de goutte.
🍊|orange|f|fruit|Il est rond, on en fait du jus le matin.
🍋|citron|m|fruit|Il est jaune et très acide.
🍌|banane|f|fruit|Il est jaune, long, on l'épluche.
🍉|pastèque|f|fruit|Il est gros, vert dehors et rouge dedans.
🍇|raisin|m|fruit|Il pousse en grappes, on en fait du vin.
🍓|fraise|f|fruit|Il est petit et rouge, on le mange au printemps.
🍑|pêche|f|fruit|Il a la peau douce et un gros noyau.
🍍|ananas|m|fruit|Il vient des pays chauds, il a des feuilles piquantes.
🥥|noix de coco|f|fruit|Il est dur et poilu, il pousse sur un palmier.
🥝|kiwi|m|fruit|Il est vert dedans, brun et poilu dehors.
🥭|mangue|f|fruit|Il vient des pays chauds, sa chair est orange.
🍈|melon|m|fruit|On le mange en été, il est orange dedans.
🥑|avocat|m|fruit|Il est vert avec un gros noyau, on en fait du guacamole.
🍅|tomate|f|légume|Elle est rouge, on la met dans la salade.
🥕|carotte|f|légume|Elle est orange et pousse dans la terre.
🌽|maïs|m|légume|Il est jaune, on en fait du pop-corn.
🥔|pomme de terre|f|légume|On en fait des frites et de la purée.
🍆|aubergine|f|légume|Elle est violette, on la cuisine en ratatouille.
🥒|concombre|m|légume|Il est long et vert, on le mange en salade.
🥦|brocoli|m|légume|Il est vert et ressemble à un petit arbre.
🧅|oignon|m|légume|On le coupe et il fait pleurer.
🧄|ail|m|légume|Il sent fort, on le met dans la cuisine du Sud.
🌶️|piment|m|légume|Il est rouge et il brûle la bouche.
🫑|poivron|m|légume|Il est vert, rouge ou jaune, creux dedans.
🥬|salade|f|légume|Elle a des feuilles vertes, on la mange avec une vinaigrette.
🍄|champignon|m|légume|On le cueille en forêt, en automne.
🥜|cacahuète|f|aliment|On la mange à l'apéritif, dans sa coque.
🌰|châtaigne|f|aliment|On la fait griller en hiver.
🍞|pain|m|aliment|On l'achète à la boulangerie, pour les repas.
🥖|baguette|f|aliment|C'est un pain long, on l'achète à la boulangerie.
🥐|croissant|m|aliment|On le mange au petit déjeuner, il est feuilleté.
🧀|fromage|m|aliment|Il est fait avec du lait, on le mange à la fin du repas.
🥚|œuf|m|aliment|La poule le pond, on le fait cuire à la coque.
🧈|beurre|m|aliment|On le tartine sur le pain.
🍗|poulet|m|aliment|C'est une viande, on le fait rôtir le dimanche.
🥩|viande|f|aliment|On l'achète chez le boucher.
🍔|hamburger|m|aliment|Un pain rond avec un steak dedans.|h
🍕|pizza|f|aliment|Elle vient d'Italie, ronde avec de la tomate.
🌭|hot-dog|m|aliment|Un pain avec une saucisse dedans.|h
🥪|sandwich|m|aliment|Du pain avec du jambon, pour le pique-nique.
🍣|sushi|m|aliment|Il vient du Japon, avec du riz et du poisson cru.
🍤|crevette|f|aliment|Elle vit dans la mer, elle est rose quand elle est cuite.
🍚|riz|m|aliment|Ce sont des petits grains blancs, on les fait cuire dans l'eau.
🍦|glace|f|aliment|Elle est froide, on la mange en été.
🍩|beignet|m|aliment|Il est rond et sucré, avec un trou au milieu.
🍪|biscuit|m|aliment|Il est sec et sucré, pour le goûter.
🎂|gâteau|m|aliment|On le mange à un anniversaire, avec des bougies.
🍫|chocolat|m|aliment|Il est brun et sucré, fait avec du cacao.
🍬|bonbon|m|aliment|Il est sucré, les enfants l'adorent.
🍭|sucette|f|aliment|Un bonbon au bout d'un bâton.
🍯|miel|m|aliment|Les abeilles le fabriquent, il est doux et sucré.
🥨|bretzel|m|aliment|Un biscuit salé en forme de nœud.
🧇|gaufre|f|aliment|Elle a des petits carreaux, on la mange à la fête foraine.
🍿|pop-corn|m|aliment|On le mange au cinéma.
🧂|sel|m|aliment|Il est blanc, on en met un peu sur les plats.
🥧|tarte|f|aliment|Un dessert avec de la pâte et des fruits.
🍮|flan|m|aliment|Un dessert qui tremble, avec du caramel.
☕|café|m|boisson|On le boit chaud le matin pour se réveiller.
🍵|thé|m|boisson|On le boit chaud, on laisse infuser les feuilles.
🥛|lait|m|boisson|Il est blanc, la vache le donne.
🍷|vin|m|boisson|Il est rouge ou blanc, fait avec du raisin.
🍺|bière|f|boisson|Elle a de la mousse, on la boit fraîche.
🍾|champagne|m|boisson|On l'ouvre pour faire la fête, ça pétille.
🧃|jus|m|boisson|On le boit avec une paille, fait avec des fruits.
🍸|cocktail|m|boisson|Un mélange servi dans un verre à pied.
🍼|biberon|m|cuisine|On s'en sert pour donner le lait au bébé.
🥄|cuillère|f|cuisine|On s'en sert pour manger la soupe.
🔪|couteau|m|cuisine|On s'en sert pour couper la viande.
🫖|théière|f|cuisine|On s'en sert pour servir le thé.
🥣|bol|m|cuisine|On s'en sert pour boire le café au lait ou manger les céréales.
🫙|bocal|m|cuisine|Un pot en verre pour garder la confiture.
🧊|glaçon|m|cuisine|On le met dans une boisson pour la rafraîchir.
🥤|gobelet|m|cuisine|On s'en sert pour boire, avec une paille.
🛏️|lit|m|maison|On s'y couche pour dormir.
🛋️|canapé|m|maison|On s'y assoit à plusieurs dans le salon.
🪑|chaise|f|maison|On s'assoit dessus pour manger à table.
🚪|porte|f|maison|On l'ouvre pour entrer dans une pièce.
🪟|fenêtre|f|maison|On l'ouvre pour aérer la pièce.
🚿|douche|f|maison|On s'y lave debout.
🛁|baignoire|f|maison|On la remplit d'eau pour prendre un bain.
🪞|miroir|m|maison|On s'y regarde pour se coiffer.
🧼|savon|m|maison|On s'en sert pour se laver les mains.
🪥|brosse à dents|f|maison|On s'en sert pour se laver les dents.
🧽|éponge|f|maison|On s'en sert pour laver la vaisselle.
🧹|balai|m|maison|On s'en sert pour balayer le sol.
🧺|panier|m|maison|On s'en sert pour porter le linge ou les courses.
🪣|seau|m|maison|On le remplit d'eau pour laver le sol.
🕯️|bougie|f|maison|On l'allume pour éclairer, elle a une mèche.
💡|ampoule|f|maison|Elle éclaire la pièce quand on allume.
🔑|clé|f|maison|On s'en sert pour ouvrir la porte.
🔒|cadenas|m|maison|On s'en sert pour fermer un vélo ou un casier.
📺|télévision|f|maison|On la regarde le soir dans le salon.
📻|radio|f|maison|On l'écoute pour les informations et la musique.
☎️|téléphone|m|maison|On s'en sert pour appeler quelqu'un.
📱|portable|m|maison|Un téléphone qu'on garde dans la poche.
💻|ordinateur|m|maison|On s'en sert pour écrire des messages et aller sur internet.
⌨️|clavier|m|maison|On tape dessus pour écrire à l'ordinateur.
🖨️|imprimante|f|maison|Elle sort les feuilles de l'ordinateur.
📷|appareil photo|m|maison|On s'en sert pour prendre des photos.
⏰|réveil|m|maison|Il sonne le matin pour nous lever.
⌚|montre|f|vêtement|On la porte au poignet pour lire l'heure.
⏳|sablier|m|maison|Le sable y coule pour mesurer le temps.
🧸|nounours|m|loisir|Un jouet doux en forme d'ours.
🪴|plante|f|maison|On l'arrose, elle est verte, dans un pot.
🖼️|tableau|m|maison|Une peinture accrochée au mur.
🧯|extincteur|m|maison|On s'en sert pour éteindre un feu.
🛒|chariot|m|maison|On le pousse au supermarché.
🧳|valise|f|maison|On y range ses habits pour partir en voyage.
☂️|parapluie|m|maison|On l'ouvre quand il pleut.
🎁|cadeau|m|maison|On l'offre pour un anniversaire ou à Noël.
🪜|échelle|f|outil|On monte dessus pour atteindre le haut.
🧲|aimant|m|outil|Il attire le fer.
🔨|marteau|m|outil|On s'en sert pour planter un clou.
🪛|tournevis|m|outil|On s'en sert pour serrer une vis.
🪚|scie|f|outil|On s'en sert pour couper le bois.
⛏️|pioche|f|outil|On s'en sert pour creuser la terre dure.
🪓|hache|f|outil|On s'en sert pour couper du bois.|h
🔧|clé anglaise|f|outil|On s'en sert pour serrer un écrou.
🔋|pile|f|outil|On la met dans une télécommande.
🔌|prise|f|outil|On la branche pour avoir l'électricité.
🔦|lampe de poche|f|outil|On l'allume pour voir dans le noir.
🔍|loupe|f|outil|On s'en sert pour voir plus gros.
🧭|boussole|f|outil|Elle montre le nord.
🔔|cloche|f|outil|Elle sonne en haut de l'église.
📎|trombone|m|bureau|On s'en sert pour attacher des feuilles.
📌|punaise|f|bureau|On s'en sert pour accrocher une affiche au mur.
✏️|crayon|m|bureau|On s'en sert pour écrire ou dessiner, on le taille.
🖊️|stylo|m|bureau|On s'en sert pour écrire à l'encre.
🖌️|pinceau|m|bureau|On s'en sert pour peindre.
📏|règle|f|bureau|On s'en sert pour tracer un trait droit.
📐|équerre|f|bureau|On s'en sert pour tracer un angle droit.
📕|livre|m|bureau|On le lit, il a des pages.
📓|cahier|m|bureau|On écrit dedans à l'école.
📰|journal|m|bureau|On le lit pour avoir les nouvelles du jour.
✉️|enveloppe|f|bureau|On y met une lettre pour la poster.
📦|carton|m|bureau|On s'en sert pour déménager ou envoyer un colis.
🗑️|poubelle|f|maison|On y jette les déchets.
📅|calendrier|m|bureau|Il montre les jours et les mois.
🏷️|étiquette|f|bureau|On y lit le prix.
🪒|rasoir|m|santé|On s'en sert pour se raser la barbe.
💊|médicament|m|santé|On le prend quand on est malade.
💉|seringue|f|santé|L'infirmière s'en sert pour faire une piqûre.
🩹|pansement|m|santé|On le colle sur une petite blessure.
🌡️|thermomètre|m|santé|On s'en sert pour prendre la température.
🩺|stéthoscope|m|santé|Le médecin s'en sert pour écouter le cœur.
🧷|épingle|f|vêtement|On s'en sert pour attacher un tissu.
🧵|fil|m|vêtement|On s'en sert pour coudre, avec une aiguille.
🧶|laine|f|vêtement|On s'en sert pour tricoter.
🪡|aiguille|f|vêtement|On s'en sert pour coudre, elle pique.
🎀|nœud|m|vêtement|On le fait avec un ruban sur un cadeau.
🪙|pièce|f|maison|On la met dans le porte-monnaie pour payer.
💳|carte bancaire|f|maison|On s'en sert pour payer au magasin.
💎|diamant|m|vêtement|Une pierre précieuse qui brille.
💍|bague|f|vêtement|On la porte au doigt, comme une alliance.
👑|couronne|f|vêtement|Le roi la porte sur la tête.
🎩|chapeau|m|vêtement|On le porte sur la tête.
🧢|casquette|f|vêtement|On la porte sur la tête, avec une visière.
🧣|écharpe|f|vêtement|On la porte autour du cou quand il fait froid.
👕|tee-shirt|m|vêtement|On le porte en été, à manches courtes.
👔|chemise|f|vêtement|On la porte avec une cravate, elle a des boutons.
👖|pantalon|m|vêtement|On le porte sur les jambes.
👗|robe|f|vêtement|Les femmes la portent, d'une seule pièce.
🩳|short|m|vêtement|Un pantalon court pour l'été.
🩱|maillot de bain|m|vêtement|On le porte pour aller nager.
🧥|manteau|m|vêtement|On le porte dehors en hiver.
🥼|blouse|f|vêtement|Le médecin la porte, elle est blanche.
🦺|gilet|m|vêtement|On le met sans manches, celui-ci est jaune pour être vu.
👛|porte-monnaie|m|vêtement|On y range les pièces.
👜|sac à main|m|vêtement|Les femmes le portent au bras.
🎒|sac à dos|m|vêtement|On le porte sur le dos pour la randonnée.
👞|chaussure|f|vêtement|On la met au pied pour sortir.
👟|basket|f|vêtement|Une chaussure pour faire du sport.
👢|botte|f|vêtement|Une chaussure haute pour la pluie.
🩴|tong|f|vêtement|Une chaussure ouverte pour la plage.
🪭|éventail|m|vêtement|On l'agite pour avoir de l'air quand il fait chaud.
🐕|chien|m|animal|Il aboie et garde la maison.
🐈|chat|m|animal|Il miaule et ronronne.
🐁|souris|f|animal|Elle est petite et grise, le chat la chasse.
🐀|rat|m|animal|Il ressemble à une grosse souris, il vit dans les égouts.
🐇|lapin|m|animal|Il a de longues oreilles et mange des carottes.
🐹|hamster|m|animal|Un petit animal de compagnie qui court dans sa roue.|h
🦊|renard|m|animal|Il est roux et rusé, il vole les poules.
🐻|ours|m|animal|Il est gros et poilu, il aime le miel.
🐼|panda|m|animal|Il est noir et blanc, il mange du bambou.
🐨|koala|m|animal|Il vit en Australie dans les arbres.
🐅|tigre|m|animal|Un grand félin orange avec des rayures noires.
🦁|lion|m|animal|Le roi des animaux, il a une crinière.
🐄|vache|f|animal|Elle donne du lait, elle fait meuh.
🐖|cochon|m|animal|Il est rose, il vit à la ferme.
🐑|mouton|m|animal|Il donne de la laine.
🐐|chèvre|f|animal|Elle a des cornes, on fait du fromage avec son lait.
🐎|cheval|m|animal|On monte dessus, il galope.
🦓|zèbre|m|animal|Il a des rayures noires et blanches.
🦒|girafe|f|animal|Elle a un très long cou.
🐘|éléphant|m|animal|Il est énorme, il a une trompe.
🦏|rhinocéros|m|animal|Il est gros, il a une corne sur le nez.
🦛|hippopotame|m|animal|Il est gros et vit dans les rivières d'Afrique.
🐪|chameau|m|animal|Il vit dans le désert, il a des bosses.
🦘|kangourou|m|animal|Il saute et porte son petit dans sa poche.
🐒|singe|m|animal|Il grimpe aux arbres et mange des bananes.
🦍|gorille|m|animal|Un très grand singe noir.
🐓|coq|m|animal|Il chante le matin, cocorico.
🐔|poule|f|animal|Elle pond des œufs.
🐤|poussin|m|animal|Le petit de la poule, jaune.
🦆|canard|m|animal|Il nage sur la mare et fait coin-coin.
🦢|cygne|m|animal|Un grand oiseau blanc au long cou, sur le lac.
🦉|hibou|m|animal|Un oiseau de nuit aux grands yeux.|h
🦅|aigle|m|animal|Un grand oiseau qui chasse, dans les montagnes.
🐦|oiseau|m|animal|Il a des plumes et il vole.
🦜|perroquet|m|animal|Un oiseau coloré qui peut parler.
🦩|flamant|m|animal|Un oiseau rose qui tient sur une patte.
🐧|pingouin|m|animal|Il vit sur la glace, noir et blanc.
🕊️|colombe|f|animal|Un oiseau blanc, symbole de la paix.
🦚|paon|m|animal|Il fait la roue avec ses belles plumes.
🦃|dinde|f|animal|On la mange à Noël.
🐸|grenouille|f|animal|Elle est verte et saute dans la mare.
🐢|tortue|f|animal|Elle marche lentement et a une carapace.
🐍|serpent|m|animal|Il rampe et il siffle.
🦎|lézard|m|animal|Il aime le soleil sur les murs.
🐊|crocodile|m|animal|Il vit dans les rivières et a de grandes dents.
🦖|dinosaure|m|animal|Il vivait il y a très longtemps.
🐟|poisson|m|animal|Il nage dans l'eau.
🐬|dauphin|m|animal|Il vit dans la mer et saute hors de l'eau.
🐳|baleine|f|animal|Le plus gros animal de la mer.
🦈|requin|m|animal|Un poisson dangereux aux dents pointues.
🐙|pieuvre|f|animal|Elle vit dans la mer et a huit bras.
🦀|crabe|m|animal|Il marche de côté sur la plage.
🦞|homard|m|animal|Il vit dans la mer, il a de grosses pinces.|h
🐌|escargot|m|animal|Il avance lentement avec sa coquille.
🦋|papillon|m|animal|Il vole de fleur en fleur avec de belles ailes.
🐛|chenille|f|animal|Elle deviendra un papillon.
🐜|fourmi|f|animal|Un tout petit insecte qui travaille beaucoup.
🐝|abeille|f|animal|Elle fait du miel et elle pique.
🐞|coccinelle|f|animal|Un petit insecte rouge à points noirs.
🕷️|araignée|f|animal|Elle tisse sa toile.
🦗|sauterelle|f|animal|Un insecte vert qui saute dans l'herbe.
🦟|moustique|m|animal|Il pique la nuit en été.
🪰|mouche|f|animal|Un insecte qui vole et se pose sur la nourriture.
🦔|hérisson|m|animal|Il a des piquants sur le dos.|h
🦇|chauve-souris|f|animal|Elle vole la nuit et dort la tête en bas.
🐿️|écureuil|m|animal|Il est roux et mange des noisettes.
🦫|castor|m|animal|Il construit des barrages sur les rivières.
🦦|loutre|f|animal|Elle nage dans la rivière et mange du poisson.
🐺|loup|m|animal|Il hurle la nuit, il vit dans la forêt.
🦌|cerf|m|animal|Il a de grands bois sur la tête.
🐗|sanglier|m|animal|Un cochon sauvage de la forêt.
🦙|lama|m|animal|Il vit dans les montagnes d'Amérique du Sud et crache.
🐂|taureau|m|animal|Il a des cornes, il fonce sur le rouge.
🦭|phoque|m|animal|Il vit sur la banquise et nage dans la mer froide.
🪱|ver de terre|m|animal|Il est long et vit dans la terre.
🦂|scorpion|m|animal|Il a une queue avec un dard.
🦄|licorne|f|animal|Un cheval magique avec une corne.
🐉|dragon|m|animal|Un monstre des légendes qui crache du feu.
👁️|œil|m|corps|On s'en sert pour voir.
👂|oreille|f|corps|On s'en sert pour entendre.
👃|nez|m|corps|On s'en sert pour sentir.
👄|bouche|f|corps|On s'en sert pour manger et parler.
👅|langue|f|corps|Elle est dans la bouche, on goûte avec.
🦷|dent|f|corps|On s'en sert pour mâcher, on la brosse.
🦴|os|m|corps|Il est dur, dans le squelette.
🦵|jambe|f|corps|On s'en sert pour marcher.
🦶|pied|m|corps|On met une chaussure dessus.
✋|main|f|corps|Elle a cinq doigts.
💪|bras|m|corps|Il va de l'épaule à la main.
👍|pouce|m|corps|Le plus gros doigt de la main.
🧠|cerveau|m|corps|Il est dans la tête, on pense avec.
🫀|cœur|m|corps|Il bat dans la poitrine.
🚗|voiture|f|transport|Elle a quatre roues, on la conduit.
🚕|taxi|m|transport|On le prend pour se faire conduire, on paie le chauffeur.
🚌|bus|m|transport|Un grand véhicule qui s'arrête aux arrêts.
🚑|ambulance|f|transport|Elle emmène les malades à l'hôpital.
🚒|camion de pompiers|m|transport|Il est rouge, il va éteindre le feu.
🚚|camion|m|transport|Un gros véhicule qui transporte les marchandises.
🚜|tracteur|m|transport|Le fermier le conduit dans les champs.
🏍️|moto|f|transport|Elle a deux roues et un moteur.
🛵|scooter|m|transport|Une petite moto pour la ville.
🚲|vélo|m|transport|Il a deux roues et des pédales.
🛴|trottinette|f|transport|On pousse avec un pied pour avancer.
🚆|train|m|transport|Il roule sur des rails.
🚇|métro|m|transport|Il roule sous la terre dans les grandes villes.
🚊|tramway|m|transport|Il roule sur des rails dans la rue.
🚁|hélicoptère|m|transport|Il vole avec une grande hélice sur le dessus.
✈️|avion|m|transport|Il vole dans le ciel, on le prend à l'aéroport.
🚀|fusée|f|transport|Elle part dans l'espace.
⛵|voilier|m|transport|Un bateau qui avance avec le vent.
🛶|canoë|m|transport|Un petit bateau qu'on fait avancer avec une pagaie.
🚢|bateau|m|transport|Il flotte sur la mer.
⚓|ancre|f|transport|On la jette au fond de l'eau pour arrêter le bateau.
🚠|téléphérique|m|transport|Une cabine suspendue à un câble dans la montagne.
🪂|parachute|m|transport|On l'ouvre pour sauter d'un avion.
🛹|skateboard|m|transport|Une planche à roulettes.
🦽|fauteuil roulant|m|transport|On s'y assoit quand on ne peut pas marcher.
🛞|roue|f|transport|Elle est ronde, la voiture en a quatre.
🚦|feu rouge|m|transport|Il dit aux voitures de s'arrêter ou de passer.
🏠|maison|f|lieu|On y habite avec sa famille.
🏥|hôpital|m|lieu|On y soigne les malades.
🏰|château|m|lieu|Le roi y habitait, avec des tours.
⛪|église|f|lieu|On y va pour la messe, il y a un clocher.
🏭|usine|f|lieu|Les ouvriers y fabriquent des objets.
🏟️|stade|m|lieu|On y regarde les matchs de football.
⛺|tente|f|lieu|On y dort en camping.
🏖️|plage|f|lieu|Il y a du sable, au bord de la mer.
🏔️|montagne|f|lieu|Elle est très haute, avec de la neige en haut.
🌋|volcan|m|lieu|Une montagne qui crache du feu.
🏝️|île|f|lieu|Une terre entourée d'eau.
🌉|pont|m|lieu|On le traverse pour passer au-dessus de la rivière.
⛲|fontaine|f|lieu|L'eau y coule sur la place du village.
🎡|grande roue|f|lieu|Un manège qui monte très haut à la fête foraine.
🏨|hôtel|m|lieu|On y dort en vacances.
🏢|immeuble|m|lieu|Un grand bâtiment avec beaucoup d'étages.
🏜️|désert|m|lieu|Il y a du sable et il fait très chaud.
🛖|cabane|f|lieu|Une petite maison en bois.
🏗️|grue|f|lieu|Elle soulève des charges sur un chantier.
🎪|cirque|m|lieu|On y voit des clowns et des acrobates.
☀️|soleil|m|nature|Il brille dans le ciel le jour.
🌙|lune|f|nature|Elle brille dans le ciel la nuit.
⭐|étoile|f|nature|Elle brille dans le ciel la nuit, il y en a beaucoup.
☁️|nuage|m|nature|Il est blanc ou gris dans le ciel.
⛄|bonhomme de neige|m|nature|On le fait en hiver avec de la neige.
❄️|flocon|m|nature|Il tombe du ciel quand il neige.
🌈|arc-en-ciel|m|nature|Il a plusieurs couleurs, après la pluie.
⚡|éclair|m|nature|Il brille pendant l'orage.
🔥|feu|m|nature|Il brûle et il chauffe.
💧|goutte|f|nature|Un tout petit peu d'eau qui tombe.
🌊|vague|f|nature|L'eau de la mer qui roule sur la plage.
🌳|arbre|m|nature|Il a un tronc, des branches et des feuilles.
🌲|sapin|m|nature|On le décore à Noël.
🌴|palmier|m|nature|Un arbre des pays chauds.
🌵|cactus|m|nature|Une plante du désert qui pique.
🌷|tulipe|f|nature|Une fleur du printemps, elle vient de Hollande.
🌹|rose|f|nature|Une fleur rouge avec des épines.
🌻|tournesol|m|nature|Une grande fleur jaune qui suit le soleil.
🍁|feuille|f|nature|Elle tombe de l'arbre en automne.
🍀|trèfle|m|nature|Une petite plante : à quatre feuilles, il porte bonheur.
🪨|rocher|m|nature|Une grosse pierre.
🪵|bûche|f|nature|Un morceau de bois pour la cheminée.
💐|bouquet|m|nature|Des fleurs qu'on offre.
🌪️|tornade|f|nature|Un vent très fort qui tourne.
⚽|ballon|m|loisir|On tape dedans au football.
🎸|guitare|f|loisir|Un instrument de musique à cordes.
🎹|piano|m|loisir|Un instrument de musique avec des touches noires et blanches.
🎺|trompette|f|loisir|Un instrument de musique en cuivre, on souffle dedans.
🎻|violon|m|loisir|Un instrument de musique à cordes, avec un archet.
🥁|tambour|m|loisir|Un instrument de musique, on tape dessus.
🪗|accordéon|m|loisir|Un instrument de musique du bal musette.
🎷|saxophone|m|loisir|Un instrument de musique du jazz, on souffle dedans.
🎤|micro|m|loisir|On parle dedans pour que la voix soit plus forte.
🎧|casque|m|loisir|On le met sur les oreilles pour écouter de la musique.
🎨|palette|f|loisir|Le peintre y met ses couleurs.
🎲|dé|m|loisir|On le lance pour jouer, il a six faces.
🧩|puzzle|m|loisir|Un jeu de pièces à assembler.
🪁|cerf-volant|m|loisir|On le fait voler avec le vent, au bout d'une ficelle.
🎣|canne à pêche|f|loisir|On s'en sert pour attraper des poissons.
🛷|luge|f|loisir|On glisse dessus dans la neige.
⛸️|patin|m|loisir|On le met au pied pour glisser sur la glace.
🥊|gant de boxe|m|loisir|Le boxeur le met pour se battre.
🏆|coupe|f|loisir|On la gagne à la fin d'un match.
🏅|médaille|f|loisir|On la gagne aux Jeux olympiques.
🎯|cible|f|loisir|On vise le centre avec une fléchette.
🪀|yoyo|m|loisir|Un jouet qui monte et descend au bout d'une ficelle.|h
🎮|manette|f|loisir|On s'en sert pour jouer aux jeux vidéo.
🪃|boomerang|m|loisir|On le lance et il revient.
🏹|arc|m|loisir|On s'en sert pour tirer des flèches.
🛝|toboggan|m|loisir|Les enfants glissent dessus au parc.
🔭|télescope|m|loisir|On s'en sert pour regarder les étoiles.
🔬|microscope|m|loisir|On s'en sert pour voir les toutes petites choses.
🧮|boulier|m|loisir|On s'en sert pour compter avec des boules.
🕰️|horloge|f|maison|Elle donne l'heure, accrochée au mur.
⏱️|chronomètre|m|loisir|On s'en sert pour mesurer le temps d'une course.
🤿|masque|m|loisir|On le met pour voir sous l'eau.
🏃|courir|-|action|Ce que l'on fait pour aller très vite à pied.
🏊|nager|-|action|Ce que l'on fait dans la piscine.
🚶|marcher|-|action|Ce que l'on fait à pied, tranquillement.
💃|danser|-|action|Ce que l'on fait au bal, en musique.
✍️|écrire|-|action|Ce que l'on fait avec un stylo.
👏|applaudir|-|action|Ce que l'on fait avec les mains à la fin du spectacle.
🏄|surfer|-|action|Ce que l'on fait sur une planche, sur les vagues.
🧗|grimper|-|action|Ce que l'on fait pour monter sur un mur ou un rocher.
🚴|pédaler|-|action|Ce que l'on fait avec les pieds sur un vélo.
🤹|jongler|-|action|Ce que fait le clown avec des balles.
🛌|dormir|-|action|Ce que l'on fait la nuit, dans son lit.
⛷️|skier|-|action|Ce que l'on fait sur la neige, en hiver.
🚣|ramer|-|action|Ce que l'on fait avec des rames pour faire avancer la barque.
👋|saluer|-|action|Ce que l'on fait de la main pour dire bonjour.
"""
"""The items (see the module docstring for the format)."""


def parse_items() -> list[dict[str, str | bool]]:
    """The catalogue as dictionaries (emoji, word, gender, category, cue, aspirated).

    Raises:
        ValueError: a malformed line, an unknown category or a duplicate word or emoji.
    """
    out: list[dict[str, str | bool]] = []
    words: set[str] = set()
    emojis: set[str] = set()
    for line in ITEMS.strip().splitlines():
        fields = [f.strip() for f in line.split("|")]
        if len(fields) not in (5, 6) or (len(fields) == 6 and fields[5] != "h"):
            raise ValueError(f"bad catalogue line: {line!r}")
        emoji, word, gender, category, cue = fields[:5]
        if category not in CATEGORIES or gender not in ("m", "f", "-"):
            raise ValueError(f"bad category or gender: {line!r}")
        if word in words or emoji in emojis:
            raise ValueError(f"duplicate: {line!r}")
        words.add(word)
        emojis.add(emoji)
        out.append(
            {
                "emoji": emoji,
                "word": word,
                "gender": gender,
                "category": category,
                "cue": cue,
                "aspirated": len(fields) == 6,
            }
        )
    return out
