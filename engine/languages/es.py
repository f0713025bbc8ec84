"""Spanish: the words memtap reads in Spanish (data only; the rule shapes are
`engine/extraction/shapes.py`). Facts are stored in Spanish, third person."""

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
    r"(?:ingenier[oa]|desarrollador(?:a)?|programador(?:a)?|profesor(?:a)?|maestr[oa]|m[eé]dic[oa]|"
    r"enfermer[oa]|diseñador(?:a)?|abogad[oa]|estudiante|periodista|contador(?:a)?|arquitect[oa]|"
    r"cient[ií]fic[oa]|analista|gerente|director(?:a)?|consultor(?:a)?|investigador(?:a)?|"
    r"cociner[oa]|chef|escritor(?:a)?|traductor(?:a)?|piloto|fot[oó]graf[oa]|psic[oó]log[oa]|"
    r"veterinari[oa]|dentista|farmac[eé]utic[oa]|electricista|fontaner[oa]|camarer[oa]|"
    r"vendedor(?:a)?|jubilad[oa]|aut[oó]nom[oa]|freelance|fundador(?:a)?|emprendedor(?:a)?)"
)
_REL = (
    r"(?:esposa|esposo|marido|mujer|pareja|novia|novio|hijo|hija|hijos|hijas|madre|mam[aá]|padre|"
    r"pap[aá]|padres|hermano|hermana|hermanos|hermanas|abuela|abuelo|abuelos|t[ií]a|t[ií]o|primo|"
    r"prima|perro|perra|perros|gato|gata|gatos|mascota|mascotas|loro|conejo|h[aá]mster)"
)
_REL_T = (
    "esposa esposo marido mujer pareja novia novio hijo hija hijos hijas madre mamá mama padre "
    "papá papa padres hermano hermana hermanos hermanas abuela abuelo abuelos tía tia tío tio "
    "primo prima perro perra perros gato gata gatos mascota mascotas loro conejo hámster hamster"
)
_DIET = r"(?:vegetarian[oa]|vegan[oa]|pescetarian[oa]|pescatarian[oa]|flexitarian[oa])"
_LANG = r"(?:espa[ñn]ol|castellano|ingl[eé]s|franc[eé]s|alem[aá]n|portugu[eé]s|italiano|catal[aá]n)"
_LANG_T = "español espanol castellano inglés ingles francés frances alemán aleman portugués portugues italiano catalán catalan"

DATES = DateWords(
    days={
        "hoy": 0,
        "esta mañana": 0,
        "esta tarde": 0,
        "esta noche": 0,
        "ayer": -1,
        "anoche": -1,
        "anteayer": -2,
        "antes de ayer": -2,
        "antier": -2,
        "mañana": 1,
        "pasado mañana": 2,
    },
    periods=periods(
        {
            -1: {
                "week": ("la semana pasada",),
                "weekend": ("el fin de semana pasado", "el finde pasado"),
                "month": ("el mes pasado",),
                "year": ("el año pasado",),
            },
            0: {
                "week": ("esta semana",),
                "weekend": ("este fin de semana", "este finde"),
                "month": ("este mes",),
                "year": ("este año",),
            },
            1: {
                "week": ("la semana que viene", "la próxima semana"),
                "weekend": ("el próximo fin de semana", "el fin de semana que viene"),
                "month": ("el mes que viene", "el próximo mes"),
                "year": ("el año que viene", "el próximo año"),
            },
        }
    ),
    numbers={
        "un": 1,
        "una": 1,
        "dos": 2,
        "tres": 3,
        "cuatro": 4,
        "cinco": 5,
        "seis": 6,
        "siete": 7,
        "ocho": 8,
        "nueve": 9,
        "diez": 10,
    },
    units={
        "día": "day",
        "días": "day",
        "dia": "day",
        "dias": "day",
        "semana": "week",
        "semanas": "week",
        "mes": "month",
        "meses": "month",
        "año": "year",
        "años": "year",
    },
    ago=(r"hace\s+{n}\s+{unit}",),
    ahead=(r"(?:dentro\s+de|en)\s+{n}\s+{unit}",),
    weekdays={
        "lunes": 0,
        "martes": 1,
        "miércoles": 2,
        "miercoles": 2,
        "jueves": 3,
        "viernes": 4,
        "sábado": 5,
        "sabado": 5,
        "domingo": 6,
    },
    weekday_frames=(
        (r"el\s+{wd}\s+pasado", -1),
        (r"el\s+próximo\s+{wd}", 1),
        (r"el\s+{wd}\s+que\s+viene", 1),
        (r"el\s+{wd}", 0),
    ),
    future=r"\b(?:voy|vas|va|vamos|van)\s+a\b|\b\w+(?:ré|rás|rá|remos|rán)\b",
    not_a_date={"mañana": r"(?<!\bla\s)(?<!\bcada\s)(?<!\buna\s)"},
)

