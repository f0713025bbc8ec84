"""Spanish, Portuguese, French and German: the families and their negations, stored in the
user's language in third person, with the language recorded on the fact."""

from __future__ import annotations

import pytest

from memtap.engine.extraction.extract import extract_facts


def found(text: str) -> set[tuple[str, str, str]]:
    return {(f.family, f.polarity, f.content) for f in extract_facts(text, "user")}


CASES: dict[str, list[tuple[str, str, str, str]]] = {
    "es": [
        ("Me llamo Lucía.", "identity", "positive", "Se llama Lucía"),
        ("Vivo en Sevilla.", "location", "positive", "Vive en Sevilla"),
        ("Ya no vivo en Madrid.", "location", "negative", "Ya no vive en Madrid"),
        ("Trabajo en Telefónica.", "work", "positive", "Trabaja en Telefónica"),
        (
            "Soy profesor de matemáticas.",
            "work",
            "positive",
            "Es profesor de matemáticas",
        ),
        ("Mi hermana es piloto.", "family", "positive", "Su hermana es piloto"),
        (
            "Soy alérgico a los mariscos.",
            "constraint",
            "positive",
            "Es alérgico a los mariscos",
        ),
        ("No como carne de cerdo.", "constraint", "negative", "No come carne de cerdo"),
        (
            "Respóndeme siempre en español.",
            "instruction",
            "positive",
            "Quiere respuestas en español",
        ),
        ("No uses emojis.", "instruction", "negative", "No quiere emojis"),
        (
            "Usamos Django y PostgreSQL.",
            "stack",
            "positive",
            "Usan Django y PostgreSQL",
        ),
        ("Quiero aprender alemán.", "goal", "positive", "Quiere aprender alemán"),
        (
            "Acabo de volver de México.",
            "event",
            "positive",
            "Acaba de volver de México",
        ),
        ("No me gusta el fútbol.", "preference", "negative", "No le gusta el fútbol"),
    ],
    "pt": [
        ("Meu nome é Ana.", "identity", "positive", "Chama-se Ana"),
        ("Moro em Lisboa.", "location", "positive", "Mora em Lisboa"),
        ("Não moro mais no Porto.", "location", "negative", "Não mora mais no Porto"),
        ("Trabalho na Feedzai.", "work", "positive", "Trabalha na Feedzai"),
        ("Sou enfermeiro.", "work", "positive", "É enfermeiro"),
        (
            "Minha filha tem cinco anos.",
            "family",
            "positive",
            "Sua filha tem cinco anos",
        ),
        ("Sou alérgica a amendoim.", "constraint", "positive", "É alérgica a amendoim"),
        (
            "Não como carne vermelha.",
            "constraint",
            "negative",
            "Não come carne vermelha",
        ),
        (
            "Responda sempre em português.",
            "instruction",
            "positive",
            "Quer respostas em português",
        ),
        ("Usamos React e Node.", "stack", "positive", "Usam React e Node"),
        (
            "Quero aprender a tocar violão.",
            "goal",
            "positive",
            "Quer aprender a tocar violão",
        ),
        (
            "Acabei de voltar do Japão.",
            "event",
            "positive",
            "Acabou de voltar do Japão",
        ),
        (
            "Não gosto de reuniões longas.",
            "preference",
            "negative",
            "Não gosta de reuniões longas",
        ),
    ],
    "fr": [
        ("Je m'appelle Julien.", "identity", "positive", "S'appelle Julien"),
        ("J'habite à Lyon.", "location", "positive", "Habite à Lyon"),
        ("Je n'habite plus à Paris.", "location", "negative", "N'habite plus à Paris"),
        ("Je travaille chez Airbus.", "work", "positive", "Travaille chez Airbus"),
        ("Je suis infirmière.", "work", "positive", "Est infirmière"),
        ("Ma femme est architecte.", "family", "positive", "Sa femme est architecte"),
        (
            "Je suis allergique aux fruits à coque.",
            "constraint",
            "positive",
            "Est allergique aux fruits à coque",
        ),
        ("Je ne mange pas de porc.", "constraint", "negative", "Ne mange pas de porc"),
        (
            "Réponds-moi toujours en français.",
            "instruction",
            "positive",
            "Veut des réponses en français",
        ),
        ("N'utilise pas d'emojis.", "instruction", "negative", "Ne veut pas de emojis"),
        (
            "Nous utilisons Symfony et MySQL.",
            "stack",
            "positive",
            "Utilisent Symfony et MySQL",
        ),
        ("Je veux apprendre le piano.", "goal", "positive", "Veut apprendre le piano"),
        (
            "Je viens de rentrer du Japon.",
            "event",
            "positive",
            "Vient de rentrer du Japon",
        ),
        (
            "Je n'aime pas les réunions.",
            "preference",
            "negative",
            "N'aime pas les réunions",
        ),
    ],
    "de": [
        ("Ich heiße Jonas.", "identity", "positive", "Heißt Jonas"),
        ("Ich wohne in Hamburg.", "location", "positive", "Wohnt in Hamburg"),
        (
            "Ich wohne nicht mehr in Berlin.",
            "location",
            "negative",
            "Wohnt nicht mehr in Berlin",
        ),
        ("Ich arbeite bei Siemens.", "work", "positive", "Arbeitet bei Siemens"),
        ("Ich bin Lehrerin.", "work", "positive", "Ist Lehrerin"),
        (
            "Meine Schwester ist Ärztin.",
            "family",
            "positive",
            "Seine Schwester ist Ärztin",
        ),
        (
            "Ich bin allergisch gegen Nüsse.",
            "constraint",
            "positive",
            "Ist allergisch gegen Nüsse",
        ),
        ("Ich esse kein Fleisch.", "constraint", "negative", "Isst kein Fleisch"),
        (
            "Antworte bitte immer auf Deutsch.",
            "instruction",
            "positive",
            "Möchte Antworten auf Deutsch",
        ),
        ("Bitte keine Emojis.", "instruction", "negative", "Möchte keine Emojis"),
        (
            "Wir verwenden Kubernetes und Go.",
            "stack",
            "positive",
            "Verwenden Kubernetes und Go",
        ),
        ("Ich lerne Japanisch.", "goal", "positive", "Lernt Japanisch"),
        ("Ich mag keine Tomaten.", "preference", "negative", "Mag keine Tomaten"),
    ],
}


