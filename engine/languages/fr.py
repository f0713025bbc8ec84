"""French: the words memtap reads in French (data only; the rule shapes are
`engine/extraction/shapes.py`). Facts are stored in French, third person."""

from __future__ import annotations

from memtap.engine.languages.pack import (
    DateWords,
    LanguagePack,
    NamedRelatives,
    periods,
    words,
)
from memtap.engine.languages.pack import Example as E
from memtap.engine.languages.pack import Phrase as P

_ROLES = (
    r"(?:ing[ée]nieur(?:e)?|d[ée]veloppeur|d[ée]veloppeuse|programmeur|programmeuse|professeur(?:e)?|prof|"
    r"enseignant(?:e)?|m[ée]decin|infirmier|infirmi[èe]re|designer|avocat(?:e)?|[ée]tudiant(?:e)?|"
    r"journaliste|comptable|architecte|chercheur|chercheuse|scientifique|analyste|directeur|"
    r"directrice|consultant(?:e)?|cuisinier|cuisini[èe]re|chef|[ée]crivain(?:e)?|traducteur|"
    r"traductrice|pilote|photographe|psychologue|v[ée]t[ée]rinaire|dentiste|pharmacien(?:ne)?|"
    r"retrait[ée](?:e)?|freelance|ind[ée]pendant(?:e)?|fondateur|fondatrice|entrepreneur(?:e)?)"
)
_REL = (
    r"(?:femme|mari|[ée]pouse|[ée]poux|conjoint(?:e)?|copine|copain|compagne|compagnon|fils|fille|"
    r"filles|enfants|enfant|m[èe]re|p[èe]re|parents|fr[èe]re|fr[èe]res|s[œo]e?ur|s[œo]e?urs|"
    r"grand-m[èe]re|grand-p[èe]re|tante|oncle|cousin(?:e)?|chien|chienne|chiens|chat|chatte|chats|"
    r"perroquet|lapin|hamster)"
)
_REL_T = (
    "femme mari épouse epouse époux epoux conjoint conjointe copine copain compagne compagnon fils "
    "fille filles enfants enfant mère mere père pere parents frère frere frères freres sœur soeur "
    "sœurs soeurs grand mère père tante oncle cousin cousine chien chienne chiens chat chatte "
    "chats perroquet lapin hamster"
)
_DIET = r"(?:v[ée]g[ée]tarien(?:ne)?|v[ée]gane?|vegan|v[ée]g[ée]talien(?:ne)?|flexitarien(?:ne)?|pescetarien(?:ne)?)"
_DIET_T = "végétarien végétarienne vegetarien vegetarienne végane vegane vegan végétalien végétalienne flexitarien flexitarienne pescetarien pescetarienne"
_LANG = r"(?:fran[çc]ais|anglais|espagnol|allemand|portugais|italien)"
_LANG_T = "français francais anglais espagnol allemand portugais italien"
_PREP = r"(?P<prep>à|a|en|au|aux|dans)"
_POSS = {"mon": "Son {obj}", "ma": "Sa {obj}", "mes": "Ses {obj}", "": "Son {obj}"}

DATES = DateWords(
    days={
        "aujourd'hui": 0,
        "ce matin": 0,
        "ce soir": 0,
        "hier": -1,
        "hier soir": -1,
        "avant-hier": -2,
        "demain": 1,
        "après-demain": 2,
    },
    periods=periods(
        {
            -1: {
                "week": ("la semaine dernière", "la semaine passée"),
                "weekend": ("le week-end dernier", "le weekend dernier"),
                "month": ("le mois dernier",),
                "year": ("l'année dernière", "l'an dernier", "l'année passée"),
            },
            0: {
                "week": ("cette semaine",),
                "weekend": ("ce week-end", "ce weekend"),
                "month": ("ce mois-ci",),
                "year": ("cette année",),
            },
            1: {
                "week": ("la semaine prochaine",),
                "weekend": ("le week-end prochain", "le weekend prochain"),
                "month": ("le mois prochain",),
                "year": ("l'année prochaine", "l'an prochain"),
            },
        }
    ),
    numbers={
        "un": 1,
        "une": 1,
        "deux": 2,
        "trois": 3,
        "quatre": 4,
        "cinq": 5,
        "six": 6,
        "sept": 7,
        "huit": 8,
        "neuf": 9,
        "dix": 10,
    },
    units={
        "jour": "day",
        "jours": "day",
        "semaine": "week",
        "semaines": "week",
        "mois": "month",
        "an": "year",
        "ans": "year",
        "année": "year",
        "années": "year",
    },
    ago=(r"il\s+y\s+a\s+{n}\s+{unit}",),
    ahead=(r"dans\s+{n}\s+{unit}",),
    weekdays={
        "lundi": 0,
        "mardi": 1,
        "mercredi": 2,
        "jeudi": 3,
        "vendredi": 4,
        "samedi": 5,
        "dimanche": 6,
    },
    weekday_frames=(
        (r"{wd}\s+dernier", -1),
        (r"{wd}\s+prochain", 1),
        (r"(?<!\ble\s)(?<!\bles\s){wd}", 0),
    ),
    future=r"\b(?:vais|vas|va|allons|allez|vont)\s+\w+|\b\w+(?:rai|ras|ra|rons|ront)\b",
)