NAMED = NamedRelatives(
    possessive=r"(?:mi|nuestr[oa])",
    called=r"se\s+llama",
    words={
        "esposa": "wife",
        "esposo": "husband",
        "marido": "husband",
        "mujer": "wife",
        "pareja": "partner",
        "novio": "boyfriend",
        "novia": "girlfriend",
        "hijo": "son",
        "hija": "daughter",
        "madre": "mother",
        "mamá": "mother",
        "padre": "father",
        "papá": "father",
        "hermano": "brother",
        "hermana": "sister",
        "abuela": "grandmother",
        "abuelo": "grandfather",
        "perro": "dog",
        "perra": "dog",
        "perrita": "dog",
        "perrito": "dog",
        "gato": "cat",
        "gata": "cat",
        "gatito": "cat",
    },
    examples=(E("Mi esposa Lucía es médica.", "Their wife (esposa) is called Lucía"),),
)


# The words that name a fact's family (the net: engine/extraction/self_statement.py).
FAMILY_WORDS = {
    "habit": (
        r"siempre|normalmente|cada|tod[oa]s?\s+(?:l[oa]s)?\s*\w+|fines\s+de\s+semana"
    ),
    "constraint": (
        r"al[ée]rgic\w*|alergia|gl[úu]ten|lactosa|cel[íi]ac\w*|presupuesto|port[áa]til|"
        r"enfermedad"
    ),
    "family": (
        r"esposa|esposo|marido|mujer|novi[oa]|hij[oa]s?|perr\w*|gat[oa]s?|madre|padre|"
        r"herman[oa]s?|casad[oa]"
    ),
    "work": (
        r"trabajo|curro|empresa|ingenier\w*|desarrollador\w*|profe|profesor\w*|m[ée]dic[oa]|"
        r"enfermer\w*|estudiante|jubilad[oa]"
    ),
    "location": (r"vivo|estoy\s+en"),
    "identity": (r"llamo|a[ñn]os|nac[ií]"),
    "instruction": (r"respuestas"),
    "goal": (r"quiero|objetivo|aprendiendo|estudiando|preparando|ahorrando"),
    "stack": (r"usamos"),
    "decision": (r"decidimos|decid[íi]|elegimos|me\s+decid[íi]"),
    "preference": (r"gusta|gustan|encanta|odio|favorit[oa]"),
    "event": (r"acabo\s+de|me\s+cas[ée]|graduad[oa]"),
}


