"""What no rule reads: a clause in which the user says something about themselves, kept as
they said it (`Said: "…"`); clauses that leave out their subject; a statement followed by a
question in the same sentence; and what none of these may keep (the turn's task, other
people, quotations, the assistant)."""

from __future__ import annotations

import pytest

from memtap.engine.extraction.extract import extract_facts
from memtap.engine.extraction.self_statement import self_statement
from memtap.engine.supersession.conflict import claim_of
from memtap.engine.types import ExtractedFact


def facts(text: str) -> list[ExtractedFact]:
    return extract_facts(text, "user")


def said(text: str) -> list[tuple[str, str, str]]:
    return [
        (f.family, f.polarity, f.content)
        for f in facts(text)
        if f.content.startswith('Said: "')
    ]


@pytest.mark.parametrize(
    ("text", "family", "polarity", "content"),
    [
        (
            "I go climbing 3x a week at the bouldering gym near my office, my forearms are dying",
            "habit",
            "positive",
            'Said: "I go climbing 3x a week at the bouldering gym near my office"',
        ),
        (
            "i get migraines from bright screens so I use dark mode on literally everything",
            "constraint",
            "positive",
            'Said: "I get migraines from bright screens"',
        ),
        (
            "I'm a sucker for brutalist architecture, any cities in Europe worth a trip for it?",
            "preference",
            "positive",
            'Said: "I\'m a sucker for brutalist architecture"',
        ),
        (
            "Todas las mañanas salgo a correr antes del curro",
            "habit",
            "positive",
            'Said: "Todas las mañanas salgo a correr antes del curro"',
        ),
        (
            "Soy profe de matemáticas en secundaria, ¿me ayudas a preparar un examen?",
            "work",
            "positive",
            'Said: "Soy profe de matemáticas en secundaria"',
        ),
        (
            "Não curto filme de terror de jeito nenhum, me indica uma comédia?",
            "preference",
            "negative",
            'Said: "Não curto filme de terror de jeito nenhum"',
        ),
        (
            "Je vais au boulot à vélo tous les matins, même sous la pluie",
            "habit",
            "positive",
            'Said: "Je vais au boulot à vélo tous les matins, même sous la pluie"',
        ),
        (
            "ich vertrage keine Laktose, bitte beachten",
            "constraint",
            "negative",
            'Said: "Ich vertrage keine Laktose, bitte beachten"',
        ),
        # The words before "and I" share the subject: quoted with it, as said.
        (
            "Meine Frau und ich haben zwei Kinder und einen Hund namens Bruno",
            "family",
            "positive",
            'Said: "Meine Frau und ich haben zwei Kinder und einen Hund namens Bruno"',
        ),
        (
            "Meu marido e eu temos um gato chamado Farofa que manda na casa",
            "family",
            "positive",
            'Said: "Meu marido e eu temos um gato chamado Farofa que manda na casa"',
        ),
    ],
)
def test_a_self_statement_no_rule_reads_is_kept_as_said(
    text: str, family: str, polarity: str, content: str
) -> None:
    assert said(text) == [(family, polarity, content)]


@pytest.mark.parametrize(
    "text",
    [
        # the turn's task, not the user
        "I tried that and I still get the same error every time",
        "I restarted it twice this morning",
        "I think the second option works better for my team",
        "I like the second version better.",
        "I need this done by Friday for my manager",
        "I'm getting a 404 from the deploy every time",
        "I pasted the wrong file, sorry",
        "I meant the Kubernetes one",
        "I will move to Berlin next year if I get the job",
        # speaking to or about the assistant
        "I love your answers about Python",
        "I want you to write my bio: I'm a nurse from Leeds who runs every weekend",
        # not the user
        'My sister says "I go running every morning"',
        "My boss loves golf and plays every weekend",
        "John works at Google and lives in Zurich",
        # questions, hypotheticals, fiction, reports
        "Do I need a visa if I work remotely from Lisbon every winter?",
        "If I lived in Tokyo I'd go to the onsen every weekend",
        "In my novel I play bass in a punk band every weekend",
        "Mi jefe dice que trabajo demasiado los fines de semana",
        # no word of any family
        "I went to the shops and bought some bread",
        "I have a small question about regex",
        # too short to say anything
        "I work.",
    ],
)
def test_what_is_not_a_self_statement_keeps_nothing(text: str) -> None:
    assert said(text) == []


