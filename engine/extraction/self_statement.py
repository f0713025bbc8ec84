"""A clause in which the user says something about themselves that no rule reads.

The rules read the phrasings they were written for; people say the same things in endless
other ways ("I go climbing 3x a week at the bouldering gym", "je vais au boulot à vélo tous
les matins", "Toda sexta eu jogo futsal"). Batches written apart from the rules showed the
rules alone keep a quarter to under a half of what people state on first sight. This is the
net under them: a clause that opens with the user as its subject (or, in Spanish and
Portuguese, with a first-person verb), says nothing about the conversation itself and has a
word that names a family (or is "I'm <who>": identity), is kept as the user said it:
`Said: "…"`.

Kept verbatim, in quotes, for three reasons: no verb has to be conjugated in five languages;
the wording cannot be read back as one of the rules' templates, so such a fact claims no
slot and never supersedes a rule's fact (`conflict.claim_of` reads nothing from a quotation);
and what is injected is exactly what the user said.

What keeps it from storing the turn's task ("I tried that and still get the error", "I'm
writing a cover letter for Google"): the clause must not be a question, hypothetical,
fiction or report (checked by the caller), must not speak to or about the assistant, point
at the conversation ("this", "that", "it"), quote anyone, use the words of debugging, asking,
planning the day or thinking aloud, or say what the user is doing or where they are right
now; and it must name a family by one of its words.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Literal

from memtap.engine.stopwords import STOPWORDS

MAX_WORDS = 30
MIN_WORDS = 3
PREFIX = 'Said: "'
Polarity = Literal["positive", "negative"]

_FILLER = (
    r"(?:(?:and|but|so|also|btw|fyi|oh|well|ok|okay|honestly|plus|anyway|hey|hi|hello|ugh|lol|"
    r"haha|y|e|et|und|aber|mais|pero|mas|pues|bueno|bom|alors|bon|oi|hola|salut|hallo|ja|"
    r"sí|si|sim|oui)\b[\W_]*)"
)
# How often: a routine said with its frequency first ("Todas las mañanas salgo a correr").
_FREQUENCY = (
    r"(?:every\s+\w+|each\s+\w+|on\s+\w+days|on\s+weekends|most\s+(?:days|mornings|nights|evenings|weekends)|"
    r"daily|weekly|nightly|\d+\s*x\s+(?:a|per)\s+\w+|(?:once|twice|\w+\s+times)\s+(?:a|per)\s+\w+|"
    r"tod[oa]s?\s+(?:l[oa]s\s+|os\s+|as\s+)?\w+|cada\s+\w+|l[oa]s\s+\w+s|aos\s+\w+s|"
    r"tous\s+les\s+\w+|chaque\s+\w+|le\s+\w+|jede[nrs]?\s+\w+|t[äa]glich|w[öo]chentlich|am\s+\w+ende|\w+tags)"
)
_SUBJECT = (
    r"(?:I'm|I\s+am|I've|I\s+have|I|we're|we\s+are|we've|we|yo|nosotr[oa]s|eu|a\s+gente|n[óo]s|"
    r"moi,?\s+je|je|j'|nous|ich|wir)"
)
# Spanish and Portuguese say the verb without its subject: first-person forms that state
# something about the speaker.
_FIRST_PERSON_VERB = (
    r"(?:soy|estoy|tengo|vivo|trabajo|uso|usamos|prefiero|odio|juego|salgo|voy|hago|corro|estudio|"
    r"tenemos|vivimos|trabajamos|me\s+(?:llamo|gusta|gustan|encanta|encantan)|no\s+me\s+gusta|"
    r"sou|estou|t[ôo]|tenho|moro|trabalho|prefiro|odeio|curto|adoro|jogo|vou|fa[çc]o|estudo|"
    r"temos|moramos|trabalhamos|n[ãa]o\s+(?:curto|gosto)|gosto|amo)"
)
# "My wife and I", "Meine Frau und ich": the user among the subject.
_PARTNER = (
    r"(?:(?:my|our|mi|mis|meu|minha|mon|ma|mes|mein|meine|[A-Z]\w+)\s+(?:[\w-]+\s+)?"
    r"(?:and|e|y|et|und)\s+(?=(?:I|eu|yo|moi|ich)\b))?"
)
# Casual French says "on" for "we"; casual German drops "ich" ("Wohne seit 2020 in Graz")
# or puts it after the verb ("Jeden Samstag geh ich auf den Markt").
_FRENCH_ON = (
    r"on\s+(?:a|est|va|vient|vit|habite|utilise|migre|bosse|travaille|fait|part|passe|"
    r"d[ée]m[ée]nage|prend|joue|mange|cuisine)"
)
_GERMAN_NO_ICH = (
    r"(?:bin|hab|habe|wohne|arbeite|komme|mag|liebe|hasse|spiele|fahre|gehe|geh|mache|mach|"
    r"trinke|esse|lerne|studiere|nutze|benutze)"
)
_GERMAN_ICH_SECOND = r"(?:[\w-]+\s+){1,3}?\w+\s+ich"
_OPENING = re.compile(
    r"^[\W_]*" + _FILLER + r"*(?:" + _FREQUENCY + r"[,\s]+)?"
    r"(?:"
    + _PARTNER
    + _SUBJECT
    + r"(?:\b|(?<=')|\s)|"
    + _FIRST_PERSON_VERB
    + r"\b|"
    + _FRENCH_ON
    + r"\b|"
    + _GERMAN_NO_ICH
    + r"\b|"
    + _GERMAN_ICH_SECOND
    + r"\b)",
    re.IGNORECASE,
)
_LEAD = re.compile(r"^[\W_]*" + _FILLER + r"*", re.IGNORECASE)
# Addressing the assistant, pointing at the conversation, quoting, or the words of a task
# in progress (debugging, asking, thinking aloud, time-bound plans).
_NOT_ABOUT_USER = re.compile(
    r"[\"“”«»„]|\b(?:you|your|yours|u|ur|tu|t'|te|ti|toi|vous|votre|vos|dich|dir|dein|deine|"
    r"usted|ustedes|você|voce|vc|this|that|these|those|it|its|there|above|below|esto|eso|"
    r"here(?!\s+(?:in|at|on)\s+(?-i:[A-ZÀ-Ý]))|"  # "here in Porto Alegre" is a place
    r"esta|este|isso|isto|essa|esse|disso|disto|nisso|nisto|daquilo|ello|ce|cet|cette|ça|cela|"
    r"ceci|dies|diese|diesen|dieses|davon|damit|daf[üu]r|darauf|"
    r"one|ones|second|third|former|latter|previous|version|option|draft|suggestion|approach|"
    r"solution|example|says|said|thinks|told|tells|dice|dijo|diz|disse|dit|sagt|"
    r"error|errors|erro|erreur|fehler|bug|bugs|code|código|codigo|file|files|archivo|arquivo|"
    r"fichier|datei|script|function|command|output|log|logs|answer|question|pregunta|pergunta|"
    r"thanks|thank|gracias|obrigad[oa]|merci|danke|sorry|perdón|desculpa|pardon|"
    r"confused|mean|meant|see|think|thought|guess|sure|know|wonder|wondering|curious|"
    r"tried|try|trying|works|worked|fix|fixed|help|helps|ayuda|ajuda|aide|hilfe|"
    r"wrong|right|paste|pasted|copy|copied|run|ran|running|getting|restart|restarted|"
    r"click|clicked|page|screen|tab|login|password|account|"
    r"today|tonight|tomorrow|now|moment|minute|again|still|hoy|ahora|hoje|agora|"
    r"aujourd'hui|maintenant|demain|heute|jetzt|"
    r"will|would|could|should|can|might|may|must|maybe|probably|need|needs|have\s+to|has\s+to|"
    r"gonna|going\s+to|hope|feel|felt|feeling|agree|understand|remember|forgot|forget|lost|"
    r"missing|ask|asking|asked|looking\s+for|trying\s+to|already|either|neither|idea|"
    r"ideia|id[ée]e|mind|cache|fehlermeldung|versteh|verstehe|j'en|j'y|je\s+l'|ok|okay|fine|"
    r"slept|sleep|freaking|stuck|ticket|tickets|commit|branch|merge|pipeline|sprint|deadline|"
    r"meeting|meetings|appointment|termin|r[ée]union|reuni[óo]n|reuni[ãa]o|besprechung|exam|"
    r"examen|pr[üu]fung|prova|gerade|gleich|brauche|suche|en\s+train\s+de|acho|creo|glaube|"
    r"mail|e-mail|email|correo|courriel)\b",
    re.IGNORECASE,
)
# What the user is doing or where they are right now is the task, not who they are ("I'm
# writing a cover letter for Google", "I'm at the airport in Denver"), except what is a plan.
_DOING_NOW = re.compile(
    r"^(?:I'm|I\s+am|we're|we\s+are|estoy|estou|t[ôo]|je\s+suis\s+en\s+train|ich\s+bin\s+gerade)\s+"
    r"(?:just\s+|currently\s+|still\s+)?"
    r"(?!(?:learning|studying|training|saving|planning|moving|relocating|expecting|raising|"
    r"retiring)\b)(?:\w+(?:ing|ndo)\b|at\b|in\b|on\b|with\b|off\b|away\b|out\b|back\b|"
    r"home\b|done\b|busy\b|\d)",
    re.IGNORECASE,
)
_NEGATION = re.compile(
    r"\b(?:not|don't|dont|do\s+not|never|no\s+longer|have\s+no|nunca|"
    r"no\s+(?:me|le|les|tengo|soy|estoy|como|bebo|uso|puedo)|"
    r"não|nao|ne|n'|pas|jamais|nicht|kein\w*|hate|hates|dislike|can't\s+stand|refuse|"
    r"ruled\s+out|against|horreur|d[ée]teste|renonc[ée]|desisti|odio|odeio|hasse|gegen)\b",
    re.IGNORECASE,
)
_WORD = re.compile(r"[^\W_][\w'’-]*", re.UNICODE)

# Families by the words that name them, the most telling first: a routine is a habit
# whatever it is about, a diet is a constraint wherever it is said.
_FAMILY_WORDS: tuple[tuple[str, str], ...] = (
    (
        "habit",
        (
            r"every|each|usually|always|often|daily|weekly|nightly|weekends?|mornings|evenings|"
            r"most\s+days|\d+\s*x\s+(?:a|per)|"
            r"times\s+(?:a|per)|siempre|normalmente|cada|tod[oa]s?\s+(?:l[oa]s|os|as)?\s*\w+|"
            r"fines\s+de\s+semana|fins\s+de\s+semana|sempre|geralmente|toujours|souvent|d'habitude|"
            r"tous\s+les|chaque|immer|oft|normalerweise|meistens|jede[nrs]?|t[äa]glich|am\s+wochenende"
        ),
    ),
    (
        "constraint",
        (
            r"allerg\w*|al[ée]rgic\w*|alergia|vegan\w*|vegetarian\w*|v[ée]g[ée]tarien\w*|vegetarisch|"
            r"pescatarian|gluten|gl[úu]ten|lactose|lactosa|laktose|intoleran\w*|intol[ée]rant\w*|"
            r"celiac|coeliac|cel[íi]ac\w*|diabet\w*|budget|presupuesto|or[çc]amento|adhd|dyslexi\w*|"
            r"deaf|blind|migraines?|asthma|kosher|halal|wheelchair|laptop|notebook|port[áa]til|"
            r"ordinateur|chromebook|macbook|windows|linux|iphone|android|ram|disease|condition|"
            r"maladie|krankheit|enfermedad|doen[çc]a|intoleranz|\w+intoleranz|screen\s+reader|nvda|"
            r"jaws|voiceover"
        ),
    ),
    (
        "family",
        (
            r"wife|husband|partner|boyfriend|girlfriend|fianc\w*|kids?|kiddo|son|sons|daughters?|"
            r"children|child|baby|toddler|mom|mum|mother|dad|father|parents|brother|sister|siblings?|"
            r"grandma|grandpa|dog|cat|puppy|kitten|pets?|married|divorced|twins|esposa|esposo|marido|"
            r"mujer|mulher|femme|mari|frau|mann|novi[oa]|namorad[oa]|copain|copine|freundin|"
            r"hij[oa]s?|filh[oa]s?|fils|fille|enfants|kinder?|sohn|tochter|perr\w*|cachorr\w*|gat[oa]s?|"
            r"chien|hund|katze|madre|padre|m[ãa]e|pai|m[èe]re|p[èe]re|mutter|vater|herman[oa]s?|"
            r"irm[ãa]o?s?|fr[èe]re|s[œo]eur|bruder|schwester|casad[oa]|mari[ée]e?|verheiratet"
        ),
    ),
    (
        "work",
        (
            r"work|works|working|job|engineer|developer|dev|designer|teacher|nurse|doctor|student|"
            r"sophomore|freshman|phd|retired|freelanc\w*|company|employer|manager|consultant|lawyer|"
            r"accountant|shifts?|startup|intern|trabajo|curro|empresa|trabalho|emprego|travaille|"
            r"bosse|boulot|entreprise|arbeite|arbeit|firma|ingenier\w*|engenheir\w*|ing[ée]nieur\w*|"
            r"desarrollador\w*|desenvolvedor\w*|d[ée]veloppeu\w*|entwickler\w*|profe|profesor\w*|"
            r"professor\w*|professeur\w*|lehrer\w*|m[ée]dic[oa]|m[ée]decin|arzt|[äa]rztin|enfermer\w*|"
            r"infirmi\w*|estudiante|estudante|[ée]tudiant\w*|jubilad[oa]|aposentad[oa]|retrait[ée]\w*|"
            r"rente|ruhestand"
        ),
    ),
    (
        "location",
        (
            r"live|lives|living|based|timezone|time\s+zone|neighbou?rhood|flat|"
            r"apartment|vivo|moro|habite|wohne|lebe|mud[ée]|mudei|d[ée]m[ée]nag\w*|umgezogen|gezogen|"
            r"estoy\s+en|estou\s+em|je\s+vis|hail\s+from"
        ),
    ),
    (
        "identity",
        (
            r"name|pronouns|years\s+old|born|native|nationality|first\s+language|originally|llamo|"
            r"chamo|m'appelle|hei[ßs]e|a[ñn]os|anos|ans|jahre|nac[ií]|nasci|n[ée]e|geboren"
        ),
    ),
    (
        "instruction",
        (
            r"answers|replies|respond|explanations?|emojis?|bullet\s+points|respuestas|respostas|"
            r"r[ée]ponses|antworten"
        ),
    ),
    (
        "goal",
        (
            r"want|wants|plan|planning|goal|learning|training|saving|aim|dream|quiero|quero|veux|"
            r"voudrais|m[öo]chte|objetivo|objectif|ziel|aprendiendo|aprendendo|apprends|lerne|"
            r"estudiando|estudando|pr[ée]pare|preparando|ahorrando|economizando|[ée]conomise|spare"
        ),
    ),
    (
        "stack",
        (
            r"stack|deploy\w*|framework|database|backend|frontend|repo|monorepo|kubernetes|k8s|aws|"
            r"gcp|azure|docker|python|java|kotlin|rust|golang|typescript|javascript|react|vue|angular|"
            r"django|rails|laravel|symfony|postgres\w*|mysql|mongo\w*|redis|usamos|utilisons|nutzen|"
            r"verwenden"
        ),
    ),
    (
        "decision",
        (
            r"decided|chose|going\s+with|went\s+with|picked|settled|decidimos|decid[íi]|elegimos|"
            r"escolhemos|escolhi|choisi|d[ée]cid[ée]|entschieden|ruled\s+out|renonc[ée]|desisti|"
            r"me\s+decid[íi]"
        ),
    ),
    (
        "preference",
        (
            r"like|likes|love|loves|hate|hates|fan|favou?rite|fav|prefer|enjoy|adore|nerd|geek|"
            r"obsessed|sucker|gusta|gustan|encanta|odio|curto|adoro|amo|odeio|gosto|aime|"
            r"d[ée]teste|pr[ée]f[èe]re|liebe|hasse|bevorzuge|lieblings\w*|favorit[oa]|pr[ée]f[ée]r[ée]e?|"
            r"horreur|can't\s+stand|refuse"
        ),
    ),
    (
        "event",
        (
            r"graduated|got\s+married|got\s+engaged|got\s+divorced|got\s+promoted|promoted|"
            r"laid\s+off|had\s+(?:a|our|my)\s+(?:baby|son|daughter)|acabo\s+de|acabei\s+de|"
            r"vient\s+de|viens\s+de|me\s+cas[ée]|casei|geheiratet|graduad[oa]|formad[oa]|"
            r"dipl[ôo]m[ée]e?|abgeschlossen"
        ),
    ),
)
_FAMILIES: dict[str, re.Pattern[str]] = {
    family: re.compile(r"\b(?:" + words + r")\b", re.IGNORECASE)
    for family, words in _FAMILY_WORDS
}


@dataclass(frozen=True, slots=True)
class SelfStatement:
    family: str
    polarity: Polarity
    content: str
    """`Said: "<the clause as the user said it>"`."""
    lang: str = "en"
    """The language it was said in, by its commonest words (en | es | pt | fr | de)."""


def self_statement(clause: str, restored: str | None = None) -> SelfStatement | None:
    """The clause as a fact the user stated about themselves, or None. `restored` is the clause
    with the subject it left out ("Single dad here" -> "I'm a single dad"): enough to open a
    self-statement when a word names its family; what is quoted is the clause as said."""
    if _OPENING.match(clause) is None:
        # Only who the user is ("I'm a …") opens one: a remark that left out "I" and goes on
        # with a verb is mostly about the task ("Moved to the next step").
        if restored is None or not restored.startswith("I'm "):
            return None
        as_restored = self_statement(restored)
        if as_restored is None or _family_named(restored) is None:
            return None
        # `restored` passed every check; the quote is the clause as the user wrote it
        said = _main_clause(_LEAD.sub("", clause)).strip(" \t.,;:!-–—")
        return SelfStatement(
            as_restored.family, as_restored.polarity, _quoted(said), language_of(said)
        )
    said = _main_clause(_LEAD.sub("", clause)).strip(" \t.,;:!-–—")
    words = _WORD.findall(said)
    if not MIN_WORDS <= len(words) <= MAX_WORDS:
        return None
    if _NOT_ABOUT_USER.search(said) or _DOING_NOW.match(said):
        return None
    family = _family_named(said)
    if not any(_content_word(word, family) for word in words[1:]):
        return None  # "Ich liebe es", "Me encanta, de verdad": a feeling with no object
    if family is None:
        family = _family_by_grammar(said)
        if family is None:
            return None
    head = " ".join(words[:5])
    polarity: Polarity = "negative" if _NEGATION.search(head) else "positive"
    return SelfStatement(family, polarity, _quoted(said), language_of(said))


# What comes after "so", "but", "because"… is a consequence or a contrast, often about the
# task ("I'm originally from Kerala, so this monsoon stuff is nostalgic"): the statement is
# what comes before it.
_CONSEQUENCE = re.compile(
    r",?\s+(?:so|but|because|cause|since(?!\s+\d)|which|though|although|whereas|"
    r"and\s+(?:so|then)|pero|porque|así\s+que|ent[ãa]o|donc|parce\s+que|aber|weil|deshalb)\s+"
    r"|\s+[—–]\s+"
    # an order after the statement: "I was born in Lagos, write me a poem"
    r"|,\s+(?=(?:write|give|tell|make|show|help|send|draft|plan|find|suggest|recommend|"
    r"explain|create|list|translate|fix|check)\b)",
    re.IGNORECASE,
)


def _main_clause(said: str) -> str:
    cut = _CONSEQUENCE.search(said)
    return said[: cut.start()] if cut is not None and cut.start() > 0 else said


def _quoted(said: str) -> str:
    return f'{PREFIX}{said[:1].upper()}{said[1:]}"'


def _word_set(words: str) -> frozenset[str]:
    return frozenset(words.split())


_COMMON_WORDS: dict[str, frozenset[str]] = {
    "en": _word_set(
        "i i'm i've we my our the an and to of in on at for with is am are it from"
    ),
    "es": _word_set(
        "yo mi mis el la los las un una y de del al en con por para es soy estoy me que lo se "
        "nos muy"
    ),
    "pt": _word_set(
        "eu meu minha o os as um uma e de do da em no na com pra para é sou estou tô que se "
        "muito não"
    ),
    "fr": _word_set(
        "je j' moi mon ma mes le la les un une et de du des à au aux en avec pour est suis "
        "que pas ne"
    ),
    "de": _word_set(
        "ich mein meine der die das den dem des ein eine und zu in im mit für ist bin habe du "
        "mich dich nicht auf sich wir uns kann"
    ),
}


def language_of(said: str) -> str:
    """The language whose commonest words `said` uses most (English on a tie)."""
    words = [w.lower() for w in _WORD.findall(said.replace("'", "' "))]
    scores = {
        lang: sum(w in common for w in words) for lang, common in _COMMON_WORDS.items()
    }
    best = max(scores.values())
    return "en" if scores["en"] == best else max(scores, key=scores.__getitem__)


def _family_named(said: str) -> str | None:
    return next((name for name, names in _FAMILIES.items() if names.search(said)), None)


# "I'm <who>": with no word naming a family, the only self-statement kept (identity).
_IS = re.compile(
    r"^(?:I'm|I\s+am|we're|we\s+are|je\s+suis|soy|sou|ich\s+bin|bin|somos|nous\s+sommes)\s+(?P<next>\S+)",
    re.IGNORECASE,
)
# How the user is right now, not who they are.
_PASSING = _word_set(
    "away out off busy free available late early home back sick ill tired exhausted fine good "
    "great happy sad excited nervous stressed bored flexible ready done sure glad sorry new "
    "at in on with off about going gonna trying ab im am beim zum zur en à au chez em no na con"
)


def _family_by_grammar(said: str) -> str | None:
    """With no word naming a family, only "I'm <who>" is kept (identity): what the user did or
    does without such a word was mostly the task ("We have a deadline with Acme")."""
    m = _IS.match(said)
    if m is None:
        return None
    following = m.group("next").lower().strip(".,!?")
    if following in _PASSING or following[:1].isdigit():
        return None
    return "identity"


def _content_word(word: str, family: str | None) -> bool:
    low = word.lower()
    # "Ich liebe es": the verb that names a preference is not its object ("ADHD" is).
    if low in _EMPTY_WORDS or (
        family == "preference" and _FAMILIES[family].fullmatch(word)
    ):
        return False
    return (
        any(ch.isdigit() for ch in word)
        or word[:1].isupper()
        or (len(low) >= 4 and low not in STOPWORDS)
    )


# Words that only say how much: no object.
_EMPTY_WORDS = _word_set(
    "really totally truly absolutely verdad mucho muchísimo muito demais nada sehr wirklich echt "
    "total vraiment beaucoup trop tellement"
)


# -- standing instructions said without a subject ----------------------------------------
# "Metric units always, please", "Nada de recomendarme series de miedo, por favor", "Du
# kannst mich ruhig duzen": how every answer should be, said as an order or a permission.
_ANSWER_WORDS = re.compile(
    r"\b(?:answers?|replies|reply|responses?|explanations?|units|metric|imperial|bullets?|"
    r"bullet\s+points|links|emojis?|tone|jargon|disclaimers?|headings|tables|examples|"
    r"respuestas?|cont[ée]st\w*|respond\w*|respostas?|r[ée]ponses?|r[ée]pond\w*|"
    r"antwort\w*|duz\w*|tutoy\w*|tute\w*|siez\w*|vouvoy\w*|anglizismen|recomend\w*|"
    r"recommand\w*|empfiehl\w*|empfehl\w*|sugier\w*|sugir\w*|sugg[ée]r\w*)\b",
    re.IGNORECASE,
)
_STANDING = re.compile(
    r"\b(?:always|from\s+now\s+on|going\s+forward|whenever|every\s+time|in\s+(?:the\s+)?future|"
    r"by\s+default|siempre|sempre|toujours|immer|de\s+ahora\s+en\s+adelante|"
    r"a\s+partir\s+de\s+(?:ahora|agora|maintenant)|daqui\s+pra\s+frente|d[ée]sormais|ab\s+jetzt|"
    r"ab\s+sofort|k[üu]nftig|in\s+zukunft|"
    # how to address the user holds for every answer by itself
    r"duz\w*|tutoy\w*|tute[aá]\w*|siez\w*|vouvoy\w*)\b",
    re.IGNORECASE,
)
# "No emojis please", "Nada de…", "Keine Anglizismen bitte": a ban on every answer.
_OPENS_AS_ORDER = re.compile(
    r"^[\W_]*(?:(?:please|pls|bitte|por\s+favor)[,\s]+)?"
    r"(?:no|nada\s+de|keine?|pas\s+de|sem|never|don't|do\s+not)\b",
    re.IGNORECASE,
)
# An order about this conversation's text, not about every answer.
_ABOUT_THIS = re.compile(
    r"\b(?:this|that|it|these|those|below|above|following|email|message|question|letter|text|"
    r"code|file|post|mail|e-mail|correo|courriel|esto|eso|isso|isto|ça|cela|dies|diese|diesen|"
    r"das\s+hier|ce|cette|"
    r"esta|este|essa|esse)\b",
    re.IGNORECASE,
)
_ORDER_NEGATION = re.compile(
    r"^[\W_]*(?:no|nada\s+de|keine?|pas\s+de|sem|never|don't|do\s+not)\b|"
    r"\b(?:don't|never|do\s+not|no\s+more|nicht|nunca|jamais)\b",
    re.IGNORECASE,
)


def standing_instruction(clause: str) -> SelfStatement | None:
    """The clause as an instruction for every answer, or None."""
    said = _LEAD.sub("", clause).strip(" \t.,;:!-–—")
    words = _WORD.findall(said)
    if not MIN_WORDS - 1 <= len(words) <= MAX_WORDS:
        return None
    if not _ANSWER_WORDS.search(said) or _ABOUT_THIS.search(said) or "?" in said:
        return None
    if not (_STANDING.search(said) or _OPENS_AS_ORDER.match(said)):
        return None
    polarity: Polarity = "negative" if _ORDER_NEGATION.search(said) else "positive"
    return SelfStatement("instruction", polarity, _quoted(said), language_of(said))