NAMED = NamedRelatives(
    possessive=r"(?:mon|ma|notre)",
    called=r"s'appelle|nomm[ée]e?",
    words={
        "femme": "wife",
        "mari": "husband",
        "compagnon": "partner",
        "compagne": "partner",
        "copain": "boyfriend",
        "copine": "girlfriend",
        "fils": "son",
        "fille": "daughter",
        "mère": "mother",
        "père": "father",
        "frère": "brother",
        "sœur": "sister",
        "soeur": "sister",
        "grand-mère": "grandmother",
        "grand-père": "grandfather",
        "chien": "dog",
        "chienne": "dog",
        "chat": "cat",
        "chatte": "cat",
    },
    examples=(
        E("Ma femme Claire est médecin.", "Their wife (femme) is called Claire"),
    ),
)


# The words that name a fact's family (the net: engine/extraction/self_statement.py).
FAMILY_WORDS = {
    "habit": (r"toujours|souvent|d'habitude|tous\s+les|chaque"),
    "constraint": (r"v[ée]g[ée]tarien\w*|intol[ée]rant\w*|ordinateur|maladie"),
    "family": (
        r"femme|mari|copain|copine|fils|fille|enfants|chien|m[èe]re|p[èe]re|fr[èe]re|"
        r"s[œo]eur|mari[ée]e?"
    ),
    "work": (
        r"travaille|bosse|boulot|entreprise|ing[ée]nieur\w*|d[ée]veloppeu\w*|"
        r"professeur\w*|m[ée]decin|infirmi\w*|[ée]tudiant\w*|retrait[ée]\w*"
    ),
    "location": (r"habite|d[ée]m[ée]nag\w*|je\s+vis"),
    "identity": (r"m'appelle|ans|n[ée]e"),
    "instruction": (r"r[ée]ponses"),
    "goal": (r"veux|voudrais|objectif|apprends|pr[ée]pare|[ée]conomise"),
    "stack": (r"utilisons"),
    "decision": (r"choisi|d[ée]cid[ée]|renonc[ée]"),
    "preference": (r"aime|d[ée]teste|pr[ée]f[èe]re|pr[ée]f[ée]r[ée]e?|horreur"),
    "event": (r"vient\s+de|viens\s+de|dipl[ôo]m[ée]e?"),
}