@pytest.mark.parametrize(
    ("lang", "text", "family", "polarity", "content"),
    [(lang, *case) for lang, cases in CASES.items() for case in cases],
)
def test_families_and_negation_per_language(
    lang: str, text: str, family: str, polarity: str, content: str
) -> None:
    facts = extract_facts(text, "user")
    assert (family, polarity, content) in found(text), facts
    assert {f.lang for f in facts if f.content == content} == {lang}


@pytest.mark.parametrize(
    ("first", "second", "slot"),
    [
        ("Vivo en Madrid.", "Ya no vivo en Madrid.", "location.home"),
        ("Moro em Lisboa.", "Me mudei para o Porto.", "location.home"),
        ("J'habite à Paris.", "Je n'habite plus à Paris.", "location.home"),
        ("Ich arbeite bei SAP.", "Ich arbeite bei Bosch.", "work.employer"),
        ("Sou vegetariano.", "Não sou mais vegetariano.", "constraint.diet"),
    ],
)
def test_updates_share_the_slot_per_language(
    first: str, second: str, slot: str
) -> None:
    old = extract_facts(first, "user")[0]
    new = extract_facts(second, "user")[0]
    assert old.slot == new.slot == slot
    assert old.subject == new.subject == f"slot:{slot}" and old.key != new.key


@pytest.mark.parametrize(
    "text",
    [
        "¿Necesito visado para ir a Japón?",
        "Traduce al inglés: vivo en Madrid y trabajo en un banco.",
        "Si viviera en Tokio, ¿cuánto pagaría de alquiler?",
        "Mi jefe dice que prefiero trabajar solo.",
        "Traduza para o inglês: eu moro em São Paulo.",
        "Se eu morasse em Paris, quanto gastaria?",
        "Traduis en anglais : j'habite à Marseille.",
        "Mon patron dit que je préfère travailler seul.",
        "Übersetze ins Englische: Ich wohne in München.",
        "Wenn ich in Paris wohnen würde, wie viel Miete würde ich zahlen?",
        "Mein Chef sagt, ich bevorzuge Teamarbeit.",
    ],
)
def test_non_facts_per_language(text: str) -> None:
    assert extract_facts(text, "user") == []


@pytest.mark.parametrize(
    ("text", "content"),
    [
        ("Não uso redes sociais.", "Não usa redes sociais"),
        ("No uso Windows.", "No usa Windows"),
        ("Je n'utilise pas de Mac.", "N'utilise pas Mac"),
        ("Wir nutzen kein Docker.", "Verwendet kein Docker"),
    ],
)
def test_a_negated_verb_is_never_read_as_positive(text: str, content: str) -> None:
    assert [(f.polarity, f.content) for f in extract_facts(text, "user")] == [
        ("negative", content)
    ]
    # and where no negative rule exists, a positive rule must not fire on the negated verb
    # (what keeps it is the net for self-statements, quoted as said and negative)
    assert [
        (f.polarity, f.content)
        for f in extract_facts("Ich nutze Docker nicht.", "user")
    ] == [("negative", 'Said: "Ich nutze Docker nicht"')]


def test_portuguese_no_is_not_a_negation() -> None:
    facts = extract_facts("Moro no Rio de Janeiro com minha esposa.", "user")
    assert [(f.polarity, f.content) for f in facts] == [
        ("positive", "Mora no Rio de Janeiro com sua esposa")
    ]
