"""The words of relative dates per language (en, es, pt, fr, de), as data for `dates.py`.

Each language lists: fixed day words (offset in days from the day said), relative periods
(direction × unit, written out because gender and word order differ), number words, unit
words, the "N units ago" / "in N units" frames, weekdays with the frames that name one, and
the markers that make a bare weekday point forward (or, in German, backward).
"""

from __future__ import annotations

from dataclasses import dataclass

Unit = str
"""day | week | weekend | month | year"""


@dataclass(frozen=True, slots=True)
class Language:
    days: dict[str, int]
    """"yesterday" -> -1"""
    periods: dict[str, tuple[Unit, int]]
    """"last weekend" -> ("weekend", -1)"""
    numbers: dict[str, int]
    units: dict[str, Unit]
    ago: tuple[str, ...]
    """Regex frames around `{n}` and `{unit}` for the past."""
    ahead: tuple[str, ...]
    weekdays: dict[str, int]
    """Monday = 0."""
    weekday_frames: tuple[tuple[str, int], ...]
    """Regex frames around `{wd}`: direction -1 (last), +1 (next), 0 (by tense)."""
    future: str
    """Regex: the clause speaks of what is to come (a bare weekday then points forward)."""
    past: str = r"(?!x)x"
    """Regex: the clause speaks of the past, where the bare default is forward (German)."""
    bare_forward: bool = False


def _periods(
    table: dict[int, dict[Unit, tuple[str, ...]]],
) -> dict[str, tuple[Unit, int]]:
    return {
        phrase: (unit, direction)
        for direction, units in table.items()
        for unit, phrases in units.items()
        for phrase in phrases
    }


EN = Language(
    days={
        "today": 0,
        "tonight": 0,
        "this morning": 0,
        "this afternoon": 0,
        "this evening": 0,
        "yesterday": -1,
        "last night": -1,
        "the day before yesterday": -2,
        "tomorrow": 1,
        "the day after tomorrow": 2,
    },
    periods=_periods(
        {
            -1: {
                "week": ("last week", "previous week"),
                "weekend": ("last weekend", "previous weekend"),
                "month": ("last month", "previous month"),
                "year": ("last year", "previous year"),
            },
            0: {
                "week": ("this week",),
                "weekend": ("this weekend",),
                "month": ("this month",),
                "year": ("this year",),
            },
            1: {
                "week": ("next week",),
                "weekend": ("next weekend",),
                "month": ("next month",),
                "year": ("next year",),
            },
        }
    ),
    numbers={
        "a": 1,
        "an": 1,
        "one": 1,
        "a couple of": 2,
        "two": 2,
        "three": 3,
        "four": 4,
        "five": 5,
        "six": 6,
        "seven": 7,
        "eight": 8,
        "nine": 9,
        "ten": 10,
        "eleven": 11,
        "twelve": 12,
    },
    units={
        "day": "day",
        "days": "day",
        "week": "week",
        "weeks": "week",
        "month": "month",
        "months": "month",
        "year": "year",
        "years": "year",
    },
    ago=(r"{n}\s+{unit}\s+ago",),
    ahead=(r"in\s+{n}\s+{unit}", r"{n}\s+{unit}\s+from\s+now"),
    weekdays={
        "monday": 0,
        "tuesday": 1,
        "wednesday": 2,
        "thursday": 3,
        "friday": 4,
        "saturday": 5,
        "sunday": 6,
    },
    weekday_frames=(
        (r"last\s+{wd}", -1),
        (r"next\s+{wd}", 1),
        (r"(?:on\s+|this\s+)?{wd}", 0),
    ),
    future=(
        r"\b(?:will|'ll|shall|going\s+to|gonna|plan(?:s|ning)?\s+to|want(?:s)?\s+to|"
        r"(?:am|'m|are|'re|is|'s)\s+\w+ing)\b"
    ),
)

ES = Language(
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
    periods=_periods(
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
)

PT = Language(
    days={
        "hoje": 0,
        "hoje de manhã": 0,
        "hoje à noite": 0,
        "ontem": -1,
        "anteontem": -2,
        "antes de ontem": -2,
        "amanhã": 1,
        "depois de amanhã": 2,
    },
    periods=_periods(
        {
            -1: {
                "week": ("a semana passada", "semana passada"),
                "weekend": ("o fim de semana passado", "fim de semana passado"),
                "month": ("o mês passado", "mês passado"),
                "year": ("o ano passado", "ano passado"),
            },
            0: {
                "week": ("esta semana", "nesta semana"),
                "weekend": ("este fim de semana", "neste fim de semana"),
                "month": ("este mês", "neste mês"),
                "year": ("este ano", "neste ano"),
            },
            1: {
                "week": ("a próxima semana", "próxima semana", "semana que vem"),
                "weekend": ("o próximo fim de semana", "próximo fim de semana"),
                "month": ("o próximo mês", "próximo mês", "mês que vem"),
                "year": ("o próximo ano", "próximo ano", "ano que vem"),
            },
        }
    ),
    numbers={
        "um": 1,
        "uma": 1,
        "dois": 2,
        "duas": 2,
        "três": 3,
        "tres": 3,
        "quatro": 4,
        "cinco": 5,
        "seis": 6,
        "sete": 7,
        "oito": 8,
        "nove": 9,
        "dez": 10,
    },
    units={
        "dia": "day",
        "dias": "day",
        "semana": "week",
        "semanas": "week",
        "mês": "month",
        "mes": "month",
        "meses": "month",
        "ano": "year",
        "anos": "year",
    },
    ago=(r"h[áa]\s+{n}\s+{unit}", r"{n}\s+{unit}\s+atr[áa]s"),
    ahead=(r"(?:daqui\s+a|dentro\s+de|em)\s+{n}\s+{unit}",),
    weekdays={
        "segunda-feira": 0,
        "segunda": 0,
        "terça-feira": 1,
        "terça": 1,
        "quarta-feira": 2,
        "quarta": 2,
        "quinta-feira": 3,
        "quinta": 3,
        "sexta-feira": 4,
        "sexta": 4,
        "sábado": 5,
        "domingo": 6,
    },
    weekday_frames=(
        (r"(?:n[ao]\s+)?{wd}\s+passad[ao]", -1),
        (r"(?:n[ao]\s+)?próxim[ao]\s+{wd}", 1),
        (r"(?:n[ao]\s+)?{wd}\s+que\s+vem", 1),
        (r"n[ao]\s+{wd}", 0),
    ),
    future=r"\b(?:vou|vais|vai|vamos|vão)\b|\b\w+(?:rei|rás|rá|remos|rão)\b",
)

FR = Language(
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
    periods=_periods(
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

DE = Language(
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
    periods=_periods(
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
)

LANGUAGES: dict[str, Language] = {"en": EN, "es": ES, "pt": PT, "fr": FR, "de": DE}