def test_a_rule_fact_keeps_its_clause_from_the_net() -> None:
    # "I live in Lisbon" is read by a rule: no second, quoted copy of it.
    assert [f.content for f in facts("I live in Lisbon")] == ["Lives in Lisbon"]


def test_the_assistant_never_gets_a_self_statement() -> None:
    assert extract_facts("I go climbing 3x a week at the gym", "assistant") == []


def test_a_self_statement_claims_no_slot_and_supersedes_nothing() -> None:
    fact = said("I'm up at 3am most days because I work at a bakery early")
    nurse = claim_of("Is a nurse")
    assert nurse is not None and nurse.slot == "work.role"
    for content in (
        'Said: "I\'m up at 3am most days"',
        'Said: "Soy profe de matemáticas en secundaria"',
        'Said: "I work nights at the hospital"',
    ):
        assert claim_of(content) is None
    assert fact == [] or claim_of(fact[0][2]) is None


def test_the_net_is_bounded() -> None:
    long_clause = "I go climbing " + "and hiking " * 20 + "every weekend"
    assert self_statement(long_clause) is None
    assert self_statement("I go climbing every weekend") is not None


@pytest.mark.parametrize(
    ("text", "family", "content"),
    [
        ("Just moved to Denver last week", "location", "Moved to Denver"),
        ("pescatarian for like 12 years now", "constraint", "Is pescatarian"),
        ("hate cilantro, it tastes like soap to me", "preference", "Hates cilantro"),
        ("working as a nurse in Leeds these days", "work", "nurse"),
        ("allergic to shellfish btw", "constraint", "Is allergic to shellfish"),
    ],
)
def test_a_clause_without_its_subject_is_read_with_it(
    text: str, family: str, content: str
) -> None:
    assert any(
        f.family == family and content.lower() in f.content.lower() for f in facts(text)
    ), facts(text)


@pytest.mark.parametrize(
    "text",
    [
        "Got it, thanks",
        "Switched to the other branch and it works",
        "Never mind",
        "Joined the meeting late",
        "Decided to ignore the warning for now",
        "Like I said, it fails",
        "Going with option B",
        "Using the docker image from before",
        "Stuck on step 3",
        "Retired the old endpoint yesterday",
        "Picked up where we left off",
        "Like the idea",
        "Usually it works",
        "Started the server but it crashes",
        "Moved the file to src",
    ],
)
def test_a_subjectless_remark_about_the_task_keeps_nothing(text: str) -> None:
    assert facts(text) == []


@pytest.mark.parametrize(
    ("text", "needle"),
    [
        ("j'habite à Lyon, dans le 7e, tu connais des bons bouchons ?", "Lyon"),
        (
            "je suis végétarienne depuis 10 ans, tu peux me proposer un plat ?",
            "végétarienne",
        ),
        ("Me llamo Lucía y soy de Valparaíso, ¿me ayudas con una carta?", "Valparaíso"),
        (
            "I just moved to Denver for a new job — any neighborhoods you'd recommend?",
            "Denver",
        ),
    ],
)
def test_a_statement_before_a_question_in_one_sentence_is_read(
    text: str, needle: str
) -> None:
    assert any(needle in f.content for f in facts(text)), facts(text)


@pytest.mark.parametrize(
    "text",
    [
        "Angenommen, ich wohne in Wien – was kostet die Miete?",
        "Suppose I live in Vienna, what would rent cost?",
        "Si vivo en Madrid, ¿cuánto cuesta el alquiler?",
    ],
)
def test_what_follows_a_supposition_in_its_sentence_is_supposed(text: str) -> None:
    assert facts(text) == []


@pytest.mark.parametrize(
    ("text", "polarity", "content"),
    [
        (
            "Metric units always, please. Imperial means nothing to me.",
            "positive",
            'Said: "Metric units always, please"',
        ),
        (
            "From now on bullet points only pls, I read these on my phone between meetings",
            "positive",
            'Said: "From now on bullet points only pls"',
        ),
        (
            "Nada de recomendarme series de miedo, por favor, que luego no duermo.",
            "negative",
            'Said: "Nada de recomendarme series de miedo, por favor"',
        ),
        (
            "Du kannst mich ruhig duzen.",
            "positive",
            'Said: "Du kannst mich ruhig duzen"',
        ),
        (
            "Please don't send me Stack Overflow links, they're blocked on our network.",
            "negative",
            "Said: \"Please don't send me Stack Overflow links, they're blocked on our network\"",
        ),
    ],
)
def test_a_standing_instruction_no_rule_reads_is_kept_as_said(
    text: str, polarity: str, content: str
) -> None:
    assert [
        (f.family, f.polarity, f.content)
        for f in facts(text)
        if f.family == "instruction"
    ] == [("instruction", polarity, content)]


