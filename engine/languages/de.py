"""German: the words memtap reads in German (data only; the rule shapes are
`engine/extraction/shapes.py`). Facts are stored in German, third person."""

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
    r"(?:(?:software|daten|web|backend|frontend|ml|devops)?(?:ingenieur|entwickler|programmierer|"
    r"wissenschaftler|analyst|architekt|designer)(?:in)?|lehrer(?:in)?|arzt|ärztin|"
    r"krankenpfleger(?:in)?|krankenschwester|pfleger(?:in)?|anwalt|anwältin|student(?:in)?|"
    r"journalist(?:in)?|buchhalter(?:in)?|forscher(?:in)?|manager(?:in)?|berater(?:in)?|koch|köchin|"
    r"schriftsteller(?:in)?|übersetzer(?:in)?|pilot(?:in)?|fotograf(?:in)?|psychologe|psychologin|"
    r"tierarzt|tierärztin|zahnarzt|zahnärztin|rentner(?:in)?|freiberufler(?:in)?|selbstständig|"
    r"selbständig|informatiker(?:in)?|gründer(?:in)?|professor(?:in)?|erzieher(?:in)?|"
    r"elektriker(?:in)?|mechaniker(?:in)?)"
)
_ROLE_T = (
    "ingenieur ingenieurin softwareingenieur entwickler entwicklerin softwareentwickler "
    "softwareentwicklerin webentwickler backendentwickler frontendentwickler programmierer "
    "programmiererin wissenschaftler datenwissenschaftler analyst architekt designer lehrer "
    "lehrerin arzt ärztin krankenpfleger krankenschwester pfleger pflegerin anwalt anwältin "
    "student studentin journalist journalistin buchhalter forscher forscherin manager managerin "
    "berater beraterin koch köchin schriftsteller übersetzer übersetzerin pilot pilotin fotograf "
    "psychologe psychologin tierarzt tierärztin zahnarzt zahnärztin rentner rentnerin "
    "freiberufler selbstständig selbständig informatiker informatikerin gründer gründerin "
    "professor professorin erzieher erzieherin elektriker mechaniker devopsingenieur dateningenieur"
)
_REL = (
    r"(?:frau|mann|ehefrau|ehemann|partner(?:in)?|freundin|freund|sohn|tochter|söhne|töchter|kinder|"
    r"kind|mutter|mama|vater|papa|eltern|bruder|brüder|schwester|schwestern|geschwister|oma|opa|"
    r"großmutter|großvater|tante|onkel|cousin(?:e)?|hund|hündin|hunde|katze|kater|katzen|papagei|"
    r"kaninchen|hamster)"
)
_REL_T = (
    "frau mann ehefrau ehemann partner partnerin freundin freund sohn tochter söhne töchter kinder "
    "kind mutter mama vater papa eltern bruder brüder schwester schwestern geschwister oma opa "
    "großmutter großvater tante onkel cousin cousine hund hündin hunde katze kater katzen papagei "
    "kaninchen hamster"
)
_DIET = r"(?:vegetarier(?:in)?|veganer(?:in)?|vegetarisch|vegan|pescetarier(?:in)?|flexitarier(?:in)?)"
_DIET_T = "vegetarier vegetarierin veganer veganerin vegetarisch vegan pescetarier pescetarierin flexitarier flexitarierin"
_LANG = r"(?:deutsch|englisch|spanisch|französisch|portugiesisch|italienisch)"
_LANG_T = "deutsch englisch spanisch französisch portugiesisch italienisch"
_POSS = {
    "mein": "Sein {obj}",
    "meine": "Seine {obj}",
    "meinen": "Seinen {obj}",
    "": "Sein {obj}",
}

