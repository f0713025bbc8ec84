"""A relative or pet named in Spanish, Portuguese, French or German ("Minha esposa Carolina",
"Unser Kater Mogli"): a family fact stored in English with the word as said, so a question
asked in English ("What's my wife called?") finds it by its words: `Their wife (esposa) is
called Carolina`. Read in questions too, like the English rule: the name holds whatever is
asked about it.
"""

from __future__ import annotations

from memtap.engine.extraction.rules import Rule, rule
from memtap.engine.languages.pack import LanguagePack, NamedRelatives


def rules_of(pack: LanguagePack) -> tuple[Rule, ...]:
    """The pack's named-relative rule (none when it names none)."""
    named = pack.named_relatives
    if named is None:
        return ()
    return (_named(pack.code, named),)


def _named(lang: str, named: NamedRelatives) -> Rule:
    possessive, words = named.possessive, named.words
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
        r"\s+(?:(?i:" + named.called + r")\s+)?"
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
        examples=tuple((e.said, e.kept) for e in named.examples),
    )