@pytest.mark.parametrize(
    "text",
    [
        "Can you reply to this email?",
        "Reply to Mark politely",
        "Please answer the question below in Spanish",
        "Always the same error in the logs",
    ],
)
def test_an_order_about_this_conversation_is_no_standing_instruction(text: str) -> None:
    assert [f for f in facts(text) if f.content.startswith('Said: "')] == []


@pytest.mark.parametrize(
    ("text", "content"),
    [
        ("Me and my wife Priya hit 10 years in June", "Their wife is called Priya"),
        ("Gift ideas for my twin sister Hannah?", "Their twin sister is called Hannah"),
        (
            "Our golden retriever Biscuit ate a sock AGAIN.",
            "Their golden retriever is called Biscuit",
        ),
    ],
)
def test_a_relative_or_pet_named_is_a_family_fact_even_in_a_question(
    text: str, content: str
) -> None:
    assert content in [f.content for f in facts(text) if f.family == "family"]


def test_who_signs_with_here_is_read_and_a_name_keeps_its_capital() -> None:
    assert "Is a data engineer at Shopify" in [
        f.content for f in facts("Data engineer at Shopify here.")
    ]
    assert [f.content for f in facts("Single dad here, so quick dinners please")] == [
        "Is a single dad"
    ]
    assert [f.content for f in facts("Marco Rossi here.")] == ["Name is Marco Rossi"]
    assert facts("Same here.") == facts("Nobody here knows.") == []


def test_what_a_sentence_says_in_parentheses_is_read_too() -> None:
    assert [
        f.content for f in facts("Book the call for 10am my time (estou em Manaus)")
    ] == ['Said: "Estou em Manaus"']


@pytest.mark.parametrize(
    ("text", "lang"),
    [
        ("I go climbing 3x a week at the gym", "en"),
        ("Todas las mañanas salgo a correr antes del curro", "es"),
        ("Toda sexta eu jogo futsal com o pessoal do trabalho", "pt"),
        ("Je vais au boulot à vélo tous les matins", "fr"),
        ("Ich geh jeden Samstag auf den Wochenmarkt", "de"),
    ],
)
def test_a_self_statement_names_the_language_it_was_said_in(
    text: str, lang: str
) -> None:
    assert [f.lang for f in facts(text)] == [lang]


@pytest.mark.parametrize(
    ("text", "content"),
    [
        (
            "Minha esposa Carolina faz aniversário semana que vem",
            "Their wife (esposa) is called Carolina",
        ),
        (
            "Unser Kater Mogli kotzt ständig, liegt das am Futter?",
            "Their cat (Kater) is called Mogli",
        ),
        (
            "Notre fille Chloé entre en CP en septembre, quoi prévoir ?",
            "Their daughter (fille) is called Chloé",
        ),
        (
            "mi perrita se llama Canela y tiene 3 añitos",
            "Their dog (perrita) is called Canela",
        ),
    ],
)
def test_a_relative_named_in_another_language_is_stored_with_its_english_word(
    text: str, content: str
) -> None:
    # an English question ("What's my wife called?") finds it by its words
    assert content in [f.content for f in facts(text) if f.family == "family"]


def test_a_relative_before_and_is_no_name() -> None:
    assert not [
        f
        for f in facts("Meine Frau und ich haben zwei Kinder")
        if "called" in f.content
    ]


@pytest.mark.parametrize(
    "text",
    [
        "Chapter 1. I was born in a lighthouse off the coast of Maine, the seventh son.",
        "Once upon a time I lived in a castle and loved dragons.",
        "Capítulo 2: Vivo en Madrid con mi gato Rufo.",
        "INT. KITCHEN - NIGHT. I'm a nurse and I hate night shifts.",
    ],
)
def test_a_message_that_opens_like_a_manuscript_is_not_the_user(text: str) -> None:
    assert facts(text) == []