DATES = DateWords(
    days={
        "heute": 0,
        "heute morgen": 0,
        "heute abend": 0,
        "gestern": -1,
        "gestern abend": -1,
        "vorgestern": -2,
        "morgen": 1,
        "übermorgen": 2,
    },
    periods=periods(
        {
            -1: {
                "week": ("letzte woche", "vergangene woche"),
                "weekend": ("letztes wochenende", "vergangenes wochenende"),
                "month": ("letzten monat", "vergangenen monat"),
                "year": ("letztes jahr", "vergangenes jahr"),
            },
            0: {
                "week": ("diese woche",),
                "weekend": ("dieses wochenende",),
                "month": ("diesen monat",),
                "year": ("dieses jahr",),
            },
            1: {
                "week": ("nächste woche", "kommende woche"),
                "weekend": ("nächstes wochenende", "kommendes wochenende"),
                "month": ("nächsten monat", "kommenden monat"),
                "year": ("nächstes jahr", "kommendes jahr"),
            },
        }
    ),
    numbers={
        "einem": 1,
        "einer": 1,
        "zwei": 2,
        "drei": 3,
        "vier": 4,
        "fünf": 5,
        "sechs": 6,
        "sieben": 7,
        "acht": 8,
        "neun": 9,
        "zehn": 10,
    },
    units={
        "tag": "day",
        "tagen": "day",
        "woche": "week",
        "wochen": "week",
        "monat": "month",
        "monaten": "month",
        "jahr": "year",
        "jahren": "year",
    },
    ago=(r"vor\s+{n}\s+{unit}",),
    ahead=(r"in\s+{n}\s+{unit}",),
    weekdays={
        "montag": 0,
        "dienstag": 1,
        "mittwoch": 2,
        "donnerstag": 3,
        "freitag": 4,
        "samstag": 5,
        "sonnabend": 5,
        "sonntag": 6,
    },
    weekday_frames=(
        (r"(?:letzten|vergangenen)\s+{wd}", -1),
        (r"(?:nächsten|kommenden)\s+{wd}", 1),
        (r"am\s+{wd}", 0),
    ),
    future=r"\b(?:werde|wirst|wird|werden|werdet)\b",
    past=r"\b(?:habe|hast|hat|haben|habt|bin|bist|ist|sind|seid|war|warst|waren|hatte|hatten)\b",
    bare_forward=True,
    not_a_date={
        "morgen": r"(?<!\bam\s)(?<!\bguten\s)(?<!\bjeden\s)(?<!\beinen\s)(?<!\bden\s)"
    },
)

NAMED = NamedRelatives(
    possessive=r"(?:mein|meine|unser|unsere)",
    called=r"hei[ßs]t|namens",
    words={
        "frau": "wife",
        "mann": "husband",
        "partner": "partner",
        "partnerin": "partner",
        "freund": "boyfriend",
        "freundin": "girlfriend",
        "sohn": "son",
        "tochter": "daughter",
        "mutter": "mother",
        "vater": "father",
        "bruder": "brother",
        "schwester": "sister",
        "oma": "grandmother",
        "opa": "grandfather",
        "hund": "dog",
        "hündin": "dog",
        "katze": "cat",
        "kater": "cat",
    },
    examples=(E("Unser Kater Mogli ist zwölf.", "Their cat (Kater) is called Mogli"),),
)


# The words that name a fact's family (the net: engine/extraction/self_statement.py).
FAMILY_WORDS = {
    "habit": (
        r"immer|oft|normalerweise|meistens|jede[nrs]?|t[äa]glich|am\s+wochenende"
    ),
    "constraint": (r"vegetarisch|laktose|krankheit|intoleranz|\w+intoleranz"),
    "family": (
        r"frau|mann|freundin|kinder?|sohn|tochter|hund|katze|mutter|vater|bruder|"
        r"schwester|verheiratet"
    ),
    "work": (
        r"arbeite|arbeit|firma|entwickler\w*|lehrer\w*|arzt|[äa]rztin|rente|ruhestand"
    ),
    "location": (r"wohne|lebe|umgezogen|gezogen"),
    "identity": (r"hei[ßs]e|jahre|geboren"),
    "instruction": (r"antworten"),
    "goal": (r"m[öo]chte|ziel|lerne|spare"),
    "stack": (r"nutzen|verwenden"),
    "decision": (r"entschieden"),
    "preference": (r"liebe|hasse|bevorzuge|lieblings\w*"),
    "event": (r"geheiratet|abgeschlossen"),
}


