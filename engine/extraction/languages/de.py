"""German rules: the families and their negations, stored in German, third person."""

from __future__ import annotations

import re
from typing import Any

from memtap.engine.extraction.rules import Rule, rule

_B = r"(?:^|(?<=[\s,;:(\"'¿¡]))"
_STOP = re.compile(
    r"\s+(?:und\s+(?:ich|mein|meine|\w+e)|aber|weil|obwohl|wo|seit|vor\s+\w+\s+(?:Jahren|Monaten|Wochen)|"
    r"letztes\s+Jahr|letzte\s+Woche|letzten\s+Monat|gestern|jetzt|zurzeit|gerade)\b|[,;:(]|\s-\s",
    re.IGNORECASE,
)
_ROLE_STOP = re.compile(
    r"\s+(?:bei|für|in|und|aber|seit|mit|im)\b|[,;:(]", re.IGNORECASE
)
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

_NAME_STOP = re.compile(
    r"\s+(?:y|e|et|und|and|pero|mas|mais|aber|from|aus|de\s+\d)\b|[,;.!(]",
    re.IGNORECASE,
)


def _r(
    family: str,
    rx: str,
    template: object,
    triggers: str,
    polarity: str = "positive",
    **options: Any,
) -> Rule:
    options.setdefault("stop", _STOP)
    options.setdefault("keep_case", False)
    return rule("de", family, _B + rx, template, triggers, polarity, **options)  # type: ignore[arg-type]


def _proper(match: re.Match[str], obj: str) -> bool:
    return obj[:1].isupper() or obj[:1].isdigit()


def _infinitive_last(match: re.Match[str], obj: str) -> bool:
    words = obj.split()
    return (
        bool(words)
        and words[-1].lower().endswith(("en", "ern", "eln"))
        and words[-1].lower()
        not in {"wissen", "fragen", "verstehen", "sehen", "prüfen"}
    )


def _diet_slot(obj: str) -> str | None:
    return "constraint.diet" if re.match(_DIET, obj, re.IGNORECASE) else None


_POSS = {
    "mein": "Sein {obj}",
    "meine": "Seine {obj}",
    "meinen": "Seinen {obj}",
    "": "Sein {obj}",
}