def test_what_is_the_users_own_is_read_without_its_my() -> None:
    assert [f.content for f in facts("pronouns are they/them, thx")] == [
        "Pronouns are they/them"
    ]
    assert [f.content for f in facts("hey, name's Dmitri btw.")] == ["Name is Dmitri"]


def test_a_self_statement_is_quoted_up_to_its_consequence() -> None:
    # what follows "so" is about the task ("this monsoon stuff"), not a reason to drop it all
    assert said(
        "I'm originally from a tiny village in Kerala, so this monsoon stuff is nostalgic"
    ) == [
        (
            "identity",
            "positive",
            'Said: "I\'m originally from a tiny village in Kerala"',
        )
    ]
    assert said("I've got ADHD, so breaking tasks into tiny steps really helps me") == [
        ("constraint", "positive", 'Said: "I\'ve got ADHD"')
    ]


def test_the_net_tries_a_bounded_number_of_clauses_a_message() -> None:
    from memtap.engine.extraction.extract import MAX_NET_TRIES, MAX_RESTATED_CHARS

    routine = "I go climbing 3x a week at the bouldering gym near my office"
    assert said(routine)
    # a pasted text of many clauses: past the limit the net tries no more of them
    filler = ", ".join(["I tried it"] * (MAX_NET_TRIES + 5))
    assert said(f"{filler}, {routine}") == []
    assert said(", ".join(["I tried it"] * (MAX_NET_TRIES - 5)) + ", " + routine)
    # a clause longer than a sentence is read by the rules only
    long_clause = routine + " " + "x" * MAX_RESTATED_CHARS
    assert said(long_clause) == []


@pytest.mark.parametrize(
    "text",
    [
        # searches and titles are not the user with "I'm" left out
        "Vegan lasagna recipe",
        "Pregnant cat care tips",
        "Love Island season 5 recap",
        "Work from home policy template for Acme",
        "Expecting a 200 but got a 404 from Stripe",
        "Moving to Postgres was a mistake",
        # what the user is doing or where they are right now
        "I'm visiting my sister Saturday.",
        "I'm writing a cover letter for a job at Google as a senior engineer",
        "We're deploying the new React frontend to AWS on Friday",
        "I'm at the airport in Denver",
        "Ich schreibe gerade eine Bewerbung bei Siemens",
        "Estoy depurando un fallo en Kubernetes",
        # the task
        "I moved the tests into a separate folder",
        "I started the migration last night",
        "We have a deadline with Acme on Friday",
        "I built a chat app with Flutter",
        "Ich habe einen Termin beim Arzt",
        "Je travaille sur le ticket JIRA-123",
        # one-off requests are no standing instructions
        "Tu peux me recommander un bon resto à Lyon",
        "Kannst du mir ein gutes Buch empfehlen",
        "Respond in JSON only",
        "Bitte antworte meiner Chefin auf die Mail",
        # an aside of a request, a story under a heading
        "Summarize the review (I stayed at the Hilton in Rome for 3 nights)",
        "Thoughts on this?\nChapter 1\nI was born in a lighthouse in Maine in 1902.",
    ],
)
def test_what_a_review_found_kept_keeps_nothing(text: str) -> None:
    assert facts(text) == [], facts(text)


def test_two_named_sisters_are_two_subjects_and_a_weekday_is_no_name() -> None:
    hannah = [
        f for f in facts("My sister Hannah is getting married") if "called" in f.content
    ]
    lea = [f for f in facts("my sister Lea turns 9 tomorrow") if "called" in f.content]
    assert hannah and lea and hannah[0].subject != lea[0].subject
    assert not [
        f for f in facts("I want to teach my son French") if "called" in f.content
    ]


def test_a_heading_that_is_not_a_manuscript_keeps_the_facts_after_it() -> None:
    assert [
        f.content
        for f in facts("Part 2: I'm vegan and I live in Oslo, what should I cook?")
    ] == [
        "Is vegan",
        "Lives in Oslo",
    ]


def test_an_order_after_a_self_statement_is_not_quoted() -> None:
    assert said("I was born in Lagos, write me a poem") == [
        ("identity", "positive", 'Said: "I was born in Lagos"')
    ]