PACK = LanguagePack(
    code="de",
    family_words=FAMILY_WORDS,
    passing=words("ab im am beim zum zur"),
    empty_words=words("sehr wirklich echt total"),
    clause_ends=r"weil|aber|denn|wenn",
    name_ends=r"und|aber|aus",
    scope_words=r"für|bei|beim|im",
    universal_scopes=r"alles|alle\s+\w+|jede[nsmr]?\s+\w+",
    i_am=r"ich\s+bin|bin",
    mail_headers=r"Von|An|Betreff|Gesendet",
    reply_lines=r"Am .{5,120} schrieb",
    comma_stops=r"ich|danke",
    busy=r"ich\s+bin\s+gerade",
    deictic_objects=r"dieses|diese|diesen",
    chapters=r"kapitel|szene",
    chapter_numbers=r"eins",
    book_parts=r"prolog|epilog",
    tale_openings=r"es\s+war\s+einmal",
    stop=(
        r"\s+(?:und\s+(?:ich|mein|meine|\w+e)|aber|weil|obwohl|wo|seit|vor\s+\w+\s+(?:Jahren|Monaten|Wochen)|"
        r"letztes\s+Jahr|letzte\s+Woche|letzten\s+Monat|gestern|jetzt|zurzeit|gerade)\b|[,;:(]|\s-\s"
    ),
    role_stop=r"\s+(?:bei|für|in|und|aber|seit|mit|im)\b|[,;:(]",
    roles=_ROLES,
    relatives=_REL,
    relative_triggers=_REL_T,
    diets=_DIET,
    languages=_LANG,
    language_triggers=_LANG_T,
    goal_verb_endings=("en", "ern", "eln"),
    goal_verb_last=True,
    not_goals=words("wissen fragen verstehen sehen prüfen"),
    brief_words=("kurz", "knapp", "ausf"),
    subjects=r"ich|mein|meine|wir|unser|unsere",
    negators=frozenset(["nicht", "nie", "kein", "keine", "keinen", "keiner"]),
    negations=r"nicht|kein\w*",
    aversions=r"hasse|gegen",
    common=words(
        "ich mein meine der die das den dem des ein eine und zu in im mit für ist bin habe du mich dich nicht auf sich wir uns kann"
    ),
    fillers=words("und aber hallo ja"),
    trailing=("jetzt", "mehr", "auch"),
    joiners=frozenset(["und"]),
    inverted_subjects=r"ich|wir",
    now=r"jetzt|inzwischen|mittlerweile|heute|nun|seitdem",
    clause_joiners=words("und aber weil denn sondern"),
    question_tail=(
        r"(?:kannst|k[oö]nntest|hast|wei[sß]t|kennst)\s+du|(?:k[oö]nnen|haben|wissen)\s+Sie|"
        r"was|wie|wo|warum|welche[rsnm]?"
    ),
    hypothetical_leads=r"und",
    hypothetical=(
        r"wenn|falls|angenommen|stell\s+dir\s+vor|nehmen\s+wir\s+an|gesetzt\s+den\s+fall"
    ),
    hypothetical_words=words("wenn falls angenommen stell nehmen gesetzt"),
    reported=r"sagte|sagt|meint|laut|hat\s+gesagt|behauptet",
    reported_words=words("sagte sagt meint laut gesagt behauptet"),
    request_prefix=r"bitte|kannst\s+du|könntest\s+du",
    request=(
        r"übersetze|übersetz|übersetzen|fasse|schreib|schreibe|formuliere|korrigiere|verfasse"
    ),
    request_words=words(
        "übersetze übersetz übersetzen fasse schreib schreibe formuliere korrigiere verfasse"
    ),
    please=r"bitte",
    bans=r"keine?",
    order_negations=r"nicht",
    speaker=r"ich",
    material=r"das|dies|diesen|folgenden|folgende",
    creative=r"Geschichte|Gedicht|Märchen",
    request_standing=r"immer",
    order_standing=(
        r"immer|ab\s+jetzt|ab\s+sofort|k[üu]nftig|in\s+zukunft|duz\w*|siez\w*"
    ),
    answer_words=r"antwort\w*|duz\w*|siez\w*|anglizismen|empfiehl\w*|empfehl\w*",
    about_this=r"dies|diese|diesen|das\s+hier",
    greetings=r"Sehr\s+geehrte[rs]?|Liebe[rs]?|Hallo",
    signoffs=(
        r"Mit\s+freundlichen\s+Grüßen|Viele\s+Grüße|Liebe\s+Grüße|Beste\s+Grüße|LG|MfG"
    ),
    payload_words=r"Text|Nachricht|Brief|folgende[ns]?",
    labels=words("hinweis"),
    pronouns=words("es das dies ihn sie"),
    second_person=r"dein|deine|dich|dir|euch",
    end_words=words("weil aber denn wenn"),
    third_person={
        "mein": "sein",
        "meine": "seine",
        "meinen": "seinen",
        "meinem": "seinem",
        "meiner": "seiner",
        "unser": "ihr",
        "unsere": "ihre",
    },
    self_subjects=r"ich|wir",
    # "ich" left out ("Wohne seit 2020 in Graz") or after its verb ("Jeden Samstag geh ich …")
    self_verbs=(
        r"(?:bin|hab|habe|wohne|arbeite|komme|mag|liebe|hasse|spiele|fahre|gehe|geh|mache|mach|"
        r"trinke|esse|lerne|studiere|nutze|benutze)|(?:[\w-]+\s+){1,3}?\w+\s+ich"
    ),
    possessives=r"mein|meine",
    i_after_and=r"ich",
    frequency=(r"jede[nrs]?\s+\w+|t[äa]glich|w[öo]chentlich|am\s+\w+ende|\w+tags"),
    not_about_user=(
        r"dich|dir|dein|deine|dies|diese|diesen|dieses|davon|damit|daf[üu]r|darauf|sagt|"
        r"fehler|datei|danke|hilfe|heute|jetzt|fehlermeldung|versteh|verstehe|termin|"
        r"besprechung|pr[üu]fung|gerade|gleich|brauche|suche|glaube"
    ),
    consequences=r"aber|weil|deshalb",
    named_relatives=NAMED,
    dates=DATES,
    first_person=(("ist ", ("Ich bin ",)), ("hat ", ("Ich habe ",))),
    phrases=(
        # identity
        P(
            "name",
            r"(?:ich\s+hei(?:ß|ss)e|mein\s+name\s+ist)\s+(?P<obj>.+)",
            "Heißt {obj}",
            "heiße heisse name",
            examples=(E("Ich heiße Jonas.", "Heißt Jonas"),),
        ),
        P(
            "address_as",
            r"nenn(?:e|t)?\s+mich\s+(?:bitte\s+)?(?P<obj>.+)",
            "Möchte {obj} genannt werden",
            "nenne nennt nenn",
            examples=(E("Nenn mich bitte Flo.", "Möchte Flo genannt werden"),),
        ),
        P(
            "origin",
            r"ich\s+komme\s+(?:ursprünglich\s+)?aus\s+(?P<obj>.+)",
            "Kommt aus {obj}",
            "komme",
            examples=(E("Ich komme aus Polen.", "Kommt aus Polen"),),
        ),
        P(
            "age",
            r"ich\s+bin\s+(?P<obj>\d{1,3})\s+(?:Jahre\s+alt)",
            "Ist {obj} Jahre alt",
            "jahre alt",
            examples=(E("Ich bin 52 Jahre alt.", "Ist 52 Jahre alt"),),
        ),
        # location
        P(
            "home_left",
            r"ich\s+(?P<verb>wohne|lebe)\s+nicht\s+mehr\s+in\s+(?P<obj>.+)",
            {"lebe": "Lebt nicht mehr in {obj}", "": "Wohnt nicht mehr in {obj}"},
            "wohne lebe",
            examples=(
                E("Ich wohne nicht mehr in Berlin.", "Wohnt nicht mehr in Berlin"),
            ),
        ),
        P(
            "home",
            r"(?:ich|und)\s+(?P<verb>wohne|lebe)\s+(?:jetzt\s+|allein\s+|alleine\s+|seit\s+\w+\s+\w+\s+)?in\s+(?P<obj>.+)",
            {"lebe": "Lebt in {obj}", "": "Wohnt in {obj}"},
            "wohne lebe",
            examples=(E("Ich wohne in Berlin.", "Wohnt in Berlin"),),
        ),
        P(
            "home",
            r"ich\s+bin\s+(?:gerade\s+|kürzlich\s+|letztes\s+Jahr\s+)?nach\s+(?P<obj>.+?)\s+(?:umgezogen|gezogen)",
            "Ist nach {obj} gezogen",
            "umgezogen gezogen",
            examples=(
                E("Ich bin nach Leipzig umgezogen.", "Ist nach Leipzig gezogen"),
            ),
        ),
        # work
        P(
            "employer_left",
            r"ich\s+arbeite\s+nicht\s+mehr\s+(?P<prep>bei|für)\s+(?P<obj>.+)",
            "Arbeitet nicht mehr {prep} {obj}",
            "arbeite",
            examples=(
                E(
                    "Ich arbeite nicht mehr bei Siemens.",
                    "Arbeitet nicht mehr bei Siemens",
                ),
            ),
        ),
        P(
            "employer_any",
            r"(?:ich|und)\s+arbeite\s+(?:jetzt\s+|seit\s+\w+\s+\w+\s+)?(?:(?:im|in\s+der|in\s+einem|als\s+\w+)\s+\w+\s+)?(?P<prep>bei|für)\s+(?P<obj>.+)",
            "Arbeitet {prep} {obj}",
            "arbeite",
            examples=(E("Ich arbeite bei SAP.", "Arbeitet bei SAP"),),
        ),
        P(
            "role",
            r"(?:ich|und)\s+arbeite\s+als\s+(?P<obj>.+)",
            "Arbeitet als {obj}",
            "arbeite",
            examples=(
                E("Ich arbeite als Krankenschwester.", "Arbeitet als Krankenschwester"),
            ),
        ),
        P(
            "role",
            r"ich\s+bin\s+(?:ein\s+|eine\s+)?(?P<obj>(?:[\w-]+\s+)?" + _ROLES + r")\b",
            "Ist {obj}",
            _ROLE_T,
            examples=(E("Ich bin Lehrerin.", "Ist Lehrerin"),),
        ),
        P(
            "employer_any",
            r"ich\s+bin\s+(?:ein\s+|eine\s+)?(?:[\w-]+\s+)?"
            + _ROLES
            + r"\s+(?P<prep>bei)\s+(?P<obj>.+)",
            "Arbeitet bei {obj}",
            _ROLE_T,
            examples=(E("Ich bin Softwareentwickler bei SAP.", "Arbeitet bei SAP"),),
        ),
        P(
            "employer_any",
            r"ich\s+habe\s+(?:gerade\s+|letzten\s+Monat\s+)?bei\s+(?P<obj>.+?)\s+angefangen",
            "Arbeitet bei {obj}",
            "angefangen",
            examples=(E("Ich habe bei Bosch angefangen.", "Arbeitet bei Bosch"),),
        ),
        # family and pets
        P(
            "relative",
            r"(?P<verb>mein|meine)\s+(?P<obj>"
            + _REL
            + r"\b(?:\s+[A-Z]\w+)?\s+(?:ist|sind|arbeitet|arbeiten|wohnt|wohnen|lebt|leben|hat|haben|heißt|heisst|heißen|studiert|geht|gehen|spielt|macht|wird|kommt|arbeitet)\b.+)",
            _POSS,
            _REL_T,
            examples=(E("Mein Sohn heißt Lukas.", "Sein Sohn heißt Lukas"),),
        ),
        P(
            "relative",
            r"(?:ich\s+habe|wir\s+haben)\s+(?P<obj>(?:einen|eine|ein|zwei|drei|vier|\d+)\s+(?:\w+\s+)?"
            + _REL
            + r"\b.*)",
            "Hat {obj}",
            _REL_T,
            examples=(E("Ich habe zwei Katzen.", "Hat zwei Katzen"),),
        ),
        P(
            "relationship",
            r"ich\s+bin\s+(?P<obj>verheiratet|ledig|geschieden|verwitwet|verlobt|single)",
            "Ist {obj}",
            "verheiratet ledig geschieden verwitwet verlobt single",
            examples=(E("Ich bin verheiratet.", "Ist verheiratet"),),
        ),
        # constraints
        P(
            "allergy",
            r"ich\s+bin\s+(?:allergisch\s+gegen\s+(?P<obj>.+))",
            "Ist allergisch gegen {obj}",
            "allergisch",
            examples=(
                E("Ich bin allergisch gegen Nüsse.", "Ist allergisch gegen Nüsse"),
            ),
        ),
        P(
            "allergy",
            r"ich\s+bin\s+gegen\s+(?P<obj>.+?)\s+allergisch",
            "Ist allergisch gegen {obj}",
            "allergisch",
            examples=(
                E("Ich bin gegen Nüsse allergisch.", "Ist allergisch gegen Nüsse"),
            ),
        ),
        P(
            "allergy",
            r"ich\s+habe\s+eine\s+(?P<obj>[\wäöüß-]*allergie(?:\s+gegen\s+.+)?)",
            "Hat eine {obj}",
            "allergie nussallergie laktoseintoleranz",
            keep_case=True,
            examples=(
                E(
                    "Ich habe eine Nussallergie, also bitte keine Rezepte mit Nüssen",
                    "Hat eine Nussallergie",
                ),
            ),
        ),
        P(
            "diet_left",
            r"ich\s+bin\s+(?:nicht\s+mehr|kein(?:e)?\s+)\s*(?P<obj>"
            + _DIET
            + r")(?:\s+mehr)?",
            "Ist nicht mehr {obj}",
            _DIET_T,
            examples=(
                E("Ich bin nicht mehr Vegetarier.", "Ist nicht mehr Vegetarier"),
            ),
        ),
        P(
            "diet",
            r"ich\s+bin\s+(?P<obj>"
            + _DIET
            + r"|zöliakiekrank|diabetiker(?:in)?|laktoseintolerant|glutenintolerant|farbenblind|blind|gehörlos)",
            "Ist {obj}",
            _DIET_T
            + " zöliakiekrank diabetiker diabetikerin laktoseintolerant glutenintolerant farbenblind blind gehörlos",
            examples=(E("Ich bin Veganerin.", "Ist Veganerin"),),
        ),
        P(
            "food_refused",
            r"ich\s+(?P<verb>esse|trinke)\s+(?P<neg>kein(?:e|en)?|nie|nicht)\s+(?P<obj>.+)",
            {"trinke": "Trinkt {neg} {obj}", "": "Isst {neg} {obj}"},
            "esse trinke",
            examples=(E("Ich esse kein Fleisch.", "Isst kein Fleisch"),),
        ),
        P(
            "budget",
            r"(?:mein\s+budget\s+(?:ist|liegt\s+bei|beträgt)|ich\s+habe\s+ein\s+budget\s+von)\s+(?P<obj>.+)",
            "Sein Budget liegt bei {obj}",
            "budget",
            examples=(
                E(
                    "Mein Budget liegt bei 1000 Euro.",
                    "Sein Budget liegt bei 1000 Euro",
                ),
            ),
        ),
        P(
            "platform",
            r"(?:ich\s+bin|wir\s+sind)\s+(?:noch\s+)?(?:auf|an)\s+(?P<obj>.+?)\s+(?:festgelegt|gebunden|beschränkt|angewiesen|festgenagelt|hängen\s+geblieben)",
            "Ist auf {obj} festgelegt",
            "festgelegt gebunden beschränkt angewiesen festgenagelt geblieben",
            examples=(
                E("Wir sind auf Windows festgelegt.", "Ist auf Windows festgelegt"),
            ),
        ),
        P(
            "platform_refused",
            r"ich\s+(?:kann|darf)\s+(?P<obj>.+?)\s+nicht\s+(?P<verb>aktualisieren|updaten|upgraden|verwenden|benutzen|installieren)",
            {
                "verwenden": "Kann {obj} nicht verwenden",
                "benutzen": "Kann {obj} nicht verwenden",
                "installieren": "Kann {obj} nicht installieren",
                "": "Kann {obj} nicht aktualisieren",
            },
            "aktualisieren updaten upgraden verwenden benutzen installieren",
            examples=(
                E(
                    "Ich kann Python nicht aktualisieren.",
                    "Kann Python nicht aktualisieren",
                ),
            ),
        ),
        # standing instructions
        P(
            "reply_language",
            r"(?:bitte\s+)?(?:immer\s+)?(?:antworte|antworten\s+sie|schreib|schreibe|sprich|rede)(?:\s+mir|\s+mit\s+mir)?\s+(?:bitte\s+)?(?:immer\s+)?(?:nur\s+)?(?:auf|in)\s+(?P<obj>"
            + _LANG
            + r")",
            "Möchte Antworten auf {obj}",
            _LANG_T,
            examples=(
                E("Bitte antworte auf Englisch.", "Möchte Antworten auf Englisch"),
            ),
        ),
        P(
            "reply_language_refused",
            r"(?:antworte|schreib|schreibe|sprich)\s+(?:bitte\s+)?nicht\s+mehr\s+(?:auf|in)\s+(?P<obj>"
            + _LANG
            + r")",
            "Möchte keine Antworten mehr auf {obj}",
            _LANG_T,
            examples=(
                E(
                    "Antworte nicht mehr auf Englisch.",
                    "Möchte keine Antworten mehr auf Englisch",
                ),
            ),
        ),
        P(
            "ban",
            r"(?:verwende|benutze|nutze)\s+(?:bitte\s+)?(?:keine|keinen|kein|nie)\s+(?P<obj>.+)",
            "Möchte keine {obj}",
            "verwende benutze nutze",
            keep_case=True,
            examples=(E("Verwende keine Emojis.", "Möchte keine Emojis"),),
        ),
        P(
            "ban",
            r"^(?:bitte\s+)?keine\s+(?P<obj>emojis?|smileys|floskeln|fachbegriffe)\b",
            "Möchte keine {obj}",
            "keine",
            keep_case=True,
            examples=(E("Bitte keine Emojis.", "Möchte keine Emojis"),),
        ),
        P(
            "style",
            r"(?:bitte\s+)?(?:immer\s+)?(?:sei|antworte)\s+(?:bitte\s+)?(?:immer\s+)?(?P<obj>kurz|knapp|direkt|förmlich|formell|locker|ausführlich)",
            "Möchte {obj}e Antworten",
            "sei antworte",
            examples=(E("Sei bitte immer kurz.", "Möchte kurze Antworten"),),
        ),
        P(
            "parent",
            r"ich\s+bin\s+(?P<obj>(?:Vater|Mutter|Mama|Papa|Oma|Opa)\s+von\s+.+)",
            "Ist {obj}",
            "vater mutter mama papa oma opa",
            keep_case=True,
            examples=(
                E("Ich bin Vater von zwei Töchtern.", "Ist Vater von zwei Töchtern"),
            ),
        ),
        P(
            "field",
            r"(?:ich|und)\s+arbeite\s+(?P<obj>von\s+zu\s+Hause(?:\s+aus)?|remote|im\s+Homeoffice|in\s+Teilzeit|Vollzeit|nachts|im\s+Schichtdienst)",
            "Arbeitet {obj}",
            "arbeite",
            examples=(E("Ich arbeite von zu Hause aus.", "Arbeitet von zu Hause aus"),),
        ),
        P(
            "health",
            r"ich\s+habe\s+(?P<obj>Zöliakie|Diabetes|Asthma|ADHS|Epilepsie|Migräne|eine\s+\w*[Ii]ntoleranz)",
            "Hat {obj}",
            "zöliakie diabetes asthma adhs epilepsie migräne intoleranz laktoseintoleranz",
            keep_case=True,
            examples=(E("Ich habe Zöliakie.", "Hat Zöliakie"),),
        ),
        P(
            "field",
            r"ich\s+studiere\s+(?P<obj>.+)",
            "Studiert {obj}",
            "studiere",
            keep_case=True,
            examples=(
                E(
                    "Ich studiere Informatik in Berlin.",
                    "Studiert Informatik in Berlin",
                ),
            ),
        ),
        # stack and projects
        P(
            "stack_refused",
            r"(?:ich|wir)\s+(?:verwende|benutze|nutze|verwenden|benutzen|nutzen)\s+(?:kein|keine|keinen|nie)\s+(?P<obj>.+)",
            "Verwendet kein {obj}",
            "verwende benutze nutze verwenden benutzen nutzen",
            examples=(E("Wir nutzen kein Docker.", "Verwendet kein Docker"),),
        ),
        P(
            "stack_choice",
            r"wir\s+(?:verwenden|benutzen|nutzen|setzen)\s+(?P<obj>.+?)(?:\s+ein)?$",
            "Verwenden {obj}",
            "verwenden benutzen nutzen setzen",
            keep_case=True,
            examples=(
                E("Wir verwenden Kubernetes und Go.", "Verwenden Kubernetes und Go"),
            ),
        ),
        P(
            "stack_choice",
            r"ich\s+(?:verwende|benutze|nutze)\s+(?P<obj>.+)",
            "Verwendet {obj}",
            "verwende benutze nutze",
            keep_case=True,
            examples=(E("Ich benutze Linux seit Jahren.", "Verwendet Linux"),),
        ),
        P(
            "stack",
            r"unser\s+(?P<what>backend|frontend|stack|server|projekt|produkt|datenbank|app|infrastruktur)\s+(?P<verb>ist|läuft\s+auf|nutzt|verwendet|basiert\s+auf|ist\s+in)\s+(?P<obj>.+)",
            "Ihr {what} {verb} {obj}",
            "backend frontend stack server projekt produkt datenbank app infrastruktur",
            keep_case=True,
            examples=(
                E(
                    "Unser Backend ist in Go geschrieben.",
                    "Ihr Backend ist in Go geschrieben",
                ),
            ),
        ),
        P(
            "project",
            r"ich\s+(?P<verb>baue|entwickle|programmiere|arbeite\s+an)\s+(?P<obj>(?:ein|eine|einen|einem|einer|meine|mein|meinem|meiner)\s+.+)",
            {
                "baue": "Baut {obj}",
                "entwickle": "Entwickelt {obj}",
                "programmiere": "Programmiert {obj}",
                "": "Arbeitet an {obj}",
            },
            "baue entwickle programmiere arbeite",
            keep_case=True,
            examples=(
                E(
                    "Ich entwickle eine App für Vereine.",
                    "Entwickelt eine App für Vereine",
                ),
            ),
        ),
        # goals and plans
        P(
            "goal_verb",
            r"ich\s+(?:will|möchte|moechte)\s+(?P<obj>.+)",
            "Möchte {obj}",
            "will möchte moechte",
            keep_case=True,
            examples=(E("Ich möchte ein Haus kaufen.", "Möchte ein Haus kaufen"),),
        ),
        P(
            "goal",
            r"ich\s+(?P<verb>plane|habe\s+vor|hoffe)\s+(?:,\s*)?(?P<obj>.+)",
            {"hoffe": "Hofft {obj}", "": "Plant {obj}"},
            "plane vor hoffe",
            keep_case=True,
            examples=(
                E("Ich plane einen Umzug nach Wien.", "Plant einen Umzug nach Wien"),
            ),
        ),
        P(
            "goal",
            r"mein\s+(?P<what>ziel|traum|plan)\s+ist\s+(?:es\s+)?(?P<obj>.+)",
            "Sein {what} ist {obj}",
            "ziel traum plan",
            keep_case=True,
            examples=(E("Mein Ziel ist ein Marathon.", "Sein Ziel ist ein Marathon"),),
        ),
        P(
            "goal",
            r"ich\s+lerne\s+(?:gerade\s+)?(?P<obj>.+)",
            "Lernt {obj}",
            "lerne",
            keep_case=True,
            examples=(E("Ich lerne Japanisch.", "Lernt Japanisch"),),
        ),
        # notable events
        P(
            "event",
            r"ich\s+bin\s+(?P<obj>(?:gerade|kürzlich|letzte\s+Woche|gestern)\s+(?:aus|von)\s+.+?\s+zur[üu]ckgekommen)",
            "Ist {obj}",
            "zurückgekommen zuruckgekommen",
            keep_case=True,
            examples=(
                E(
                    "Ich bin gerade aus Italien zurückgekommen.",
                    "Ist gerade aus Italien zurückgekommen",
                ),
            ),
        ),
        P(
            "event",
            r"ich\s+habe\s+(?P<obj>(?:gerade\s+|kürzlich\s+|letztes\s+Jahr\s+|letzten\s+Monat\s+)?(?:geheiratet|bei\s+.+?\s+angefangen|meinen\s+Abschluss\s+gemacht|ein\s+Baby\s+bekommen))",
            "Hat {obj}",
            "geheiratet angefangen abschluss baby",
            keep_case=True,
            examples=(E("Ich habe geheiratet.", "Hat geheiratet"),),
        ),
        P(
            "event",
            r"ich\s+bin\s+(?P<obj>(?:gerade\s+|kürzlich\s+|letztes\s+Jahr\s+)?(?:in\s+Rente\s+gegangen|Vater\s+geworden|Mutter\s+geworden|befördert\s+worden))",
            "Ist {obj}",
            "rente vater mutter befördert",
            keep_case=True,
            examples=(E("Ich bin Vater geworden.", "Ist Vater geworden"),),
        ),
        # preferences
        P(
            "dislike",
            r"ich\s+mag\s+(?P<obj>.+?)\s+nicht\b",
            "Mag {obj} nicht",
            "mag",
            keep_case=True,
            examples=(E("Ich mag Koriander nicht.", "Mag Koriander nicht"),),
        ),
        P(
            "dislike",
            r"ich\s+mag\s+(?P<neg>kein(?:e|en)?)\s+(?P<obj>.+)",
            "Mag {neg} {obj}",
            "mag",
            keep_case=True,
            examples=(E("Ich mag keine Tomaten.", "Mag keine Tomaten"),),
        ),
        P(
            "dislike",
            r"ich\s+hasse\s+(?P<obj>.+)",
            "Hasst {obj}",
            "hasse",
            keep_case=True,
            examples=(
                E("Ich hasse Rosenkohl, schon seit meiner Kindheit", "Hasst Rosenkohl"),
            ),
        ),
        P(
            "like",
            r"ich\s+(?P<verb>mag|liebe)\s+(?P<obj>.+)",
            {"liebe": "Liebt {obj}", "": "Mag {obj}"},
            "mag liebe",
            keep_case=True,
            examples=(E("Ich mag Jazz sehr.", "Mag Jazz sehr"),),
        ),
        P(
            "prefer",
            r"ich\s+bevorzuge\s+(?P<obj>.+)",
            "Bevorzugt {obj}",
            "bevorzuge",
            keep_case=True,
            examples=(E("Ich bevorzuge Tee.", "Bevorzugt Tee"),),
        ),
    ),
)