RULES: tuple[Rule, ...] = (
    # identity
    _r(
        "identity",
        r"(?:ich\s+hei(?:ß|ss)e|mein\s+name\s+ist)\s+(?P<obj>.+)",
        "Heißt {obj}",
        "heiße heisse name",
        slot="identity.name",
        accept=_proper,
        stop=_NAME_STOP,
    ),
    _r(
        "identity",
        r"nenn(?:e|t)?\s+mich\s+(?:bitte\s+)?(?P<obj>.+)",
        "Möchte {obj} genannt werden",
        "nenne nennt nenn",
        slot="identity.address_as",
    ),
    _r(
        "identity",
        r"ich\s+komme\s+(?:ursprünglich\s+)?aus\s+(?P<obj>.+)",
        "Kommt aus {obj}",
        "komme",
        slot="identity.origin",
        accept=_proper,
    ),
    _r(
        "identity",
        r"ich\s+bin\s+(?P<obj>\d{1,3})\s+(?:Jahre\s+alt)",
        "Ist {obj} Jahre alt",
        "jahre alt",
        slot="identity.age",
    ),
    # location
    _r(
        "location",
        r"ich\s+(?P<verb>wohne|lebe)\s+nicht\s+mehr\s+in\s+(?P<obj>.+)",
        {"lebe": "Lebt nicht mehr in {obj}", "": "Wohnt nicht mehr in {obj}"},
        "wohne lebe",
        "negative",
        slot="location.home",
    ),
    _r(
        "location",
        r"(?:ich|und)\s+(?P<verb>wohne|lebe)\s+(?:jetzt\s+|allein\s+|alleine\s+|seit\s+\w+\s+\w+\s+)?in\s+(?P<obj>.+)",
        {"lebe": "Lebt in {obj}", "": "Wohnt in {obj}"},
        "wohne lebe",
        slot="location.home",
    ),
    _r(
        "location",
        r"ich\s+bin\s+(?:gerade\s+|kürzlich\s+|letztes\s+Jahr\s+)?nach\s+(?P<obj>.+?)\s+(?:umgezogen|gezogen)",
        "Ist nach {obj} gezogen",
        "umgezogen gezogen",
        slot="location.home",
    ),
    # work
    _r(
        "work",
        r"ich\s+arbeite\s+nicht\s+mehr\s+(?P<prep>bei|für)\s+(?P<obj>.+)",
        "Arbeitet nicht mehr {prep} {obj}",
        "arbeite",
        "negative",
        slot="work.employer",
        group="employer",
    ),
    _r(
        "work",
        r"(?:ich|und)\s+arbeite\s+(?:jetzt\s+|seit\s+\w+\s+\w+\s+)?(?:(?:im|in\s+der|in\s+einem|als\s+\w+)\s+\w+\s+)?(?P<prep>bei|für)\s+(?P<obj>.+)",
        "Arbeitet {prep} {obj}",
        "arbeite",
        slot="work.employer",
        group="employer",
    ),
    _r(
        "work",
        r"(?:ich|und)\s+arbeite\s+als\s+(?P<obj>.+)",
        "Arbeitet als {obj}",
        "arbeite",
        slot="work.role",
        group="role",
        stop=_ROLE_STOP,
    ),
    _r(
        "work",
        r"ich\s+bin\s+(?:ein\s+|eine\s+)?(?P<obj>(?:[\w-]+\s+)?" + _ROLES + r")\b",
        "Ist {obj}",
        _ROLE_T,
        slot="work.role",
        group="role",
        stop=_ROLE_STOP,
    ),
    _r(
        "work",
        r"ich\s+bin\s+(?:ein\s+|eine\s+)?(?:[\w-]+\s+)?"
        + _ROLES
        + r"\s+(?P<prep>bei)\s+(?P<obj>.+)",
        "Arbeitet bei {obj}",
        _ROLE_T,
        slot="work.employer",
        group="employer",
    ),
    _r(
        "work",
        r"ich\s+habe\s+(?:gerade\s+|letzten\s+Monat\s+)?bei\s+(?P<obj>.+?)\s+angefangen",
        "Arbeitet bei {obj}",
        "angefangen",
        slot="work.employer",
        group="employer",
    ),
    # family and pets
    _r(
        "family",
        r"(?P<verb>mein|meine)\s+(?P<obj>"
        + _REL
        + r"\b(?:\s+[A-Z]\w+)?\s+(?:ist|sind|arbeitet|arbeiten|wohnt|wohnen|lebt|leben|hat|haben|heißt|heisst|heißen|studiert|geht|gehen|spielt|macht|wird|kommt|arbeitet)\b.+)",
        _POSS,
        _REL_T,
    ),
    _r(
        "family",
        r"(?:ich\s+habe|wir\s+haben)\s+(?P<obj>(?:einen|eine|ein|zwei|drei|vier|\d+)\s+(?:\w+\s+)?"
        + _REL
        + r"\b.*)",
        "Hat {obj}",
        _REL_T,
    ),
    _r(
        "family",
        r"ich\s+bin\s+(?P<obj>verheiratet|ledig|geschieden|verwitwet|verlobt|single)",
        "Ist {obj}",
        "verheiratet ledig geschieden verwitwet verlobt single",
        slot="family.relationship",
        group="relationship",
    ),
    # constraints
    _r(
        "constraint",
        r"ich\s+bin\s+(?:allergisch\s+gegen\s+(?P<obj>.+))",
        "Ist allergisch gegen {obj}",
        "allergisch",
        group="allergy",
    ),
    _r(
        "constraint",
        r"ich\s+bin\s+gegen\s+(?P<obj>.+?)\s+allergisch",
        "Ist allergisch gegen {obj}",
        "allergisch",
        group="allergy",
    ),
    _r(
        "constraint",
        r"ich\s+habe\s+eine\s+(?P<obj>[\wäöüß-]*allergie(?:\s+gegen\s+.+)?)",
        "Hat eine {obj}",
        "allergie nussallergie laktoseintoleranz",
        group="allergy",
        keep_case=True,
    ),
    _r(
        "constraint",
        r"ich\s+bin\s+(?:nicht\s+mehr|kein(?:e)?\s+)\s*(?P<obj>"
        + _DIET
        + r")(?:\s+mehr)?",
        "Ist nicht mehr {obj}",
        _DIET_T,
        "negative",
        slot="constraint.diet",
        group="diet",
    ),
    _r(
        "constraint",
        r"ich\s+bin\s+(?P<obj>"
        + _DIET
        + r"|zöliakiekrank|diabetiker(?:in)?|laktoseintolerant|glutenintolerant|farbenblind|blind|gehörlos)",
        "Ist {obj}",
        _DIET_T
        + " zöliakiekrank diabetiker diabetikerin laktoseintolerant glutenintolerant farbenblind blind gehörlos",
        slot=_diet_slot,
        group="diet",
    ),
    _r(
        "constraint",
        r"ich\s+(?P<verb>esse|trinke)\s+(?P<neg>kein(?:e|en)?|nie|nicht)\s+(?P<obj>.+)",
        {"trinke": "Trinkt {neg} {obj}", "": "Isst {neg} {obj}"},
        "esse trinke",
        "negative",
        group="food",
    ),
    _r(
        "constraint",
        r"(?:mein\s+budget\s+(?:ist|liegt\s+bei|beträgt)|ich\s+habe\s+ein\s+budget\s+von)\s+(?P<obj>.+)",
        "Sein Budget liegt bei {obj}",
        "budget",
        slot="constraint.budget",
    ),
    _r(
        "constraint",
        r"(?:ich\s+bin|wir\s+sind)\s+(?:noch\s+)?(?:auf|an)\s+(?P<obj>.+?)\s+(?:festgelegt|gebunden|beschränkt|angewiesen|festgenagelt|hängen\s+geblieben)",
        "Ist auf {obj} festgelegt",
        "festgelegt gebunden beschränkt angewiesen festgenagelt geblieben",
        group="platform",
    ),
    _r(
        "constraint",
        r"ich\s+(?:kann|darf)\s+(?P<obj>.+?)\s+nicht\s+(?P<verb>aktualisieren|updaten|upgraden|verwenden|benutzen|installieren)",
        {
            "verwenden": "Kann {obj} nicht verwenden",
            "benutzen": "Kann {obj} nicht verwenden",
            "installieren": "Kann {obj} nicht installieren",
            "": "Kann {obj} nicht aktualisieren",
        },
        "aktualisieren updaten upgraden verwenden benutzen installieren",
        "negative",
        group="platform",
    ),
    # standing instructions
    _r(
        "instruction",
        r"(?:bitte\s+)?(?:immer\s+)?(?:antworte|antworten\s+sie|schreib|schreibe|sprich|rede)(?:\s+mir|\s+mit\s+mir)?\s+(?:bitte\s+)?(?:immer\s+)?(?:nur\s+)?(?:auf|in)\s+(?P<obj>"
        + _LANG
        + r")",
        "Möchte Antworten auf {obj}",
        _LANG_T,
        slot="instruction.language",
        group="instruction",
    ),
    _r(
        "instruction",
        r"(?:antworte|schreib|schreibe|sprich)\s+(?:bitte\s+)?nicht\s+mehr\s+(?:auf|in)\s+(?P<obj>"
        + _LANG
        + r")",
        "Möchte keine Antworten mehr auf {obj}",
        _LANG_T,
        "negative",
        slot="instruction.language",
        group="instruction",
    ),
    _r(
        "instruction",
        r"(?:verwende|benutze|nutze)\s+(?:bitte\s+)?(?:keine|keinen|kein|nie)\s+(?P<obj>.+)",
        "Möchte keine {obj}",
        "verwende benutze nutze",
        "negative",
        group="instruction",
        keep_case=True,
    ),
    _r(
        "instruction",
        r"^(?:bitte\s+)?keine\s+(?P<obj>emojis?|smileys|floskeln|fachbegriffe)\b",
        "Möchte keine {obj}",
        "keine",
        "negative",
        group="instruction",
        keep_case=True,
    ),
    _r(
        "instruction",
        r"(?:bitte\s+)?(?:immer\s+)?(?:sei|antworte)\s+(?:bitte\s+)?(?:immer\s+)?(?P<obj>kurz|knapp|direkt|förmlich|formell|locker|ausführlich)",
        "Möchte {obj}e Antworten",
        "sei antworte",
        group="instruction",
        slot=lambda o: (
            "instruction.length"
            if o.startswith(("kurz", "knapp", "ausf"))
            else "instruction.tone"
        ),
    ),
    _r(
        "family",
        r"ich\s+bin\s+(?P<obj>(?:Vater|Mutter|Mama|Papa|Oma|Opa)\s+von\s+.+)",
        "Ist {obj}",
        "vater mutter mama papa oma opa",
        group="parent",
        keep_case=True,
    ),
    _r(
        "work",
        r"(?:ich|und)\s+arbeite\s+(?P<obj>von\s+zu\s+Hause(?:\s+aus)?|remote|im\s+Homeoffice|in\s+Teilzeit|Vollzeit|nachts|im\s+Schichtdienst)",
        "Arbeitet {obj}",
        "arbeite",
        group="field",
    ),
    _r(
        "constraint",
        r"ich\s+habe\s+(?P<obj>Zöliakie|Diabetes|Asthma|ADHS|Epilepsie|Migräne|eine\s+\w*[Ii]ntoleranz)",
        "Hat {obj}",
        "zöliakie diabetes asthma adhs epilepsie migräne intoleranz laktoseintoleranz",
        group="health",
        keep_case=True,
    ),
    _r(
        "work",
        r"ich\s+studiere\s+(?P<obj>.+)",
        "Studiert {obj}",
        "studiere",
        group="field",
        keep_case=True,
    ),
    # stack and projects
    _r(
        "stack",
        r"(?:ich|wir)\s+(?:verwende|benutze|nutze|verwenden|benutzen|nutzen)\s+(?:kein|keine|keinen|nie)\s+(?P<obj>.+)",
        "Verwendet kein {obj}",
        "verwende benutze nutze verwenden benutzen nutzen",
        "negative",
        choice=True,
    ),
    _r(
        "stack",
        r"wir\s+(?:verwenden|benutzen|nutzen|setzen)\s+(?P<obj>.+?)(?:\s+ein)?$",
        "Verwenden {obj}",
        "verwenden benutzen nutzen setzen",
        choice=True,
        keep_case=True,
    ),
    _r(
        "stack",
        r"ich\s+(?:verwende|benutze|nutze)\s+(?P<obj>.+)",
        "Verwendet {obj}",
        "verwende benutze nutze",
        choice=True,
        keep_case=True,
    ),
    _r(
        "stack",
        r"unser\s+(?P<what>backend|frontend|stack|server|projekt|produkt|datenbank|app|infrastruktur)\s+(?P<verb>ist|läuft\s+auf|nutzt|verwendet|basiert\s+auf|ist\s+in)\s+(?P<obj>.+)",
        "Ihr {what} {verb} {obj}",
        "backend frontend stack server projekt produkt datenbank app infrastruktur",
        keep_case=True,
    ),
    _r(
        "stack",
        r"ich\s+(?P<verb>baue|entwickle|programmiere|arbeite\s+an)\s+(?P<obj>(?:ein|eine|einen|einem|einer|meine|mein|meinem|meiner)\s+.+)",
        {
            "baue": "Baut {obj}",
            "entwickle": "Entwickelt {obj}",
            "programmiere": "Programmiert {obj}",
            "": "Arbeitet an {obj}",
        },
        "baue entwickle programmiere arbeite",
        group="project",
        keep_case=True,
    ),
    # goals and plans
    _r(
        "goal",
        r"ich\s+(?:will|möchte|moechte)\s+(?P<obj>.+)",
        "Möchte {obj}",
        "will möchte moechte",
        accept=_infinitive_last,
        keep_case=True,
    ),
    _r(
        "goal",
        r"ich\s+(?P<verb>plane|habe\s+vor|hoffe)\s+(?:,\s*)?(?P<obj>.+)",
        {"hoffe": "Hofft {obj}", "": "Plant {obj}"},
        "plane vor hoffe",
        keep_case=True,
    ),
    _r(
        "goal",
        r"mein\s+(?P<what>ziel|traum|plan)\s+ist\s+(?:es\s+)?(?P<obj>.+)",
        "Sein {what} ist {obj}",
        "ziel traum plan",
        keep_case=True,
    ),
    _r(
        "goal",
        r"ich\s+lerne\s+(?:gerade\s+)?(?P<obj>.+)",
        "Lernt {obj}",
        "lerne",
        keep_case=True,
    ),
    # notable events
    _r(
        "event",
        r"ich\s+bin\s+(?P<obj>(?:gerade|kürzlich|letzte\s+Woche|gestern)\s+(?:aus|von)\s+.+?\s+zur[üu]ckgekommen)",
        "Ist {obj}",
        "zurückgekommen zuruckgekommen",
        keep_case=True,
    ),
    _r(
        "event",
        r"ich\s+habe\s+(?P<obj>(?:gerade\s+|kürzlich\s+|letztes\s+Jahr\s+|letzten\s+Monat\s+)?(?:geheiratet|bei\s+.+?\s+angefangen|meinen\s+Abschluss\s+gemacht|ein\s+Baby\s+bekommen))",
        "Hat {obj}",
        "geheiratet angefangen abschluss baby",
        keep_case=True,
    ),
    _r(
        "event",
        r"ich\s+bin\s+(?P<obj>(?:gerade\s+|kürzlich\s+|letztes\s+Jahr\s+)?(?:in\s+Rente\s+gegangen|Vater\s+geworden|Mutter\s+geworden|befördert\s+worden))",
        "Ist {obj}",
        "rente vater mutter befördert",
        keep_case=True,
    ),
    # preferences
    _r(
        "preference",
        r"ich\s+mag\s+(?P<obj>.+?)\s+nicht\b",
        "Mag {obj} nicht",
        "mag",
        "negative",
        group="choice",
        keep_case=True,
    ),
    _r(
        "preference",
        r"ich\s+mag\s+(?P<neg>kein(?:e|en)?)\s+(?P<obj>.+)",
        "Mag {neg} {obj}",
        "mag",
        "negative",
        group="choice",
        keep_case=True,
    ),
    _r(
        "preference",
        r"ich\s+hasse\s+(?P<obj>.+)",
        "Hasst {obj}",
        "hasse",
        "negative",
        group="choice",
        keep_case=True,
    ),
    _r(
        "preference",
        r"ich\s+(?P<verb>mag|liebe)\s+(?P<obj>.+)",
        {"liebe": "Liebt {obj}", "": "Mag {obj}"},
        "mag liebe",
        group="choice",
        keep_case=True,
    ),
    _r(
        "preference",
        r"ich\s+bevorzuge\s+(?P<obj>.+)",
        "Bevorzugt {obj}",
        "bevorzuge",
        group="choice",
        choice=True,
        keep_case=True,
    ),
)
