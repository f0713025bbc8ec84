"""A relative or pet named in Spanish, Portuguese, French or German ("Minha esposa Carolina",
"Unser Kater Mogli"): a family fact stored in English with the word as said, so a question
asked in English ("What's my wife called?") finds it by its words: `Their wife (esposa) is
called Carolina`. Read in questions too, like the English rule: the name holds whatever is
asked about it.
"""

from __future__ import annotations

from memtap.engine.extraction.rules import Rule, rule

# The user's possessive and the relatives and pets it may name, with their English word.
_WORDS: dict[str, tuple[str, dict[str, str]]] = {
    "es": (
        r"(?:mi|nuestr[oa])",
        {
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
    ),
    "pt": (
        r"(?:meu|minha|nosso|nossa)",
        {
            "esposa": "wife",
            "marido": "husband",
            "mulher": "wife",
            "namorado": "boyfriend",
            "namorada": "girlfriend",
            "filho": "son",
            "filha": "daughter",
            "mãe": "mother",
            "pai": "father",
            "irmão": "brother",
            "irmã": "sister",
            "avó": "grandmother",
            "avô": "grandfather",
            "cachorro": "dog",
            "cachorra": "dog",
            "cão": "dog",
            "gato": "cat",
            "gata": "cat",
        },
    ),
    "fr": (
        r"(?:mon|ma|notre)",
        {
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
    ),
    "de": (
        r"(?:mein|meine|unser|unsere)",
        {
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
    ),
}


# "mi perrita se llama Canela": the name after the verb that gives it.
_CALLED = {
    "es": r"se\s+llama",
    "pt": r"se\s+chama|chamad[oa]",
    "fr": r"s'appelle|nomm[ée]e?",
    "de": r"hei[ßs]t|namens",
}


def _named(lang: str, possessive: str, words: dict[str, str]) -> Rule:
    alternatives = "|".join(sorted(words, key=len, reverse=True))
    said = {  # German nouns are written with their capital
        word: word.capitalize() if lang == "de" else word for word in words
    }
    return rule(
        lang,  # type: ignore[arg-type]
        "family",
        r"(?:^|(?<=[\s,;:(¿¡]))(?i:"
        + possessive
        + r")\s+(?P<rel>(?i:"
        + alternatives
        + r"))"
        r"\s+(?:(?i:" + _CALLED[lang] + r")\s+)?"
        r"(?P<obj>[A-ZÀ-Ý][a-zà-ÿ][\w'-]*)\b(?!\s+[A-ZÀ-Ý])",
        {
            "": "Their {rel} is called {obj}",
            **{
                word: f"Their {english} ({said[word]}) is called {{obj}}"
                for word, english in words.items()
            },
        },
        " ".join(words),
        flags=0,
        key_group="rel",
        group="family_name",
        presupposed=True,
        keep_case=True,
    )


RULES: tuple[Rule, ...] = tuple(
    _named(lang, possessive, words) for lang, (possessive, words) in _WORDS.items()
)