PACK = LanguagePack(
    code="es",
    family_words=FAMILY_WORDS,
    passing=words("en con"),
    empty_words=words("verdad mucho muchísimo nada"),
    clause_ends=r"porque|pero|si\s+(?=\w)",
    name_ends=r"y|pero|de\s+\d",
    scope_words=r"para|en",
    universal_scopes=r"todo|todos?\s+\w+|todas\s+\w+|cualquier\s+\w+",
    i_am=r"soy|somos",
    mail_headers=r"De|Para|Asunto|Enviado",
    reply_lines=r"El .{5,120} escribió:",
    comma_stops=r"yo|y\s+yo|gracias",
    busy=r"estoy",
    deictic_objects=r"esto|este|esta",
    chapters=r"cap[íi]tulo|escena",
    chapter_numbers=r"uno|dos",
    book_parts=r"pr[óo]logo|ep[íi]logo",
    tale_openings=r"[ée]rase\s+una\s+vez",
    stop=(
        r"\s+(?:y\s+(?:yo|mi|trabajo|vivo|soy|tengo)|pero|porque|aunque|donde|desde\s+hace|hace\s+\w+|"
        r"el\s+año\s+pasado|la\s+semana\s+pasada|el\s+mes\s+pasado|ayer|ahora|ya)\b|[,;:(]|\s-\s"
    ),
    role_stop=r"\s+(?:en|para|de\s+[A-Z]|y|pero|desde|con)\b|[,;:(]",
    roles=_ROLES,
    relatives=_REL,
    relative_triggers=_REL_T,
    diets=_DIET,
    languages=_LANG,
    language_triggers=_LANG_T,
    foreign=r"\b(?:e|não|nao|em|você|muito|também|obrigad[oa])\b|ção|ções|ão\b|õe",
    goal_verb_endings=("ar", "er", "ir"),
    not_goals=words("saber preguntar entender ver comprobar confirmar hacer"),
    brief_words=("breve", "conci"),
    subjects=r"yo|mi|mis|nosotros|nuestro|nuestra",
    first_person_verbs=r"soy|estoy|tengo|vivo|trabajo|uso|usamos|prefiero|nac[ií]",
    first_person_endings=("o",),
    negators=frozenset(["no", "nunca", "jamás", "ni"]),
    negations=r"nunca|no\s+(?:me|le|les|tengo|soy|estoy|como|bebo|uso|puedo)",
    aversions=r"odio",
    common=words(
        "yo mi mis el la los las un una y de del al en con por para es soy estoy me que lo se nos muy"
    ),
    fillers=words("y pero pues bueno hola sí si"),
    trailing=("ahora", "ya", "también"),
    joiners=frozenset(["y"]),
    now=r"ahora|hoy\s+en\s+d[ií]a|actualmente|en\s+cambio",
    clause_joiners=words("y pero porque"),
    question_tail=(
        r"(?:me\s+)?(?:puedes|podr[ií]as|ayudas|recomiendas|sabes|conoces)|qu[eé]\s|c[oó]mo|"
        r"d[oó]nde|cu[aá]l"
    ),
    hypothetical_leads=r"y|ahora",
    hypothetical=r"si|supongamos|sup[oó]n|supon|imagina|imaginemos|imag[ií]nate",
    hypothetical_words=words(
        "si supongamos supón supon imagina imaginemos imagínate imaginate"
    ),
    reported=r"dijo|dice\s+que|dicen\s+que|me\s+dijo|según",
    reported_words=words("dijo dice dicen según"),
    request_prefix=r"por\s+favor|puedes|podrías",
    request=r"traduce|traducir|traduzca|resume|resumir|reescribe|escribe|redacta|corrige",
    request_words=words(
        "traduce traducir traduzca resume resumir reescribe escribe redacta corrige"
    ),
    please=r"por\s+favor",
    bans=r"nada\s+de",
    order_negations=r"nunca",
    speaker=r"yo",
    material=r"esto|este|esta",
    creative=r"historia|cuento|poema",
    request_standing=r"siempre",
    order_standing=(
        r"siempre|de\s+ahora\s+en\s+adelante|a\s+partir\s+de\s+ahora|tute[aá]\w*"
    ),
    answer_words=r"respuestas?|cont[ée]st\w*|respond\w*|tute\w*|recomend\w*|sugier\w*",
    about_this=r"correo|esto|eso|esta|este",
    greetings=r"Estimad[oa]s?|Querid[oa]s?|Hola",
    signoffs=r"Saludos|Atentamente|Un\s+saludo",
    payload_words=r"texto|correo|mensaje|carta",
    labels=words("nota"),
    pronouns=words("lo la los las le les"),
    second_person=r"tu|tus|te|ti|usted",
    end_words=words("porque pero si"),
    third_person={"mi": "su", "mis": "sus", "nuestro": "su", "nuestra": "su"},
    self_subjects=r"yo|nosotr[oa]s",
    self_verbs=(
        r"soy|estoy|tengo|vivo|trabajo|uso|usamos|prefiero|odio|juego|salgo|voy|hago|corro|estudio|"
        r"tenemos|vivimos|trabajamos|me\s+(?:llamo|gusta|gustan|encanta|encantan)|no\s+me\s+gusta"
    ),
    possessives=r"mi|mis",
    i_after_and=r"yo",
    frequency=r"tod[oa]s?\s+(?:l[oa]s\s+)?\w+|cada\s+\w+|l[oa]s\s+\w+s",
    not_about_user=(
        r"tu|te|ti|usted|ustedes|esto|eso|esta|este|ello|dice|dijo|código|codigo|archivo|"
        r"pregunta|gracias|perdón|ayuda|hoy|ahora|reuni[óo]n|examen|creo|correo"
    ),
    consequences=r"pero|porque|así\s+que",
    named_relatives=NAMED,
    dates=DATES,
    first_person=(("es ", ("Soy ",)), ("tiene ", ("Tengo ",))),
    phrases=(
        # identity
        P(
            "name",
            r"(?:me\s+llamo|mi\s+nombre\s+es)\s+(?P<obj>.+)",
            "Se llama {obj}",
            "llamo nombre",
            examples=(E("Me llamo Lucía.", "Se llama Lucía"),),
        ),
        P(
            "address_as",
            r"ll[aá]mame\s+(?P<obj>.+)",
            "Quiere que le llamen {obj}",
            "llámame llamame",
            examples=(E("Llámame Pepe.", "Quiere que le llamen Pepe"),),
        ),
        P(
            "origin",
            r"soy\s+(?:de|del)\s+(?P<obj>.+)",
            "Es de {obj}",
            "soy",
            examples=(E("Soy de Perú y vivo en Lima.", "Es de Perú"),),
        ),
        P(
            "age",
            r"tengo\s+(?P<obj>\d{1,3})\s+años",
            "Tiene {obj} años",
            "años",
            examples=(E("Tengo 29 años.", "Tiene 29 años"),),
        ),
        # location
        P(
            "home_left",
            r"ya\s+no\s+vivo\s+en\s+(?P<obj>.+)",
            "Ya no vive en {obj}",
            "vivo",
            examples=(E("Ya no vivo en Madrid.", "Ya no vive en Madrid"),),
        ),
        P(
            "home_left",
            r"no\s+vivo\s+en\s+(?P<obj>.+?)(?:\s+desde\s+hace.*)?$",
            "Ya no vive en {obj}",
            "vivo",
            examples=(
                E("No vivo en Sevilla desde hace años.", "Ya no vive en Sevilla"),
            ),
        ),
        P(
            "home",
            r"(?:yo\s+)?(?:vivo|resido|estoy\s+viviendo)\s+(?:sol[oa]\s+|con\s+(?:mi|mis)\s+[\wáéíóúñ]+\s+)?en\s+(?P<obj>.+)",
            "Vive en {obj}",
            "vivo resido viviendo",
            examples=(E("Vivo en Madrid.", "Vive en Madrid"),),
        ),
        P(
            "home",
            r"(?:me\s+mud[eé]|me\s+he\s+mudado|me\s+acabo\s+de\s+mudar|acabo\s+de\s+mudarme)\s+a\s+(?P<obj>.+)",
            "Se mudó a {obj}",
            "mudé mude mudado mudar mudarme",
            examples=(E("Me mudé a Valencia.", "Se mudó a Valencia"),),
        ),
        # work
        P(
            "employer_left",
            r"ya\s+no\s+trabajo\s+(?:en|para)\s+(?P<obj>.+)",
            "Ya no trabaja en {obj}",
            "trabajo",
            examples=(E("Ya no trabajo en BBVA.", "Ya no trabaja en BBVA"),),
        ),
        P(
            "employer",
            r"(?:trabajo|estoy\s+trabajando)\s+(?:en|para)\s+(?P<obj>.+)",
            "Trabaja en {obj}",
            "trabajo trabajando",
            examples=(E("Trabajo en BBVA.", "Trabaja en BBVA"),),
        ),
        P(
            "field_common",
            r"trabajo\s+(?P<prep>con|en|en\s+el\s+sector\s+de)\s+(?P<obj>[a-záéíóúñ].+)",
            "Trabaja {prep} {obj}",
            "trabajo",
            examples=(
                E(
                    "Soy médica y trabajo en un hospital de Bilbao.",
                    "Trabaja en un hospital de Bilbao",
                ),
            ),
        ),
        P(
            "role",
            r"trabajo\s+como\s+(?P<obj>.+)",
            "Trabaja como {obj}",
            "trabajo",
            examples=(
                E("Trabajo como enfermera en Valencia.", "Trabaja como enfermera"),
            ),
        ),
        P(
            "role",
            r"soy\s+(?:un\s+|una\s+)?(?P<obj>"
            + _ROLES
            + r"(?:\s+(?:de|del)\s+[\w-]+)?)\b",
            "Es {obj}",
            "soy",
            examples=(E("Soy profesor de matemáticas.", "Es profesor de matemáticas"),),
        ),
        P(
            "employer",
            r"soy\s+(?:un\s+|una\s+)?" + _ROLES + r".{0,30}?\s+en\s+(?P<obj>[A-Z].+)",
            "Trabaja en {obj}",
            "soy",
            examples=(E("Soy ingeniera en Telefónica.", "Trabaja en Telefónica"),),
        ),
        P(
            "employer",
            r"(?:empec[eé]|comenc[eé])\s+(?:a\s+trabajar\s+)?en\s+(?P<obj>.+)",
            "Trabaja en {obj}",
            "empecé empece comencé comence",
            examples=(E("Empecé a trabajar en Inditex.", "Trabaja en Inditex"),),
        ),
        # family and pets
        P(
            "relative",
            r"(?P<verb>mi|mis)\s+(?P<obj>"
            + _REL
            + r"\b(?:\s+[A-Z]\w+)?\s+(?:es|son|est[aá]|est[aá]n|trabaja|trabajan|vive|viven|tiene|tienen|se\s+llama|se\s+llaman|estudia|va|van|naci[oó]|juega|hace)\b.+)",
            {"mis": "Sus {obj}", "": "Su {obj}"},
            _REL_T,
            examples=(E("Mi esposa es médica.", "Su esposa es médica"),),
        ),
        P(
            "relative",
            r"tengo\s+(?P<obj>(?:un|una|dos|tres|cuatro|\d+)\s+(?:\w+\s+)?"
            + _REL
            + r"\b.*)",
            "Tiene {obj}",
            _REL_T,
            examples=(E("Tengo dos hijos pequeños.", "Tiene dos hijos pequeños"),),
        ),
        P(
            "relationship",
            r"(?:estoy|soy)\s+(?P<obj>casad[oa]|solter[oa]|divorciad[oa]|viud[oa]|prometid[oa])",
            "Está {obj}",
            "casado casada soltero soltera divorciado divorciada viudo viuda prometido prometida",
            examples=(E("Estoy casado y tengo tres hijos.", "Está casado"),),
        ),
        # constraints
        P(
            "allergy",
            r"soy\s+(?P<adj>al[eé]rgic[oa])\s+a\s+(?P<obj>.+)",
            "Es {adj} a {obj}",
            "alérgico alérgica alergico alergica",
            examples=(E("Soy alérgico a los mariscos.", "Es alérgico a los mariscos"),),
        ),
        P(
            "allergy",
            r"tengo\s+alergia\s+a\s+(?P<obj>.+)",
            "Tiene alergia a {obj}",
            "alergia",
            examples=(E("Tengo alergia a las nueces.", "Tiene alergia a las nueces"),),
        ),
        P(
            "diet_left",
            r"ya\s+no\s+soy\s+(?P<obj>" + _DIET + r")",
            "Ya no es {obj}",
            "vegetariano vegetariana vegano vegana pescetariano pescetariana",
            examples=(E("Ya no soy vegetariana.", "Ya no es vegetariana"),),
        ),
        P(
            "diet",
            r"soy\s+(?P<obj>"
            + _DIET
            + r"|cel[ií]ac[oa]|diab[eé]tic[oa]|intolerante\s+a\s+la\s+lactosa|intolerante\s+al\s+gluten|dalt[oó]nic[oa]|cieg[oa]|sord[oa])",
            "Es {obj}",
            "vegetariano vegetariana vegano vegana pescetariano pescetariana celíaco celíaca celiaco celiaca diabético diabética diabetico diabetica intolerante daltónico daltonico ciego ciega sordo sorda",
            examples=(
                E("Soy intolerante a la lactosa.", "Es intolerante a la lactosa"),
            ),
        ),
        P(
            "food_refused",
            r"(?:no|nunca|jamás)\s+(?P<verb>como|puedo\s+comer|bebo|tomo)\s+(?P<obj>.+)",
            {
                "como": "No come {obj}",
                "puedo comer": "No puede comer {obj}",
                "bebo": "No bebe {obj}",
                "tomo": "No toma {obj}",
                "": "No come {obj}",
            },
            "como comer bebo tomo",
            examples=(E("No como carne.", "No come carne"),),
        ),
        P(
            "budget",
            r"(?:mi\s+presupuesto\s+es|tengo\s+un\s+presupuesto)\s+(?:de\s+)?(?P<obj>.+)",
            "Su presupuesto es de {obj}",
            "presupuesto",
            examples=(
                E("Mi presupuesto es de 500 euros.", "Su presupuesto es de 500 euros"),
            ),
        ),
        P(
            "platform",
            r"(?:estoy|estamos)\s+(?:atascad[oa]s?|limitad[oa]s?|obligad[oa]s?\s+a\s+usar)\s+(?:en|a|con)?\s*(?P<obj>.+)",
            "Está limitado a {obj}",
            "atascado atascada atascados limitado limitada limitados obligado obligados",
            examples=(E("Estoy limitado a Windows.", "Está limitado a Windows"),),
        ),
        P(
            "platform_refused",
            r"no\s+(?:puedo|podemos)\s+(?P<verb>actualizar|usar|instalar)\s+(?P<obj>.+)",
            {
                "actualizar": "No puede actualizar {obj}",
                "instalar": "No puede instalar {obj}",
                "": "No puede usar {obj}",
            },
            "actualizar usar instalar",
            examples=(E("No puedo actualizar Python.", "No puede actualizar Python"),),
        ),
        # standing instructions
        P(
            "reply_language",
            r"(?:por\s+favor,?\s+)?(?:siempre\s+)?(?:resp[oó]nde(?:me)?|contesta(?:me)?|h[aá]blame|escr[ií]beme)\s+(?:siempre\s+)?en\s+(?P<obj>"
            + _LANG
            + r")",
            "Quiere respuestas en {obj}",
            _LANG_T,
            examples=(
                E("Respóndeme siempre en español.", "Quiere respuestas en español"),
            ),
        ),
        P(
            "reply_language_refused",
            r"no\s+(?:me\s+)?(?:respondas|contestes|hables|escribas)\s+(?:m[aá]s\s+)?en\s+(?P<obj>"
            + _LANG
            + r")",
            "No quiere respuestas en {obj}",
            _LANG_T,
            examples=(
                E("No me respondas en inglés.", "No quiere respuestas en inglés"),
            ),
        ),
        P(
            "ban",
            r"(?:por\s+favor,?\s+)?(?:nunca\s+|no\s+)(?:uses|utilices|pongas|incluyas|añadas|metas)\s+(?P<obj>.+)",
            "No quiere {obj}",
            "uses utilices pongas incluyas añadas metas",
            examples=(E("No uses emojis.", "No quiere emojis"),),
        ),
        P(
            "ban",
            r"^(?:por\s+favor,?\s+)?sin\s+(?P<obj>emojis?|emoticonos|jerga|rodeos|relleno)",
            "No quiere {obj}",
            "sin",
            examples=(E("Sin emojis.", "No quiere emojis"),),
        ),
        P(
            "style",
            r"(?:por\s+favor,?\s+)?(?:siempre\s+)?s[eé]\s+(?P<obj>breve|conciso|concisa|directo|directa|formal|claro|clara)",
            "Quiere que el asistente sea {obj}",
            "sé se",
            examples=(E("Sé breve.", "Quiere que el asistente sea breve"),),
        ),
        P(
            "form_of_address",
            r"(?:por\s+favor,?\s+)?(?:h[aá]blame|tr[aá]tame|escr[ií]beme)\s+de\s+(?P<obj>t[uú]|usted|vos)\b",
            "Quiere que le hablen de {obj}",
            "háblame hablame trátame tratame escríbeme escribeme",
            examples=(E("Háblame de tú, por favor.", "Quiere que le hablen de tú"),),
        ),
        P(
            "health",
            r"tengo\s+(?P<obj>celiaqu[ií]a|diabetes|asma|tdah|epilepsia|migra[ñn]as|intolerancia\s+a\s+.+|hipertensi[oó]n)",
            "Tiene {obj}",
            "celiaquía celiaquia diabetes asma tdah epilepsia migrañas migranas intolerancia hipertensión hipertension",
            examples=(E("Tengo celiaquía.", "Tiene celiaquía"),),
        ),
        P(
            "parent",
            r"soy\s+(?P<obj>(?:padre|madre|pap[aá]|mam[aá]|abuel[oa])(?:\s+solter[oa])?\s+de\s+.+)",
            "Es {obj}",
            "padre madre papá papa mamá mama abuelo abuela",
            examples=(
                E("Soy madre soltera de dos niños.", "Es madre soltera de dos niños"),
            ),
        ),
        P(
            "field",
            r"trabajo\s+(?P<obj>desde\s+casa|en\s+remoto|a\s+distancia|por\s+mi\s+cuenta|de\s+noche|a\s+tiempo\s+(?:parcial|completo)|por\s+turnos)",
            "Trabaja {obj}",
            "trabajo",
            examples=(E("Trabajo desde casa.", "Trabaja desde casa"),),
        ),
        P(
            "role_as",
            r"trabajo\s+de\s+(?P<obj>[a-záéíóúñ]+(?:\s+de\s+[a-záéíóúñ]+)?)",
            "Trabaja de {obj}",
            "trabajo",
            examples=(
                E("Trabajo de camarera los fines de semana.", "Trabaja de camarera"),
            ),
        ),
        P(
            "no_relative",
            r"no\s+tengo\s+(?P<obj>coche|carro|hijos|mascotas|hermanos|pareja)\b",
            "No tiene {obj}",
            "tengo",
            examples=(E("No tengo coche.", "No tiene coche"),),
        ),
        # stack and projects
        P(
            "stack_refused",
            r"(?:yo\s+)?no\s+(?:uso|utilizo|usamos|utilizamos)\s+(?P<obj>.+)",
            "No usa {obj}",
            "uso utilizo usamos utilizamos",
            examples=(E("No uso Windows.", "No usa Windows"),),
        ),
        P(
            "stack_choice",
            r"(?P<verb>usamos|utilizamos|trabajamos\s+con)\s+(?P<obj>.+)",
            "Usan {obj}",
            "usamos utilizamos trabajamos",
            examples=(E("Usamos Django y PostgreSQL.", "Usan Django y PostgreSQL"),),
        ),
        P(
            "stack_choice",
            r"(?:yo\s+)?(?:uso|utilizo|programo\s+en)\s+(?P<obj>.+)",
            "Usa {obj}",
            "uso utilizo programo",
            examples=(E("Uso Linux en el trabajo.", "Usa Linux en el trabajo"),),
        ),
        P(
            "stack",
            r"nuestr[oa]\s+(?P<what>backend|frontend|stack|servidor|proyecto|producto|base\s+de\s+datos|aplicaci[oó]n|app|infraestructura)\s+(?P<verb>es|est[aá]\s+(?:hech[oa]|escrit[oa])|usa|corre)\s+(?P<obj>.+)",
            "Su {what} {verb} {obj}",
            "backend frontend stack servidor proyecto producto base aplicación aplicacion app infraestructura",
            examples=(
                E(
                    "Nuestro backend está hecho en Node.",
                    "Su backend está hecho en Node",
                ),
            ),
        ),
        P(
            "project",
            r"estoy\s+(?P<verb>construyendo|desarrollando|creando|haciendo|trabajando\s+en)\s+(?P<obj>(?:un|una|mi)\s+.+)",
            "Está {verb} {obj}",
            "construyendo desarrollando creando haciendo trabajando",
            examples=(
                E(
                    "Estoy construyendo una app para gestionar gastos.",
                    "Está construyendo una app para gestionar gastos",
                ),
            ),
        ),
        # goals and plans
        P(
            "goal_verb",
            r"(?:yo\s+)?quiero\s+(?P<obj>.+)",
            "Quiere {obj}",
            "quiero",
            examples=(E("Quiero aprender alemán.", "Quiere aprender alemán"),),
        ),
        P(
            "goal_verb",
            r"(?P<verb>planeo|pienso|tengo\s+pensado|espero|voy\s+a)\s+(?P<obj>.+)",
            {"espero": "Espera {obj}", "voy a": "Va a {obj}", "": "Planea {obj}"},
            "planeo pienso pensado espero voy",
            examples=(E("Planeo aprender japonés.", "Planea aprender japonés"),),
        ),
        P(
            "goal",
            r"mi\s+(?P<what>objetivo|meta|sueño|plan)\s+es\s+(?P<obj>.+)",
            "Su {what} es {obj}",
            "objetivo meta sueño plan",
            examples=(
                E(
                    "Mi objetivo es correr un maratón.",
                    "Su objetivo es correr un maratón",
                ),
            ),
        ),
        P(
            "goal",
            r"estoy\s+(?P<verb>aprendiendo|estudiando|ahorrando\s+para|prepar[aá]ndome\s+para)\s+(?P<obj>.+)",
            "Está {verb} {obj}",
            "aprendiendo estudiando ahorrando preparándome preparandome",
            examples=(
                E(
                    "Estoy aprendiendo a tocar la guitarra.",
                    "Está aprendiendo a tocar la guitarra",
                ),
            ),
        ),
        # notable events
        P(
            "event",
            r"acabo\s+de\s+(?P<obj>(?!mudarme).+)",
            "Acaba de {obj}",
            "acabo",
            examples=(E("Acabo de volver de México.", "Acaba de volver de México"),),
        ),
        P(
            "event",
            r"(?P<verb>me\s+cas[eé]|me\s+gradu[eé]|me\s+jubil[eé]|volv[ií]\s+de|regres[eé]\s+de|empec[eé]\s+(?:a\s+trabajar\s+)?en|tuve\s+un\s+beb[eé])\b\s*(?P<obj>.*)",
            {
                "me casé": "Se casó {obj}",
                "me case": "Se casó {obj}",
                "me gradué": "Se graduó {obj}",
                "me gradue": "Se graduó {obj}",
                "me jubilé": "Se jubiló {obj}",
                "me jubile": "Se jubiló {obj}",
                "volví de": "Volvió de {obj}",
                "volvi de": "Volvió de {obj}",
                "regresé de": "Regresó de {obj}",
                "regrese de": "Regresó de {obj}",
                "tuve un bebé": "Tuvo un bebé {obj}",
                "tuve un bebe": "Tuvo un bebé {obj}",
                "": "Empezó en {obj}",
            },
            "casé case gradué gradue jubilé jubile volví volvi regresé regrese empecé empece tuve",
            examples=(E("Me casé en junio.", "Se casó en junio"),),
        ),
        # preferences
        P(
            "dislike",
            r"no\s+me\s+(?P<verb>gusta|gustan|encanta|encantan)\s+(?P<obj>.+)",
            {"gustan": "No le gustan {obj}", "": "No le gusta {obj}"},
            "gusta gustan encanta encantan",
            examples=(E("No me gusta el fútbol.", "No le gusta el fútbol"),),
        ),
        P(
            "dislike",
            r"(?P<verb>odio|detesto|no\s+soporto)\s+(?P<obj>.+)",
            {"odio": "Odia {obj}", "detesto": "Detesta {obj}", "": "No soporta {obj}"},
            "odio detesto soporto",
            examples=(
                E(
                    "jajaja q va odio el reguetón tio, me da dolor de cabeza",
                    "Odia el reguetón tio",
                ),
            ),
        ),
        P(
            "like",
            r"(?:a\s+mí\s+)?me\s+(?P<verb>gusta|gustan|encanta|encantan)\s+(?P<obj>.+)",
            {
                "gusta": "Le gusta {obj}",
                "gustan": "Le gustan {obj}",
                "encanta": "Le encanta {obj}",
                "encantan": "Le encantan {obj}",
                "": "Le gusta {obj}",
            },
            "gusta gustan encanta encantan",
            examples=(
                E("Me gusta mucho el café solo.", "Le gusta mucho el café solo"),
            ),
        ),
        P(
            "prefer",
            r"prefiero\s+(?P<obj>.+)",
            "Prefiere {obj}",
            "prefiero",
            examples=(E("Prefiero respuestas cortas.", "Prefiere respuestas cortas"),),
        ),
    ),
)