PACK = LanguagePack(
    code="fr",
    family_words=FAMILY_WORDS,
    passing=words("en à au chez"),
    empty_words=words("vraiment beaucoup trop tellement"),
    clause_ends=r"parce\s+que?|mais|si\s+(?=\w)",
    name_ends=r"et|mais|de\s+\d",
    scope_words=r"pour|en",
    universal_scopes=r"tout|tous\s+\w+|toutes?\s+\w+|n'importe\s+quoi",
    i_am=r"je\s+suis|nous\s+sommes",
    mail_headers=r"De|À|Objet|Envoyé",
    reply_lines=r"Le .{5,120} a écrit\s*:",
    comma_stops=r"je|merci",
    busy=r"je\s+suis\s+en\s+train",
    deictic_objects=r"ce|cette|ces",
    chapters=r"chapitre|sc[èe]ne",
    chapter_numbers=r"un",
    book_parts=r"prologue",
    tale_openings=r"il\s+[ée]tait\s+une\s+fois",
    stop=(
        r"\s+(?:et\s+(?:je|j'|mon|ma|mes)|mais|parce\s+que|car|bien\s+que|où|depuis|il\s+y\s+a|"
        r"l'ann[ée]e\s+derni[èe]re|la\s+semaine\s+derni[èe]re|le\s+mois\s+dernier|hier|maintenant)\b|[,;:(]|\s-\s"
    ),
    role_stop=r"\s+(?:chez|pour|à|a|dans|et|mais|depuis|avec|en)\b|[,;:(]",
    roles=_ROLES,
    relatives=_REL,
    relative_triggers=_REL_T,
    diets=_DIET,
    languages=_LANG,
    language_triggers=_LANG_T,
    goal_verb_endings=("er", "ir", "re", "oir"),
    not_goals=words("savoir demander comprendre voir vérifier faire dire"),
    brief_words=("bre", "brè", "conc"),
    subjects=r"je|j'|mon|ma|mes|nous|notre",
    negators=frozenset(["ne", "pas", "jamais"]),
    negations=r"ne|n'|pas|jamais",
    aversions=r"horreur|d[ée]teste|renonc[ée]",
    common=words(
        "je j' moi mon ma mes le la les un une et de du des à au aux en avec pour est suis que pas ne"
    ),
    fillers=words("et mais alors bon salut oui"),
    trailing=("maintenant", "plus", "aussi"),
    joiners=frozenset(["et"]),
    now=r"maintenant|d[ée]sormais|aujourd'hui|[àa]\s+la\s+place",
    clause_joiners=words("et mais car"),
    question_tail=(
        r"(?:tu|vous)\s+(?:peux|pourrais|connais|sais|as|aurais|pouvez|pourriez|connaissez|savez|avez)|"
        r"(?:peux|pourrais|sais|connais)-tu|(?:pouvez|pourriez|connaissez|savez)-vous|"
        r"qu'est-ce|est-ce\s+que|comment|pourquoi|quel|quelle|quels|quelles|o[uù]\s"
    ),
    hypothetical_leads=r"et|alors",
    hypothetical=r"imaginons|imaginez|supposons|suppose|et\s+si",
    hypothetical_words=words("imaginons imaginez supposons suppose et"),
    reported=r"a\s+dit|dit\s+que|disent|selon|m'a\s+dit",
    reported_words=words("dit disent selon"),
    request_prefix=r"s'il\s+te\s+pla[iî]t|stp|peux-tu|pouvez-vous",
    request=(
        r"traduis|traduisez|traduire|résume|résumez|réécris|écris|écrivez|rédige|rédigez"
    ),
    request_words=words(
        "traduis traduisez traduire résume résumez réécris écris écrivez rédige rédigez"
    ),
    bans=r"pas\s+de",
    order_negations=r"jamais",
    speaker=r"je|j'",
    material=r"ceci|cela|ça|ce\s+texte",
    creative=r"histoire|conte|poème",
    request_standing=r"toujours",
    order_standing=(
        r"toujours|a\s+partir\s+de\s+maintenant|d[ée]sormais|tutoy\w*|vouvoy\w*"
    ),
    answer_words=r"r[ée]ponses?|r[ée]pond\w*|tutoy\w*|vouvoy\w*|recommand\w*|sugg[ée]r\w*",
    about_this=r"courriel|ça|cela|ce|cette",
    greetings=r"Cher|Chère|Bonjour",
    signoffs=r"Cordialement|Bien\s+à\s+vous|Amitiés",
    payload_words=r"texte|courriel|lettre|suivant",
    labels=words("remarque"),
    pronouns=words("ça cela ceci le la les"),
    second_person=r"tu|te|toi|ton|tes|vous|votre|vos",
    end_words=words("parce car mais si"),
    third_person={
        "mon": "son",
        "ma": "sa",
        "mes": "ses",
        "notre": "leur",
        "nos": "leurs",
    },
    self_subjects=r"moi,?\s+je|je|j'|nous",
    self_verbs=(
        r"on\s+(?:a|est|va|vient|vit|habite|utilise|migre|bosse|travaille|fait|part|passe|"
        r"d[ée]m[ée]nage|prend|joue|mange|cuisine)"
    ),
    possessives=r"mon|ma|mes",
    i_after_and=r"moi",
    frequency=r"tous\s+les\s+\w+|chaque\s+\w+|le\s+\w+",
    not_about_user=(
        r"tu|t'|te|toi|vous|votre|vos|ce|cet|cette|ça|cela|ceci|dit|erreur|fichier|merci|"
        r"pardon|aide|aujourd'hui|maintenant|demain|id[ée]e|j'en|j'y|je\s+l'|r[ée]union|"
        r"examen|en\s+train\s+de|courriel"
    ),
    consequences=r"donc|parce\s+que",
    named_relatives=NAMED,
    dates=DATES,
    first_person=(("est ", ("Je suis ",)), ("a ", ("J'ai ",))),
    phrases=(
        # identity
        P(
            "name",
            r"(?:je\s+m'appelle|mon\s+(?:pr[ée]nom|nom)\s+est)\s+(?P<obj>.+)",
            "S'appelle {obj}",
            "appelle prénom prenom nom",
            examples=(E("Je m'appelle Julien.", "S'appelle Julien"),),
        ),
        P(
            "address_as",
            r"appelle[sz]?-moi\s+(?P<obj>.+)",
            "Veut qu'on l'appelle {obj}",
            "appelle appellez moi",
            examples=(E("Appelle-moi Jeanne.", "Veut qu'on l'appelle Jeanne"),),
        ),
        P(
            "origin",
            r"je\s+(?:suis|viens)\s+(?:originaire\s+)?(?P<prep>de|d'|du|des)\s*(?P<obj>[A-Z].+)",
            "Vient {prep} {obj}",
            "suis viens",
            examples=(E("Je viens de Lyon.", "Vient de Lyon"),),
        ),
        P(
            "age",
            r"j'ai\s+(?P<obj>\d{1,3})\s+ans",
            "A {obj} ans",
            "ans",
            examples=(E("J'ai 35 ans et je suis professeur.", "A 35 ans"),),
        ),
        # location
        P(
            "home_left",
            r"je\s+n'habite\s+plus\s+" + _PREP + r"\s+(?P<obj>.+)",
            "N'habite plus {prep} {obj}",
            "habite",
            examples=(E("Je n'habite plus à Paris.", "N'habite plus à Paris"),),
        ),
        P(
            "home_left",
            r"je\s+ne\s+vis\s+plus\s+" + _PREP + r"\s+(?P<obj>.+)",
            "Ne vit plus {prep} {obj}",
            "vis",
            examples=(E("Je ne vis plus à Paris.", "Ne vit plus à Paris"),),
        ),
        P(
            "home",
            r"j'habite\s+(?:maintenant\s+|seule?\s+|avec\s+(?:mon|ma|mes)\s+\w+\s+)?"
            + _PREP
            + r"\s+(?P<obj>.+)",
            "Habite {prep} {obj}",
            "habite",
            examples=(E("J'habite à Lyon.", "Habite à Lyon"),),
        ),
        P(
            "home",
            r"je\s+vis\s+(?:maintenant\s+)?" + _PREP + r"\s+(?P<obj>.+)",
            "Vit {prep} {obj}",
            "vis",
            examples=(E("Je vis à Montréal depuis 2018.", "Vit à Montréal"),),
        ),
        P(
            "home",
            r"(?:j'ai\s+d[ée]m[ée]nag[ée]|je\s+viens\s+de\s+d[ée]m[ée]nager|je\s+me\s+suis\s+install[ée]e?)\s+"
            + _PREP
            + r"\s+(?P<obj>.+)",
            "A déménagé {prep} {obj}",
            "déménagé demenage déménager demenager installé installe installée",
            examples=(
                E(
                    "Je me suis installée à Lyon il y a peu, tu connais des bons marchés le week-end ?",
                    "A déménagé à Lyon",
                ),
            ),
        ),
        # work
        P(
            "employer_left",
            r"je\s+ne\s+travaille\s+plus\s+(?P<prep>chez|pour|à)\s+(?P<obj>.+)",
            "Ne travaille plus {prep} {obj}",
            "travaille",
            examples=(
                E(
                    "Je ne travaille plus chez Renault.",
                    "Ne travaille plus chez Renault",
                ),
            ),
        ),
        P(
            "employer_any",
            r"je\s+travaille\s+(?P<prep>chez|pour)\s+(?P<obj>.+)",
            "Travaille {prep} {obj}",
            "travaille",
            examples=(E("Je travaille chez Orange.", "Travaille chez Orange"),),
        ),
        P(
            "role",
            r"je\s+travaille\s+comme\s+(?P<obj>.+)",
            "Travaille comme {obj}",
            "travaille",
            examples=(
                E(
                    "Je travaille comme développeur chez Airbus.",
                    "Travaille comme développeur",
                ),
            ),
        ),
        P(
            "role",
            r"je\s+suis\s+(?:un\s+|une\s+)?(?P<obj>"
            + _ROLES
            + r"(?:\s+(?:de|en|du)\s+[\w-]+)?)\b",
            "Est {obj}",
            "suis",
            examples=(E("Je suis infirmière.", "Est infirmière"),),
        ),
        P(
            "employer_any",
            r"je\s+suis\s+(?:un\s+|une\s+)?"
            + _ROLES
            + r".{0,30}?\s+chez\s+(?P<obj>.+)",
            "Travaille chez {obj}",
            "suis",
            examples=(
                E("Je suis développeur chez Ubisoft.", "Travaille chez Ubisoft"),
            ),
        ),
        P(
            "employer_any",
            r"j'ai\s+commenc[ée]\s+(?:à\s+travailler\s+)?chez\s+(?P<obj>.+)",
            "Travaille chez {obj}",
            "commencé commence",
            examples=(E("J'ai commencé chez Airbus.", "Travaille chez Airbus"),),
        ),
        # family and pets
        P(
            "relative",
            r"(?P<verb>mon|ma|mes)\s+(?P<obj>"
            + _REL
            + r"\b(?:\s+[A-Z]\w+)?\s+(?:est|sont|travaille|travaillent|habite|habitent|vit|vivent|a|ont|s'appelle|s'appellent|[ée]tudie|va|vont|joue|fait|est\s+n[ée]e?)\b.+)",
            _POSS,
            _REL_T,
            examples=(E("Ma femme est architecte.", "Sa femme est architecte"),),
        ),
        P(
            "relative",
            r"j'ai\s+(?P<obj>(?:un|une|deux|trois|quatre|\d+)\s+(?:\w+\s+)?"
            + _REL
            + r"\b.*)",
            "A {obj}",
            _REL_T,
            examples=(E("J'ai une fille de cinq ans.", "A une fille de cinq ans"),),
        ),
        P(
            "relationship",
            r"je\s+suis\s+(?P<obj>mari[ée]e?|c[ée]libataire|divorc[ée]e?|veu(?:f|ve)|fianc[ée]e?|pacs[ée]e?)",
            "Est {obj}",
            "marié mariée marie celibataire célibataire divorcé divorcée divorce veuf veuve fiancé fiancée pacsé pacsée",
            examples=(E("Je suis mariée.", "Est mariée"),),
        ),
        # constraints
        P(
            "allergy",
            r"je\s+suis\s+allergique\s+(?P<prep>à|au|aux|a)\s+(?P<obj>.+)",
            "Est allergique {prep} {obj}",
            "allergique",
            examples=(E("Je suis allergique au pollen.", "Est allergique au pollen"),),
        ),
        P(
            "allergy",
            r"j'ai\s+une\s+allergie\s+(?P<prep>à|au|aux|a)\s+(?P<obj>.+)",
            "A une allergie {prep} {obj}",
            "allergie",
            examples=(
                E("J'ai une allergie aux arachides.", "A une allergie aux arachides"),
            ),
        ),
        P(
            "diet_left",
            r"je\s+ne\s+suis\s+plus\s+(?P<obj>" + _DIET + r")",
            "N'est plus {obj}",
            _DIET_T,
            examples=(E("Je ne suis plus végétarienne.", "N'est plus végétarienne"),),
        ),
        P(
            "diet",
            r"je\s+suis\s+(?P<obj>"
            + _DIET
            + r"|c[œo]eliaque|diab[ée]tique|intol[ée]rant(?:e)?\s+au\s+(?:lactose|gluten)|daltonien(?:ne)?|aveugle|sourd(?:e)?)",
            "Est {obj}",
            _DIET_T
            + " cœliaque coeliaque diabétique diabetique intolérant intolérante intolerant daltonien daltonienne aveugle sourd sourde",
            examples=(E("Je suis végétarien.", "Est végétarien"),),
        ),
        P(
            "food_refused",
            r"je\s+ne\s+(?P<verb>mange|bois|peux\s+pas\s+manger)\s+(?:pas|jamais|plus)?\s*(?:de\s+|d'|du\s+|de\s+la\s+)?(?P<obj>.+)",
            {
                "mange": "Ne mange pas de {obj}",
                "bois": "Ne boit pas de {obj}",
                "": "Ne peut pas manger de {obj}",
            },
            "mange bois manger",
            examples=(E("Je ne mange pas de porc.", "Ne mange pas de porc"),),
        ),
        P(
            "budget",
            r"(?:mon\s+budget\s+est|j'ai\s+un\s+budget)\s+(?:de\s+)?(?P<obj>.+)",
            "Son budget est de {obj}",
            "budget",
            examples=(
                E("Mon budget est de 300 euros.", "Son budget est de 300 euros"),
            ),
        ),
        P(
            "platform",
            r"(?:je\s+suis|nous\s+sommes|on\s+est)\s+(?:bloqu[ée]e?s?|coinc[ée]e?s?|limit[ée]e?s?)\s+(?:sur|à|avec|en)\s+(?P<obj>.+)",
            "Est bloqué sur {obj}",
            "bloqué bloque bloquée bloqués coincé coince coincée limité limite limitée limités",
            examples=(E("Je suis bloqué sur Windows.", "Est bloqué sur Windows"),),
        ),
        P(
            "platform_refused",
            r"je\s+ne\s+peux\s+pas\s+(?P<verb>mettre\s+à\s+jour|utiliser|installer)\s+(?P<obj>.+)",
            {
                "utiliser": "Ne peut pas utiliser {obj}",
                "installer": "Ne peut pas installer {obj}",
                "": "Ne peut pas mettre à jour {obj}",
            },
            "utiliser installer mettre",
            examples=(
                E("Je ne peux pas installer Docker.", "Ne peut pas installer Docker"),
            ),
        ),
        # standing instructions
        P(
            "reply_language",
            r"(?:s'il\s+te\s+pla[iî]t,?\s+|stp,?\s+|merci\s+de\s+)?(?:toujours\s+)?(?:r[ée]ponds(?:-moi)?|r[ée]pondez(?:-moi)?|r[ée]pondre|parle(?:-moi)?|parlez(?:-moi)?|[ée]cris(?:-moi)?|[ée]crivez(?:-moi)?)\s+(?:toujours\s+)?en\s+(?P<obj>"
            + _LANG
            + r")",
            "Veut des réponses en {obj}",
            _LANG_T,
            examples=(
                E("Écris-moi toujours en anglais.", "Veut des réponses en anglais"),
            ),
        ),
        P(
            "reply_language_refused",
            r"ne\s+(?:me\s+)?(?:r[ée]ponds|r[ée]pondez|parle|parlez|[ée]cris)\s+plus\s+en\s+(?P<obj>"
            + _LANG
            + r")",
            "Ne veut plus de réponses en {obj}",
            _LANG_T,
            examples=(
                E(
                    "Ne me réponds plus en anglais.",
                    "Ne veut plus de réponses en anglais",
                ),
            ),
        ),
        P(
            "ban",
            r"^(?:s'il\s+te\s+pla[iî]t,?\s+|stp,?\s+)?n'(?:utilise|utilisez|ajoute|ajoutez|mets|mettez)\s+(?:jamais|pas)\s+(?:de\s+|d')?(?P<obj>.+)",
            "Ne veut pas de {obj}",
            "utilise utilisez ajoute ajoutez mets mettez",
            examples=(E("N'utilise pas Mac", "Ne veut pas de Mac"),),
        ),
        P(
            "ban",
            r"ne\s+(?:mets|mettez)\s+(?:jamais|pas)\s+(?:de\s+|d')?(?P<obj>.+)",
            "Ne veut pas de {obj}",
            "mets mettez",
            examples=(E("Ne mets jamais d'emojis.", "Ne veut pas de emojis"),),
        ),
        P(
            "ban",
            r"^(?:s'il\s+te\s+pla[iî]t,?\s+)?(?:pas|sans)\s+(?:de\s+|d')(?P<obj>emojis?|[ée]mojis?|[ée]motic[ôo]nes|jargon|blabla)",
            "Ne veut pas de {obj}",
            "pas sans",
            examples=(E("Pas d'emojis.", "Ne veut pas de emojis"),),
        ),
        P(
            "style",
            r"(?:toujours\s+)?sois\s+(?P<obj>bref|br[èe]ve|concis(?:e)?|direct(?:e)?|formel(?:le)?|clair(?:e)?)",
            "Veut que l'assistant soit {obj}",
            "sois",
            examples=(E("Sois bref.", "Veut que l'assistant soit bref"),),
        ),
        P(
            "goal",
            r"je\s+suis\s+en\s+train\s+d'(?P<obj>apprendre\s+.+)",
            "Est en train d'{obj}",
            "train",
            examples=(
                E(
                    "Je suis en train d'apprendre l'espagnol.",
                    "Est en train d'apprendre l'espagnol",
                ),
            ),
        ),
        P(
            "parent",
            r"je\s+suis\s+(?P<obj>(?:p[èe]re|m[èe]re|maman|papa|grand-p[èe]re|grand-m[èe]re)\s+(?:de|d')\s*.+)",
            "Est {obj}",
            "père pere mère mere maman papa grand",
            examples=(
                E("Je suis maman de deux enfants.", "Est maman de deux enfants"),
            ),
        ),
        P(
            "field",
            r"je\s+travaille\s+(?P<obj>(?:dans|en)\s+(?:la|le|l'|les)?\s*[a-zéèàç][\wéèàç' -]*|à\s+domicile|de\s+chez\s+moi|à\s+distance|en\s+télétravail|à\s+mi-temps|de\s+nuit)",
            "Travaille {obj}",
            "travaille",
            examples=(
                E(
                    "Je travaille dans la finance à Paris.",
                    "Travaille dans la finance à Paris",
                ),
            ),
        ),
        P(
            "role_as",
            r"je\s+suis\s+(?P<obj>à\s+la\s+retraite|au\s+chômage|en\s+recherche\s+d'emploi|indépendante?|en\s+freelance)",
            "Est {obj}",
            "suis",
            examples=(E("Je suis à la retraite depuis 2020.", "Est à la retraite"),),
        ),
        # stack and projects
        P(
            "stack_refused",
            r"(?:je\s+n'utilise|nous\s+n'utilisons|on\s+n'utilise)\s+(?:pas|plus|jamais)\s+(?:de\s+|d')?(?P<obj>.+)",
            "N'utilise pas {obj}",
            "utilise utilisons",
            examples=(E("Je n'utilise pas de Mac.", "N'utilise pas Mac"),),
        ),
        P(
            "stack_choice",
            r"(?:nous\s+utilisons|on\s+utilise)\s+(?P<obj>.+)",
            "Utilisent {obj}",
            "utilisons utilise",
            examples=(
                E("Nous utilisons Symfony et MySQL.", "Utilisent Symfony et MySQL"),
            ),
        ),
        P(
            "stack_choice",
            r"j'utilise\s+(?P<obj>.+)",
            "Utilise {obj}",
            "utilise",
            examples=(E("J'utilise Neovim.", "Utilise Neovim"),),
        ),
        P(
            "stack",
            r"notre\s+(?P<what>backend|frontend|stack|serveur|projet|produit|base\s+de\s+donn[ée]es|application|appli|infrastructure)\s+(?P<verb>est|utilise|tourne\s+sur|est\s+[ée]crit\s+en)\s+(?P<obj>.+)",
            "Leur {what} {verb} {obj}",
            "backend frontend stack serveur projet produit base application appli infrastructure",
            examples=(E("Notre backend est en Rust.", "Leur backend est en Rust"),),
        ),
        P(
            "project",
            r"je\s+(?P<verb>d[ée]veloppe|construis|cr[ée]e|suis\s+en\s+train\s+de\s+d[ée]velopper|travaille\s+sur)\s+(?P<obj>(?:un|une|mon|ma)\s+.+)",
            {
                "développe": "Développe {obj}",
                "developpe": "Développe {obj}",
                "construis": "Construit {obj}",
                "crée": "Crée {obj}",
                "cree": "Crée {obj}",
                "travaille sur": "Travaille sur {obj}",
                "": "Développe {obj}",
            },
            "développe developpe construis crée cree train travaille",
            examples=(
                E(
                    "Je développe une application de covoiturage.",
                    "Développe une application de covoiturage",
                ),
            ),
        ),
        # goals and plans
        P(
            "goal_verb",
            r"je\s+veux\s+(?P<obj>.+)",
            "Veut {obj}",
            "veux",
            examples=(E("Je veux apprendre le piano.", "Veut apprendre le piano"),),
        ),
        P(
            "goal_verb",
            r"(?:j'aimerais|je\s+voudrais|je\s+souhaite)\s+(?P<obj>.+)",
            "Aimerait {obj}",
            "aimerais voudrais souhaite",
            examples=(
                E("Je voudrais apprendre à coder.", "Aimerait apprendre à coder"),
            ),
        ),
        P(
            "goal_verb",
            r"je\s+(?P<verb>compte|pr[ée]vois\s+de|envisage\s+de|esp[èe]re|vais)\s+(?P<obj>.+)",
            {
                "compte": "Compte {obj}",
                "vais": "Va {obj}",
                "espère": "Espère {obj}",
                "espere": "Espère {obj}",
                "": "Prévoit de {obj}",
            },
            "compte prévois prevois envisage espère espere vais",
            examples=(
                E("Je compte apprendre le japonais.", "Compte apprendre le japonais"),
            ),
        ),
        P(
            "goal",
            r"mon\s+(?P<what>objectif|r[êe]ve|but|projet)\s+est\s+(?:de\s+|d')?(?P<obj>.+)",
            "Son {what} est de {obj}",
            "objectif rêve reve but projet",
            examples=(
                E(
                    "Mon objectif est de courir un marathon.",
                    "Son objectif est de courir un marathon",
                ),
            ),
        ),
        P(
            "goal",
            r"j'apprends\s+(?P<obj>.+)",
            "Apprend {obj}",
            "apprends",
            examples=(E("J'apprends le piano.", "Apprend le piano"),),
        ),
        # notable events
        P(
            "event",
            r"je\s+viens\s+de\s+(?P<obj>(?!d[ée]m[ée]nager).+)",
            "Vient de {obj}",
            "viens",
            examples=(E("Je viens de rentrer du Japon.", "Vient de rentrer du Japon"),),
        ),
        P(
            "event",
            r"je\s+me\s+suis\s+(?P<obj>mari[ée]e?.*)",
            "S'est {obj}",
            "marié mariée marie",
            examples=(E("Je me suis mariée en mai.", "S'est mariée en mai"),),
        ),
        P(
            "event",
            r"je\s+suis\s+(?P<obj>rentr[ée]e?\s+(?:de|du|des|d').+)",
            "Est {obj}",
            "rentré rentrée rentre",
            examples=(E("Je suis rentré du Japon.", "Est rentré du Japon"),),
        ),
        P(
            "event",
            r"j'ai\s+(?P<obj>(?:commenc[ée]\s+chez|eu\s+mon\s+dipl[ôo]me|eu\s+un\s+b[ée]b[ée]|pris\s+ma\s+retraite).*)",
            "A {obj}",
            "commencé commence diplôme diplome bébé bebe retraite",
            examples=(E("J'ai eu un bébé.", "A eu un bébé"),),
        ),
        # preferences
        P(
            "dislike",
            r"je\s+n'aime\s+pas\s+(?P<obj>.+)",
            "N'aime pas {obj}",
            "aime",
            examples=(E("Je n'aime pas le fromage.", "N'aime pas le fromage"),),
        ),
        P(
            "dislike",
            r"je\s+d[ée]teste\s+(?P<obj>.+)",
            "Déteste {obj}",
            "déteste deteste",
            examples=(E("Je déteste le froid.", "Déteste le froid"),),
        ),
        P(
            "like",
            r"j'(?P<verb>aime|adore)\s+(?P<obj>.+)",
            {"adore": "Adore {obj}", "": "Aime {obj}"},
            "aime adore",
            examples=(E("J'adore la randonnée.", "Adore la randonnée"),),
        ),
        P(
            "prefer",
            r"je\s+pr[ée]f[èe]re\s+(?P<obj>.+)",
            "Préfère {obj}",
            "préfère prefere préfere",
            examples=(E("Je préfère le thé au café.", "Préfère le thé au café"),),
        ),
    ),
)
