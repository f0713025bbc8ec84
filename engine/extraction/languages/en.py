"""English rules for the families beyond preference/decision/habit: identity, location, work,
family and pets, constraints, standing instructions, stack and projects, goals, events."""

from __future__ import annotations

import re
from typing import Any

from memtap.engine.extraction.languages.common import (
    ADV,
    I_ANY,
    I_OR_WE,
    IM,
    PLEASE,
    START,
    I,
)
from memtap.engine.extraction.rules import Rule, rule
from memtap.engine.extraction.slots import domain_of

_CAP = r"(?=[A-Z0-9])"  # a proper name follows (checked case-sensitively by `_proper`)
_NAME = re.compile(
    r"^[A-Z][\w'’.-]*(?:\s+(?:[A-Z][\w'’.-]*|de|da|van|von|der|del|la|le|al|bin|ben))*$"
)
_ROLE_WORDS = frozenset(
    [
        "engineer",
        "developer",
        "programmer",
        "dev",
        "devs",
        "coder",
        "scientist",
        "analyst",
        "architect",
        "designer",
        "manager",
        "teacher",
        "professor",
        "lecturer",
        "tutor",
        "nurse",
        "doctor",
        "physician",
        "surgeon",
        "dentist",
        "pharmacist",
        "therapist",
        "psychologist",
        "psychiatrist",
        "lawyer",
        "attorney",
        "paralegal",
        "accountant",
        "auditor",
        "consultant",
        "founder",
        "cofounder",
        "co-founder",
        "ceo",
        "cto",
        "cfo",
        "coo",
        "cmo",
        "vp",
        "director",
        "lead",
        "head",
        "intern",
        "student",
        "freelancer",
        "contractor",
        "writer",
        "author",
        "journalist",
        "editor",
        "translator",
        "researcher",
        "postdoc",
        "phd",
        "economist",
        "banker",
        "trader",
        "chef",
        "cook",
        "baker",
        "waiter",
        "waitress",
        "bartender",
        "barista",
        "pilot",
        "mechanic",
        "electrician",
        "plumber",
        "carpenter",
        "firefighter",
        "officer",
        "soldier",
        "sailor",
        "driver",
        "farmer",
        "artist",
        "musician",
        "photographer",
        "filmmaker",
        "actor",
        "actress",
        "dancer",
        "singer",
        "marketer",
        "recruiter",
        "librarian",
        "veterinarian",
        "vet",
        "paramedic",
        "midwife",
        "pm",
        "po",
        "sre",
        "devops",
        "administrator",
        "admin",
        "sysadmin",
        "tester",
        "qa",
        "specialist",
        "strategist",
        "officer",
        "owner",
        "entrepreneur",
        "nanny",
        "caregiver",
        "clerk",
        "cashier",
        "receptionist",
        "secretary",
        "assistant",
        "technician",
        "illustrator",
        "animator",
        "copywriter",
        "planner",
        "retiree",
        "homemaker",
        "academic",
        "mathematician",
        "statistician",
        "physicist",
        "chemist",
        "biologist",
        "geologist",
        "astronomer",
        "linguist",
        "historian",
        "pastor",
        "priest",
        "rabbi",
        "imam",
        "coach",
        "practitioner",
        "worker",
        "agent",
        "representative",
        "rep",
        "associate",
        "operator",
        "attendant",
        "inspector",
        "broker",
        "realtor",
        "paramedic",
        "hygienist",
        "optometrist",
        "surveyor",
        "lifeguard",
        "trainer",
    ]
)
_NOT_NAMES = frozenset(
    [
        "Canadian",
        "American",
        "British",
        "English",
        "German",
        "French",
        "Spanish",
        "Italian",
        "Brazilian",
        "Indian",
        "Chinese",
        "Japanese",
        "Mexican",
        "Australian",
        "Irish",
        "Scottish",
        "Welsh",
        "Dutch",
        "Polish",
        "Swedish",
        "Norwegian",
        "Danish",
        "Finnish",
        "Russian",
        "Ukrainian",
        "Korean",
        "Turkish",
        "Greek",
        "Portuguese",
        "Swiss",
        "Austrian",
        "Belgian",
        "Vegan",
        "Vegetarian",
        "Here",
        "Back",
        "Done",
        "Ready",
        "Sorry",
        "Good",
        "Fine",
        "Ok",
        "Okay",
        "Sure",
        "New",
        "Home",
        "Confused",
        "Lost",
        "Stuck",
        "Curious",
        "Tired",
        "Happy",
        "Sad",
        "Excited",
        "Glad",
        "Busy",
        "Free",
        "Available",
        "Late",
        "Early",
        "Still",
        "Not",
        "Also",
        "Just",
        "So",
        "Very",
        "Really",
        "Using",
        "On",
        "In",
        "At",
        "From",
        "Working",
        "Going",
        "Trying",
        "Looking",
        "Thinking",
        "Wondering",
    ]
)
_NOT_PLACES = frozenset(
    [
        "Excel",
        "Word",
        "Chrome",
        "Firefox",
        "Safari",
        "Slack",
        "Zoom",
        "Teams",
        "Chapter",
        "Python",
        "Java",
        "JavaScript",
        "TypeScript",
        "Rust",
        "Docker",
        "Kubernetes",
        "Figma",
        "Notion",
        "Jira",
        "GitHub",
        "Discord",
        "Photoshop",
        "Unity",
        "Minecraft",
        "Year",
        "Grade",
        "Class",
        "Section",
        "Step",
        "Part",
        "Level",
        "Stage",
        "Phase",
        "Room",
        "Love",
        "Charge",
        "Trouble",
        "Luck",
        "Pain",
        "Debt",
        "Shock",
        "Bed",
        "Hospital",
        "School",
        "College",
    ]
)
_ROLE_SUFFIXES = ("ologist", "ician", "grapher", "eer", "ist")
_NOT_A_JOB = re.compile(
    r"\b(?:terrible|bad|good|great|awful|decent|amateur|home|hobby|wannabe|aspiring|lazy|picky|"
    r"messy|slow|fast|quick|big|huge|keen|avid|casual|weekend|former|ex|retired)\b",
    re.IGNORECASE,
)
_NOT_ROLES = frozenset(
    ["list", "twist", "fist", "gist", "mist", "wrist", "beginner", "fan", "bit", "lot"]
)
REL = (
    r"(?:wife|husband|partner|spouse|girlfriend|boyfriend|fianc[ée]e?|son|sons|daughter|daughters|"
    r"kid|kids|child|children|baby|toddler|teenager|mom|mum|mother|dad|father|parents|brother|"
    r"brothers|sister|sisters|sibling|siblings|grandma|grandmother|grandpa|grandfather|"
    r"grandparents|grandson|granddaughter|grandkids|grandchildren|aunt|uncle|cousin|cousins|niece|"
    r"teenagers|teens|teenage\s+\w+|toddlers|boys|girls|babies|stepkids|stepchildren|newborn|infant|"
    r"nephew|twins|stepson|stepdaughter|stepmom|stepdad|in-laws|mother-in-law|father-in-law|"
    r"family)"
)
PET = (
    r"(?:dog|dogs|cat|cats|puppy|puppies|kitten|kittens|parrot|hamster|rabbit|bunny|goldfish|"
    r"fish|turtle|tortoise|horse|pony|guinea\s+pigs?|lizard|gecko|snake|bird|birds|budgie|"
    r"ferret|chickens|pet|pets|retriever|labrador|lab|poodle|terrier|beagle|husky|spaniel|shepherd|"
    r"corgi|dachshund|chihuahua|pug|bulldog|collie|greyhound|mutt|tabby|siamese|labradoodle|"
    r"cockapoo|sheepdog|rottweiler|boxer|whippet|schnauzer|doodle)"
)
_REL_TRIGGERS = (
    "wife husband partner spouse girlfriend boyfriend fiance fiancee son sons daughter daughters "
    "kid kids child children baby toddler teenager mom mum mother dad father parents brother "
    "brothers sister sisters sibling siblings grandma grandmother grandpa grandfather "
    "grandparents grandson granddaughter grandkids grandchildren aunt uncle cousin cousins niece "
    "teenagers teens teenage toddlers boys girls babies stepkids stepchildren newborn infant "
    "nephew twins stepson stepdaughter stepmom stepdad laws family"
)
_PET_TRIGGERS = (
    "dog dogs cat cats puppy puppies kitten kittens parrot hamster rabbit bunny goldfish fish "
    "turtle tortoise horse pony guinea pig pigs lizard gecko snake bird birds budgie ferret "
    "chickens pet pets retriever labrador lab poodle terrier beagle husky spaniel shepherd corgi "
    "dachshund chihuahua pug bulldog collie greyhound mutt tabby siamese labradoodle cockapoo "
    "sheepdog rottweiler boxer whippet schnauzer doodle"
)
LANGS = (
    r"(?:English|Spanish|French|German|Portuguese|Italian|Dutch|Japanese|Chinese|Mandarin|"
    r"Cantonese|Korean|Russian|Polish|Swedish|Norwegian|Danish|Finnish|Turkish|Arabic|Hindi|"
    r"Hebrew|Greek|Czech|Ukrainian|Vietnamese|Indonesian|Catalan|Romanian|Hungarian|Thai|"
    r"British\s+English|American\s+English|Brazilian\s+Portuguese|plain\s+English|"
    r"simple\s+English|español|français|deutsch|português)"
)
_LANG_TRIGGERS = (
    "english spanish french german portuguese italian dutch japanese chinese mandarin "
    "cantonese korean russian polish swedish norwegian danish finnish turkish arabic hindi "
    "hebrew greek czech ukrainian vietnamese indonesian catalan romanian hungarian thai "
    "español français deutsch português"
)
_STYLE = re.compile(
    r"\b(?:short|shorter|brief|briefer|concise|terse|succinct|detailed|thorough|long|longer|"
    r"formal|informal|casual|friendly|direct|blunt|polite|simple|plain|technical|jargon|metric|"
    r"imperial|celsius|fahrenheit|british|american|spelling|bullet|bullets|markdown|tables?|"
    r"emojis?|emoticons|tone|language|code\s+comments|comments|examples?|sources|citations|"
    r"steps|summary|summaries|tl;?dr|answers?|responses?|replies|reply|format|units|words|"
    r"sentences?|paragraphs?|headings|headers|snake_case|camelcase|type\s+hints|docstrings|"
    r"apolog\w*|disclaimers?|caveats|sarcasm|humou?r|exclamation|first\s+name|lists?|"
    r"code\s+blocks?|explanations?|questions?|preamble|fluff|filler|word|phrases?|terms?|"
    r"expressions?|friend|human|peer|expert|beginner|five-year-old|child|colleague|mentor|teacher|"
    r"eli5|textbook|robot|corporate|salesy|condescending|patronizing|patronising|"
    r"like\s+I'?m\s+\w+|(?:British|American|Australian|Canadian|plain|simple)\s+English|everything)\b",
    re.IGNORECASE,
)
_STANDING = re.compile(
    r"\b(?:always|never|from\s+now\s+on|going\s+forward|in\s+(?:the\s+)?future|by\s+default|"
    r"every\s+time|whenever|each\s+time|all\s+(?:your\s+)?(?:answers|replies|responses)|"
    r"in\s+general|as\s+a\s+rule|remember|everything)\b",
    re.IGNORECASE,
)
_LENGTH = re.compile(
    r"\b(?:short|shorter|brief|concise|terse|succinct|detailed|thorough|long|longer|length)\b",
    re.IGNORECASE,
)
_TONE = re.compile(
    r"\b(?:formal|informal|casual|friendly|direct|blunt|polite|professional|warm|tone)\b",
    re.IGNORECASE,
)
_DIETS = (
    r"(?:vegetarian|vegan|pescatarian|pescetarian|keto|paleo|carnivore|flexitarian|plant-based|"
    r"on\s+(?:a|the)\s+[\w -]{2,25}?\s+diet)"
)
_TECH = re.compile(
    r"(?-i:[A-Z0-9])|\b(?:python|rust|go|java|node|react|vue|postgres|mysql|sqlite|redis|docker|"
    r"kubernetes|k8s|linux|aws|gcp|azure|terraform|django|flask|rails|kafka|spark|graphql|"
    r"typescript|javascript|php|ruby|swift|kotlin|scala|elixir|haskell|c\+\+|c#|\.net|vim|"
    r"emacs|tabs|spaces)\b",
    re.IGNORECASE,
)
# "I'm running on no sleep": these verbs make a project only with a technical object.
_LOOSE_VERBS = frozenset(
    ["running", "hosting", "training", "self-hosting", "fine-tuning", "making"]
)
_VERBISH = frozenset(
    [
        "uses",
        "is",
        "has",
        "does",
        "makes",
        "pays",
        "was",
        "sucks",
        "sells",
        "builds",
        "lets",
        "wants",
        "needs",
        "gives",
    ]
)
_TASK_VERBS = frozenset(
    [
        "know",
        "ask",
        "understand",
        "see",
        "check",
        "confirm",
        "clarify",
        "find",
        "figure",
        "double",
        "verify",
        "say",
        "thank",
        "share",
        "tell",
        "show",
        "add",
        "change",
        "fix",
        "convert",
        "rename",
        "remove",
        "delete",
        "update",
        "refactor",
        "debug",
        "test",
        "ensure",
        "compare",
        "print",
        "return",
        "call",
        "import",
        "read",
        "look",
        "hear",
        "talk",
        "discuss",
        "continue",
        "stop",
        "generate",
        "implement",
        "install",
        "parse",
    ]
)


def _proper(match: re.Match[str], obj: str) -> bool:
    return obj[:1].isupper() or obj[:1].isdigit()


def _is_name(match: re.Match[str], obj: str) -> bool:
    return bool(_NAME.match(obj)) and len(obj.split()) <= 4


def _role_word(phrase: str) -> bool:
    words = [
        w
        for w in re.findall(r"[a-z][\w-]*", phrase.lower())
        if w not in {"a", "an", "the"}
    ]
    if not words or len(words) > 6:
        return False
    last = words[-1]
    if last in _NOT_ROLES or _NOT_A_JOB.search(phrase):
        return False  # "a terrible cook", "an amateur photographer" are not jobs
    return last in _ROLE_WORDS or last.endswith(_ROLE_SUFFIXES)


def _is_role(match: re.Match[str], obj: str) -> bool:
    return _role_word(_ROLE_STOP.split(obj, maxsplit=1)[0])


def _role_then_org(match: re.Match[str], obj: str) -> bool:
    return _role_word(match.group("role")) and _proper(match, obj)


def is_task(obj: str) -> bool:
    """An object about the task at hand ("fix this bug", "know how"), not a durable fact."""
    first = obj.split(maxsplit=1)[0].lower() if obj else ""
    return (
        first in _TASK_VERBS
        or re.search(r"\b(?:this|that|it|these|those)\b", obj, re.IGNORECASE)
        is not None
    )


def _not_task(match: re.Match[str], obj: str) -> bool:
    first = obj.split(maxsplit=1)[0].lower() if obj else ""
    return first not in _TASK_VERBS and not re.search(
        r"\b(?:this|that|it|these|those)\b", obj, re.IGNORECASE
    )


_BEHAVIOUR = re.compile(
    r"^(?:suggest|suggesting|recommend|recommending|mention|mentioning|assume|assuming|apologi[sz]e|"
    r"apologi[sz]ing|lecture|lecturing|moraliz\w*|sugarcoat\w*|ask(?:ing)?\s+(?:me\s+)?(?:follow-up|clarifying)|"
    r"repeat(?:ing)?\s+(?:the\s+)?question|call(?:ing)?\s+me)\b",
    re.IGNORECASE,
)


def _standing(match: re.Match[str], obj: str) -> bool:
    """A style or behaviour instruction, or any instruction said to hold from now on."""
    return (
        _STYLE.search(obj) is not None
        or _BEHAVIOUR.match(obj) is not None
        or _STANDING.search(match.string) is not None
    )


def _tech(match: re.Match[str], obj: str) -> bool:
    return _TECH.search(obj) is not None


def _instruction_slot(obj: str) -> str | None:
    if _LENGTH.search(obj):
        return "instruction.length"
    if _TONE.search(obj):
        return "instruction.tone"
    return None


def _diet_slot(obj: str) -> str | None:
    return "constraint.diet" if re.search(_DIETS, obj, re.IGNORECASE) else None


_WHEN = (
    r"(?:last|this|next)\s+(?:week|weekend|month|year|summer|winter|spring|fall|autumn)|yesterday|"
    r"recently|\w+\s+(?:days|weeks|months|years)\s+ago|in\s+(?:19|20)\d\d"
)
_ROLE_STOP = re.compile(
    r"\s+(?:at|for|in|with|and|who|from|on|of|since|because|but|so|working|based|living|by|"
    + _WHEN
    + r")\b|,|;|\(|\s-\s",
    re.IGNORECASE,
)
_OBJ_STOP = re.compile(
    r"\s+(?:and\s+(?:I|we|my)|but|because|since|which|so|though|if|who\s+(?:is|are))\b|;|\(|\s-\s|,\s+(?:and\s+)?(?:I|we|my)\b",
    re.IGNORECASE,
)
_NAME_STOP = re.compile(
    r"\s+(?:and|but|from|i|i'm|here|by|btw)\b|,|;|\.|!|\(|\s-\s", re.IGNORECASE
)
_PLACE_STOP = re.compile(
    r"\s+(?:and\s+(?:I|we|my|work|commute)|but|because|since|with\s+my|for\s+(?:work|now|the\s+last|\d+|a\s+few|many|several)|"
    r"where|which|so|though|if|as\s+(?:a|an|the)|" + _WHEN + r")\b|;|\(|\s-\s",
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
    return rule("en", family, rx, template, triggers, polarity, **options)  # type: ignore[arg-type]


NOT_ANY_MORE = r"(?:\s+(?:any\s?more|any\s+longer))?"

RULES: tuple[Rule, ...] = (
    # -- identity ----------------------------------------------------------------------
    _r(
        "identity",
        r"\bmy\s+(?:full\s+|first\s+|real\s+|given\s+)?name(?:\s+is|'s)\s+(?P<obj>.+)",
        "Name is {obj}",
        "name",
        slot="identity.name",
        accept=_is_name,
        stop=_NAME_STOP,
    ),
    _r(
        "identity",
        IM + r"(?:called|named)\s+(?P<obj>.+)",
        "Name is {obj}",
        "called named",
        slot="identity.name",
        accept=_is_name,
        stop=_NAME_STOP,
    ),
    _r(
        "identity",
        r"^(?:hi|hello|hey|hiya|greetings)(?:\s+there)?[,!.]*\s+(?:I'm|I\s+am|this\s+is|it's)\s+(?P<obj>.+)",
        "Name is {obj}",
        "hi hello hey hiya greetings",
        slot="identity.name",
        accept=_is_name,
        stop=_NAME_STOP,
    ),
    _r(
        "identity",
        r"^(?:(?:hi|hello|hey|hiya|so|ok|okay|well)[,!.]*\s+)?(?:I'm|I\s+am)\s+(?P<obj>[A-Z][a-z]+(?:\s+[A-Z][a-z]+)?)(?=\s*(?:[.!,;(-]|$|\band\b|\bhere\b|\bby\s+the\s+way\b|\bbtw\b|\bfrom\b))",
        "Name is {obj}",
        "i",
        slot="identity.name",
        flags=0,
        accept=lambda m, o: o.split()[0] not in _NOT_NAMES,
    ),
    _r(
        "identity",
        r"\b(?:don't|do\s+not|never)\s+call\s+me\s+(?P<obj>.+)",
        "Does not want to be called {obj}",
        "call",
        "negative",
        group="address",
        stop=_NAME_STOP,
    ),
    _r(
        "identity",
        r"\b(?:please\s+)?(?:call|address)\s+me\s+(?:as\s+)?(?P<obj>.+)",
        "Wants to be called {obj}",
        "call address",
        slot="identity.address_as",
        group="address",
        stop=_NAME_STOP,
    ),
    _r(
        "identity",
        START + r"I\s+(?:go|prefer\s+to\s+go)\s+by\s+(?P<obj>.+)",
        "Goes by {obj}",
        "go",
        slot="identity.address_as",
        group="address",
        stop=_NAME_STOP,
    ),
    _r(
        "identity",
        r"\bmy\s+pronouns\s+are\s+(?P<obj>.+)",
        "Pronouns are {obj}",
        "pronouns",
        slot="identity.pronouns",
        stop=_NAME_STOP,
    ),
    _r(
        "identity",
        IM + r"(?P<obj>\d{1,3})(?:\s*(?:years?\s+old|yo|y/o))\b",
        "Is {obj} years old",
        "old yo",
        slot="identity.age",
    ),
    _r(
        "identity",
        IM + ADV + r"from\s+(?P<obj>.+)",
        "Is from {obj}",
        "from",
        slot="identity.origin",
        accept=_proper,
        stop=_PLACE_STOP,
    ),
    _r(
        "identity",
        IM
        + ADV
        + r"(?P<obj>left-handed|right-handed|ambidextrous|an?\s+introvert|an?\s+extrovert|introverted|extroverted|neurodivergent|a\s+night\s+owl|an\s+early\s+bird|a\s+native\s+[A-Z]\w+\s+speaker|bilingual|trilingual)\b",
        "Is {obj}",
        "left right handed ambidextrous introvert extrovert introverted extroverted neurodivergent owl bird native bilingual trilingual",
        group="trait",
    ),
    _r(
        "identity",
        I
        + ADV
        + r"(?:speak|am\s+fluent\s+in|'m\s+fluent\s+in)\s+(?P<obj>"
        + LANGS
        + r"\b.*)",
        "Speaks {obj}",
        _LANG_TRIGGERS,
        group="speaks",
    ),
    _r(
        "identity",
        r"\bmy\s+(?:native|first|mother)\s+(?:language|tongue)\s+is\s+(?P<obj>.+)",
        "Native language is {obj}",
        "native first mother",
        group="speaks",
    ),
    _r(
        "identity",
        IM
        + r"(?P<obj>\d{1,2})(?=\s*(?:$|[,.!;(]|-|\band\b|\bbut\b|\bso\b|\bwith\b|\bfrom\b))",
        "Is {obj} years old",
        "i",
        slot="identity.age",
        group="age",
    ),
    _r(
        "family",
        IM
        + ADV
        + r"(?P<obj>an\s+only\s+child|the\s+(?:eldest|oldest|youngest|middle\s+child)(?:\s+of\s+\w+)?|a\s+twin|one\s+of\s+(?:two|three|four|five|six|\d+)\s+(?:kids|children|siblings|brothers|sisters)|adopted)\b",
        "Is {obj}",
        "only eldest oldest youngest middle twin one adopted",
        group="sibling",
    ),
    # -- location ----------------------------------------------------------------------
    _r(
        "location",
        I
        + ADV
        + r"(?:don'?t|do\s+not|no\s+longer)\s+live\s+in\s+(?P<obj>.+?)"
        + NOT_ANY_MORE
        + r"(?=$|[.,;!])",
        "No longer lives in {obj}",
        "live",
        "negative",
        slot="location.home",
        stop=_PLACE_STOP,
    ),
    _r(
        "location",
        IM
        + r"(?:no\s+longer|not)\s+(?:living|based|located)\s+in\s+(?P<obj>.+?)"
        + NOT_ANY_MORE
        + r"(?=$|[.,;!])",
        "No longer lives in {obj}",
        "living based located",
        "negative",
        slot="location.home",
        stop=_PLACE_STOP,
    ),
    _r(
        "location",
        I + ADV + r"moved\s+(?:away\s+from|out\s+of)\s+(?P<obj>.+)",
        "Moved away from {obj}",
        "moved",
        "negative",
        slot="location.home",
        stop=_PLACE_STOP,
    ),
    _r(
        "location",
        I_OR_WE
        + ADV
        + r"(?P<verb>live|reside)\s+(?:alone\s+|by\s+myself\s+|on\s+my\s+own\s+)?(?:with\s+(?:[\w'-]+\s+){1,4}?)?(?P<prep>(?:just\s+|right\s+)?(?:in|outside(?:\s+of)?|near|close\s+to|next\s+to|by|north\s+of|south\s+of|east\s+of|west\s+of))\s+(?P<obj>.+)",
        "Lives {prep} {obj}",
        "live reside",
        slot="location.home",
        stop=_PLACE_STOP,
        accept=lambda m, o: domain_of(o) is None,
    ),
    _r(
        "location",
        IM
        + ADV
        + r"(?P<verb>living|based|located|staying)\s+(?:in|out\s+of)\s+(?P<obj>.+)",
        {
            "based": "Is based in {obj}",
            "located": "Is based in {obj}",
            "": "Lives in {obj}",
        },
        "living based located staying",
        slot="location.home",
        stop=_PLACE_STOP,
        accept=_proper,
    ),
    _r(
        "location",
        IM
        + r"[^,.;]{1,40},\s+(?:currently\s+|now\s+)?(?P<verb>living|based|located)\s+(?:in|out\s+of)\s+(?P<obj>.+)",
        {"living": "Lives in {obj}", "": "Is based in {obj}"},
        "living based located",
        slot="location.home",
        stop=_PLACE_STOP,
        accept=_proper,
    ),
    _r(
        "location",
        IM
        + ADV
        + r"(?:in|on)\s+(?P<obj>(?:the\s+)?(?:[\w-]+\s+){0,2}?(?:time\s?zone|UTC\s?[+-]\s?\d{1,2}|GMT\s?[+-]?\s?\d{0,2}|(?:CET|CEST|EST|EDT|PST|PDT|CST|BST|IST|JST|AEST)\b(?:\s+time)?))",
        "Is in {obj}",
        "timezone time zone utc gmt cet cest est edt pst pdt cst bst ist jst aest",
        slot="location.timezone",
        group="timezone",
    ),
    _r(
        "location",
        r"^(?:currently\s+|now\s+|still\s+)?(?P<verb>living|based|located)\s+(?:in|out\s+of)\s+(?P<obj>.+)",
        {"living": "Lives in {obj}", "": "Is based in {obj}"},
        "living based located",
        slot="location.home",
        stop=_PLACE_STOP,
        accept=_proper,
    ),
    _r(
        "location",
        IM
        + r"(?:currently\s+|now\s+|still\s+)?(?:in|over\s+in|out\s+in)\s+(?P<obj>[A-Z][\w'.-]+(?:\s+[A-Z][\w'.-]+){0,2}(?:,\s+[A-Z][\w.]+)?)(?=\s*(?:$|[,.!;(]|-|\band\b|\bbut\b|\bso\b|\bfor\b|\bwith\b|\bnow\b|\bat\s+the\s+moment\b))",
        "Is in {obj}",
        "in",
        group="whereabouts",  # no slot: "I'm in Paris" may be a visit, not a new home
        flags=0,
        accept=lambda m, o: domain_of(o) is None and o.split()[0] not in _NOT_PLACES,
    ),
    _r(
        "location",
        I_OR_WE
        + ADV
        + r"(?:just\s+|recently\s+)?(?:moved|relocated)\s+(?:back\s+)?to\s+(?P<obj>.+)",
        "Moved to {obj}",
        "moved relocated",
        slot="location.home",
        stop=_PLACE_STOP,
        accept=_proper,
    ),
    _r(
        "location",
        r"\bmy\s+home(?:\s+base)?\s+is\s+(?:in\s+)?(?P<obj>.+)",
        "Home is {obj}",
        "home",
        slot="location.home",
        stop=_PLACE_STOP,
        accept=_proper,
    ),
    _r(
        "location",
        r"^(?:currently\s+|now\s+)?(?:working|staying|travel+ing)\s+(?:remotely\s+)?(?:from|in)\s+(?P<obj>.+)",
        "Is working from {obj}",
        "working staying traveling travelling",
        group="whereabouts",
        stop=_PLACE_STOP,
        accept=_proper,
    ),
    # -- work --------------------------------------------------------------------------------
    _r(
        "work",
        I_ANY
        + r"(?:'ve|\s*have)\s+(?:been\s+)?work(?:ed|ing)\s+(?P<prep>at|for)\s+(?P<obj>.+)",
        {"for": "Works for {obj}", "": "Works at {obj}"},
        "worked working",
        slot="work.employer",
        group="employer",
        key_group="prep",
        stop=_PLACE_STOP,
        accept=lambda m, o: o.split(maxsplit=1)[0].lower() not in _VERBISH,
    ),
    _r(
        "work",
        I
        + ADV
        + r"(?:don'?t|do\s+not|no\s+longer)\s+work\s+(?:at|for)\s+(?P<obj>.+?)"
        + NOT_ANY_MORE
        + r"(?=$|[.,;!])",
        "No longer works at {obj}",
        "work",
        "negative",
        slot="work.employer",
        group="employer",
        stop=_PLACE_STOP,
    ),
    _r(
        "work",
        I + ADV + r"(?:just\s+)?(?P<verb>left|quit)\s+(?:my\s+job\s+at\s+)?(?P<obj>.+)",
        "Left {obj}",
        "left quit",
        "negative",
        slot="work.employer",
        group="employer",
        accept=_proper,
        stop=_PLACE_STOP,
    ),
    _r(
        "stack",
        r"\b(?:our|my)\s+(?P<what>startup|company|team|group|lab|agency|business|studio)\s+(?P<verb>is\s+building|is\s+developing|builds|makes|develops|is\s+making|sells|is\s+working\s+on|is\s+launching|runs|maintains|ships)\s+(?P<obj>.+)",
        "Their {what} {verb} {obj}",
        "startup company team group lab agency business studio",
        group="project",
    ),
    _r(
        "stack",
        START
        + r"we(?:'re|\s+are)\s+(?P<obj>(?:a|an)\s+[\w.+#/ -]{1,30}?\s+(?:shop|house|team|company|startup|org|organi[sz]ation|agency))\b",
        "Their team is {obj}",
        "shop house team company startup org organization organisation agency",
    ),
    _r(
        "stack",
        START
        + r"(?P<who>I|we)\s+(?:don'?t|do\s+not|no\s+longer|never)\s+(?:use|run|deploy\s+(?:to|on))\s+(?P<obj>.+)",
        {"i": "Does not use {obj}", "we": "Their team does not use {obj}"},
        "use run deploy",
        "negative",
        key_group="who",
        choice=True,
        accept=lambda m, o: _tech(m, o),
    ),
    _r(
        "stack",
        r"\b(?:the|my|our)\s+(?P<what>company|employer|team|startup|org|organi[sz]ation|client|department)\s+(?:I|we)\s+(?:work\s+(?:for|at|with|in)|am\s+in|'m\s+in|'m\s+at)\s+(?P<verb>uses|use|runs\s+on|is\s+on|relies\s+on)\s+(?P<obj>.+)",
        "Their {what} {verb} {obj}",
        "company employer team startup org organization organisation client department",
    ),
    _r(
        "work",
        I
        + ADV
        + r"(?:work|am\s+working|'m\s+working)\s+(?P<prep>at|for)\s+(?P<obj>.+)",
        {"for": "Works for {obj}", "": "Works at {obj}"},
        "work working",
        slot="work.employer",
        group="employer",
        key_group="prep",
        stop=_PLACE_STOP,
        accept=lambda m, o: o.split(maxsplit=1)[0].lower() not in _VERBISH,
    ),
    _r(
        "work",
        IM + r"(?:employed|hired)\s+(?:at|by)\s+(?P<obj>.+)",
        "Works at {obj}",
        "employed hired",
        slot="work.employer",
        group="employer",
        stop=_PLACE_STOP,
    ),
    _r(
        "work",
        IM
        + ADV
        + r"(?:an?|the)\s+(?P<role>[\w+#./ -]{2,60}?)\s+(?:at|for|with)\s+(?P<obj>.+)",
        "Works at {obj}",
        "a an the",
        slot="work.employer",
        group="employer",
        accept=_role_then_org,
        stop=_PLACE_STOP,
    ),
    _r(
        "work",
        I
        + ADV
        + r"(?:just\s+|recently\s+)?(?:started|began|joined|got\s+a\s+(?:new\s+)?job)\s+(?:a\s+new\s+job\s+|working\s+)?(?:at|with|for)?\s*(?P<obj>.+)",
        "Works at {obj}",
        "started began joined job",
        slot="work.employer",
        group="employer",
        accept=_proper,
        stop=_ROLE_STOP,
    ),
    _r(
        "work",
        r"\bwork(?:ing)?\s+(?:at|for)\s+.+?\s+as\s+(?P<obj>(?:an?\s+|the\s+)?.+)",
        "Works as {obj}",
        "work working",
        slot="work.role",
        group="role",
        stop=_ROLE_STOP,
    ),
    _r(
        "work",
        I + ADV + r"work(?:\s+[\w-]+){0,3}?\s+as\s+(?P<obj>.+)",
        "Works as {obj}",
        "work",
        slot="work.role",
        group="role",
        stop=_ROLE_STOP,
    ),
    _r(
        "work",
        r"\bmy\s+(?:job|role|position|title|job\s+title|profession|occupation)\s+is\s+(?P<obj>.+)",
        "Role is {obj}",
        "job role position title profession occupation",
        slot="work.role",
        group="role",
        accept=_is_role,
        stop=_ROLE_STOP,
    ),
    _r(
        "work",
        IM
        + ADV
        + r"(?:[A-Z][a-z]+,\s+)?"
        + ADV
        + r"(?:now\s+)?(?P<obj>(?:an?\s+|the\s+)?[\w+#./-]+.*)",
        "Is {obj}",
        "a an the student freelancer ceo cto intern founder",
        slot="work.role",
        group="role",
        accept=_is_role,
        stop=_OBJ_STOP,
    ),
    _r(
        "work",
        IM
        + ADV
        + r"(?P<obj>retired|unemployed|self-employed|freelancing|between\s+jobs|job\s+hunting|on\s+parental\s+leave)\b",
        "Is {obj}",
        "retired unemployed self employed freelancing between hunting parental",
        slot="work.role",
        group="role",
    ),
    _r(
        "work",
        I + ADV + r"(?:got|was)\s+promoted\s+to\s+(?P<obj>.+)",
        "Is {obj}",
        "promoted",
        slot="work.role",
        group="role",
        stop=_ROLE_STOP,
    ),
    _r(
        "work",
        IM
        + ADV
        + r"(?:on|in|part\s+of)\s+(?:the\s+)?(?P<obj>[\w+#./ -]{1,40}?\s+team)\b",
        "Is on the {obj}",
        "team",
        slot="work.team",
        group="team",
    ),
    _r(
        "work",
        I
        + ADV
        + r"work\s+(?:in|on|with)\s+(?:the\s+)?(?P<obj>[\w+#./ -]{1,40}?\s+team)\b",
        "Is on the {obj}",
        "team",
        slot="work.team",
        group="team",
    ),
    _r(
        "work",
        r"\b(?:my|our)\s+team\s+(?:is|handles|owns|works\s+on)\s+(?P<obj>.+)",
        "Their team is {obj}",
        "team",
        group="team",
        accept=lambda m, o: (
            not o.lower().startswith(("great", "awesome", "small", "big", "busy"))
        ),
    ),
    _r(
        "work",
        I + ADV + r"work\s+in\s+(?P<obj>(?!the\s+\w+\s+team)[\w&/ -]{2,40})",
        "Works in {obj}",
        "work",
        group="field",
        stop=_PLACE_STOP,
    ),
    _r(
        "work",
        I + ADV + r"(?P<verb>teach|tutor|coach)\s+(?P<obj>(?!you\b|me\b|myself\b).+)",
        {"tutor": "Tutors {obj}", "coach": "Coaches {obj}", "": "Teaches {obj}"},
        "teach tutor coach",
        group="field",
        accept=lambda m, o: not is_task(o),
    ),
    _r(
        "work",
        I
        + ADV
        + r"work\s+(?P<obj>remotely|from\s+home|remote|hybrid|part[- ]time|full[- ]time|nights|night\s+shifts|shifts|weekends|(?:\d|one|two|three|four|five|six)\s+days\s+(?:a|per)\s+week|\d+\s+hours\s+(?:a|per)\s+week)\b",
        "Works {obj}",
        "work",
        group="field",
    ),
    _r(
        "work",
        r"\bmy\s+(?:company|employer|startup|business|firm)\s+is\s+(?P<obj>.+)",
        "Their company is {obj}",
        "company employer startup business firm",
        group="employer2",
    ),
    _r(
        "work",
        I
        + ADV
        + r"(?P<verb>run|own|co-own|have|started|founded|manage)\s+(?P<obj>(?:a|an|my|our)\s+(?:[\w'&.-]+\s+){0,3}?(?:shop|business|company|startup|bakery|restaurant|cafe|café|store|agency|practice|clinic|studio|farm|consultancy|firm|salon|gym|bar|brewery|nonprofit|charity|channel|podcast|blog|newsletter|school|shelter|band)\b.*)",
        {
            "run": "Runs {obj}",
            "own": "Owns {obj}",
            "co-own": "Co-owns {obj}",
            "have": "Has {obj}",
            "started": "Started {obj}",
            "founded": "Founded {obj}",
            "manage": "Manages {obj}",
            "": "Runs {obj}",
        },
        "run own co have started founded manage",
        group="business",
    ),
    # -- family and pets ---------------------------------------------------------------
    _r(
        "family",
        r"\b(?:my|our)\s+(?P<obj>(?:(?:older|younger|little|big|eldest|oldest|youngest|twin|baby|new|two|three|four|\d+|\w+-year-old)\s+)?(?:"
        + REL
        + "|"
        + PET
        + r")(?:\s+[A-Z][\w'-]+)?(?:'s|\s+is|\s+are|\s+works|\s+work|\s+lives|\s+live|\s+has|\s+have|\s+was|\s+were|\s+studies|\s+goes|\s+go|\s+turned|\s+turns|\s+got|\s+just|\s+recently|\s+will\s+be|\s+was\s+born|\s+named|\s+called)\b.+)",
        "Their {obj}",
        _REL_TRIGGERS + " " + _PET_TRIGGERS,
        resolvable=False,
        accept=lambda m, o: (
            not re.search(
                r"\b(?:likes?|loves?|prefers?|hates?|wants?|thinks?|says?|said|told|asked|believes?|feels?)\b",
                o,
                re.IGNORECASE,
            )
        ),
    ),
    _r(
        "family",
        I_ANY
        + ADV
        + r"(?:have|'ve\s+got|have\s+got|'ve)\s+(?P<obj>(?:a|an|one|two|three|four|five|six|\d+|twin)\s+(?:[\w'-]+\s+){0,3}?(?:"
        + REL
        + "|"
        + PET
        + r")\b.*)",
        "Has {obj}",
        _REL_TRIGGERS + " " + _PET_TRIGGERS,
        resolvable=True,
    ),
    _r(
        "family",
        I_OR_WE
        + ADV
        + r"(?:have|'ve\s+got|have\s+got)\s+(?P<obj>(?:a|an|one|two|three|\d+)\s+(?:[\w'-]+\s+){1,4}?(?:named|called)\s+[A-Z][\w'-]+.*)",
        "Has {obj}",
        "named called",
        group="family",
        resolvable=True,
    ),
    _r(
        "family",
        START
        + r"(?:my|our)\s+(?P<obj>(?:two|three|four|five|six|\d+)\s+(?:[\w'-]+\s+)?(?:"
        + REL
        + "|"
        + PET
        + r"))\b",
        "Has {obj}",
        _REL_TRIGGERS + " " + _PET_TRIGGERS,
        group="family_count",
    ),
    _r(
        "family",
        START
        + r"we(?:\s+|(?='))(?:have|'ve\s+got)\s+(?P<obj>(?:a|an|one|two|three|four|\d+)\s+(?:[\w'-]+\s+){0,3}?(?:"
        + REL
        + "|"
        + PET
        + r")\b.*)",
        "Has {obj}",
        _REL_TRIGGERS + " " + _PET_TRIGGERS,
        resolvable=True,
    ),
    _r(
        "family",
        I
        + ADV
        + r"(?:don'?t|do\s+not)\s+have\s+(?:any\s+)?(?P<obj>(?:kids|children|pets|siblings|a\s+partner|a\s+car))\b",
        "Does not have {obj}",
        "kids children pets siblings partner car",
        "negative",
    ),
    _r(
        "family",
        IM
        + ADV
        + r"(?P<obj>married|engaged|divorced|single|widowed|separated|in\s+a\s+relationship)\b",
        "Is {obj}",
        "married engaged divorced single widowed separated relationship",
        slot="family.relationship",
        group="relationship",
    ),
    _r(
        "family",
        IM
        + ADV
        + r"(?P<obj>(?:a\s+)?(?:[\w-]+\s+)?(?:mom|mum|mother|dad|father|parent|grandparent|grandma|grandpa|stepmom|stepdad)(?:\s+of\s+.+)?|pregnant|expecting(?:\s+a\s+baby)?)\b",
        "Is {obj}",
        "mom mum mother dad father parent grandparent grandma grandpa stepmom stepdad pregnant expecting",
        group="parent",
    ),
    _r(
        "preference",
        IM
        + ADV
        + r"(?P<neg>not\s+)?(?:really\s+|much\s+of\s+|at\s+all\s+)?(?:a|an)\s+(?P<obj>[\w-]+(?:\s+[\w-]+)?\s+person)\b",
        {"not": "Is not a {obj}", "": "Is a {obj}"},
        "person",
        key_group="neg",
        group="choice",
    ),
    _r(
        "preference",
        IM
        + ADV
        + r"(?P<verb>obsessed\s+with|into|crazy\s+about|passionate\s+about|addicted\s+to|mad\s+about|hooked\s+on|keen\s+on)\s+(?P<obj>.+)",
        "Is {verb} {obj}",
        "obsessed into crazy passionate addicted mad hooked keen",
        group="choice",
        resolvable=True,
    ),
    # -- constraints -------------------------------------------------------------------
    _r(
        "constraint",
        IM
        + r"(?:[\w-]+\s+){0,4}?(?:severely\s+|very\s+|highly\s+|deathly\s+|mildly\s+|also\s+)?(?P<neg>not\s+)?allergic\s+to\s+(?P<obj>.+)",
        {"not": "Is not allergic to {obj}", "": "Is allergic to {obj}"},
        "allergic",
        key_group="neg",
        group="allergy",
    ),
    _r(
        "constraint",
        I
        + ADV
        + r"have\s+(?:a|an|severe|bad|mild)?\s*(?P<obj>[\w -]{1,30}?\s+(?:allergy|allergies|intolerance|sensitivity))\b",
        "Has {obj}",
        "allergy allergies intolerance sensitivity",
        group="allergy",
    ),
    _r(
        "constraint",
        IM
        + r"(?:no\s+longer|not)\s+(?:a\s+)?(?P<obj>"
        + _DIETS
        + r")(?:\s+any\s?more)?",
        "Is no longer {obj}",
        "vegetarian vegan pescatarian pescetarian keto paleo carnivore flexitarian plant diet",
        "negative",
        slot="constraint.diet",
        group="diet",
    ),
    _r(
        "constraint",
        I + ADV + r"(?:stopped|quit)\s+being\s+(?:a\s+)?(?P<obj>" + _DIETS + ")",
        "Is no longer {obj}",
        "stopped quit",
        "negative",
        slot="constraint.diet",
        group="diet",
    ),
    _r(
        "constraint",
        IM
        + ADV
        + r"(?:a\s+)?(?:strict\s+|full\s+|mostly\s+)?(?P<obj>"
        + _DIETS
        + r")\b",
        "Is {obj}",
        "vegetarian vegan pescatarian pescetarian keto paleo carnivore flexitarian plant diet",
        slot="constraint.diet",
        group="diet",
    ),
    _r(
        "constraint",
        I + ADV + r"(?:follow|eat|keep)\s+(?:a|an)\s+(?P<obj>[\w -]{2,25}?\s+diet)\b",
        "Follows a {obj}",
        "diet",
        slot=_diet_slot,
        group="diet",
    ),
    _r(
        "constraint",
        IM
        + ADV
        + r"(?P<obj>(?:lactose|gluten)[\s-]intolerant|gluten-free|celiac|coeliac|diabetic|type\s+[12]\s+diabetic|halal|kosher|sober|teetotal|colou?r-?\s?blind|blind|deaf|hard\s+of\s+hearing|dyslexic|autistic|visually\s+impaired|in\s+a\s+wheelchair|a\s+wheelchair\s+user|epileptic|asthmatic|on\s+medication)\b",
        "Is {obj}",
        "lactose gluten intolerant free celiac coeliac diabetic halal kosher sober teetotal color colour colorblind colourblind blind deaf hearing dyslexic autistic impaired wheelchair epileptic asthmatic medication",
        group="health",
    ),
    _r(
        "constraint",
        I
        + ADV
        + r"(?:have|suffer\s+from|live\s+with)\s+(?P<obj>(?:celiac|coeliac|diabetes|type\s+[12]\s+diabetes|adhd|add|dyslexia|autism|asthma|epilepsy|migraines|arthritis|tinnitus|a\s+(?:bad\s+)?back|a\s+heart\s+condition|high\s+blood\s+pressure|low\s+vision|color\s*blindness|colour\s*blindness|hearing\s+loss|rsi|carpal\s+tunnel|long\s+covid|ibs|crohn's)\b.*)",
        "Has {obj}",
        "have suffer live",
        group="health",
    ),
    _r(
        "constraint",
        I
        + ADV
        + r"(?:use|rely\s+on|need)\s+(?P<obj>(?:a\s+)?(?:screen\s+reader|screenreader|wheelchair|hearing\s+aids?|large\s+(?:fonts?|text)|high\s+contrast|voice\s+control|captions|subtitles)\b.*)",
        "Uses {obj}",
        "screen screenreader wheelchair hearing large high voice captions subtitles",
        group="health",
    ),
    _r(
        "constraint",
        I
        + ADV
        + r"(?P<verb>don'?t|do\s+not|never|can'?t|cannot|can\s+not|won'?t)\s+(?:ever\s+)?(?P<verb2>eat|drink)\s+(?P<obj>.+)",
        {
            "eat": "Does not eat {obj}",
            "drink": "Does not drink {obj}",
            "": "Does not eat {obj}",
        },
        "eat drink",
        "negative",
        group="choice",
        key_group="verb2",
    ),
    _r(
        "constraint",
        I
        + ADV
        + r"(?:can'?t|cannot|can\s+not|shouldn'?t|am\s+not\s+allowed\s+to|'m\s+not\s+allowed\s+to)\s+(?:have|tolerate|digest|handle)\s+(?P<obj>.+)",
        "Cannot have {obj}",
        "have tolerate digest handle",
        "negative",
        group="choice",
        accept=lambda m, o: (
            not re.match(
                r"(?:a|an|the|any|more|much|time|fun|it|that|this)\b", o, re.IGNORECASE
            )
        ),
    ),
    _r(
        "constraint",
        I
        + ADV
        + r"(?:only\s+)?(?:have|own|work\s+on|am\s+on|'m\s+on)\s+(?P<obj>(?:a|an|my)\s+(?:[\w-]+\s+){0,2}?(?:Chromebook|Mac|MacBook|iMac|iPhone|iPad|Android|PC|laptop|Pixel|Galaxy|ThinkPad|Surface|Raspberry\s+Pi|Linux\s+box|Windows\s+(?:laptop|machine|PC))\b.*)",
        "Has {obj}",
        "chromebook mac macbook imac iphone ipad android pc laptop pixel galaxy thinkpad surface raspberry linux windows",
        group="device",
    ),
    _r(
        "constraint",
        IM
        + r"(?P<obj>(?:a|an)\s+(?:Mac|Windows|Linux|Ubuntu|iPhone|Android|Chromebook|iPad|Emacs|Vim)\s+(?:user|person|guy|girl))\b",
        "Is {obj}",
        "user person guy girl",
        group="device",
    ),
    _r(
        "constraint",
        I
        + ADV
        + r"(?:avoid|stay\s+away\s+from|cut\s+out)\s+(?P<obj>(?:gluten|dairy|sugar|alcohol|caffeine|meat|pork|beef|nuts|peanuts|shellfish|seafood|eggs|soy|carbs|lactose)\b.*)",
        "Avoids {obj}",
        "avoid stay cut",
        "negative",
        group="choice",
    ),
    _r(
        "constraint",
        START
        + r"(?:I|we)(?:'m|'re|\s+am|\s+are)\s+on\s+(?P<obj>(?:a|an)\s+(?:\w+\s+)?budget(?:\s+of\s+.+)?)",
        "Is on {obj}",
        "budget",
        slot="constraint.budget",
        group="budget",
    ),
    _r(
        "constraint",
        r"\bmy\s+(?:max(?:imum)?\s+|total\s+|monthly\s+|weekly\s+)?budget\s+(?:is|of)\s+(?P<obj>.+)",
        "Budget is {obj}",
        "budget",
        slot="constraint.budget",
        group="budget",
    ),
    _r(
        "constraint",
        I
        + ADV
        + r"have\s+(?:a|an)\s+(?:max(?:imum)?\s+|total\s+|monthly\s+|weekly\s+)?budget\s+of\s+(?P<obj>.+)",
        "Budget is {obj}",
        "budget",
        slot="constraint.budget",
        group="budget",
    ),
    _r(
        "constraint",
        I
        + ADV
        + r"(?P<verb>can'?t|cannot|can\s+not)\s+(?:afford\s+to\s+)?(?:spend|pay)\s+more\s+than\s+(?P<obj>.+)",
        "Cannot spend more than {obj}",
        "spend pay",
        slot="constraint.budget",
        group="budget",
    ),
    _r(
        "constraint",
        START
        + r"(?:I|we)(?:'m|'re|\s+am|\s+are)\s+(?:still\s+|currently\s+)?(?:stuck|pinned|locked|limited|restricted|tied)\s+(?:on|to|with|into|at)\s+(?P<obj>.+)",
        "Is stuck on {obj}",
        "stuck pinned locked limited restricted tied",
        group="platform",
    ),
    _r(
        "constraint",
        START
        + r"(?:I|we)\s+(?P<verb>can'?t|cannot|can\s+not|aren'?t\s+allowed\s+to|am\s+not\s+allowed\s+to|'m\s+not\s+allowed\s+to|are\s+not\s+allowed\s+to)\s+(?P<verb2>upgrade|update|install|use|run)\s+(?P<obj>.+)",
        {
            "upgrade": "Cannot upgrade {obj}",
            "update": "Cannot update {obj}",
            "install": "Cannot install {obj}",
            "run": "Cannot run {obj}",
            "": "Cannot use {obj}",
        },
        "upgrade update install use run",
        "negative",
        key_group="verb2",
        group="platform",
        accept=_tech,
    ),
    _r(
        "constraint",
        START
        + r"(?:I|we)\s+(?:have|need|must)\s+(?:to\s+)?(?P<verb>support|stay\s+on|target|run\s+on|stick\s+to|be\s+compatible\s+with|deploy\s+on|ship\s+on)\s+(?P<obj>.+)",
        "Has to {verb} {obj}",
        "support stay target run stick compatible deploy ship",
        group="platform",
        accept=_tech,
    ),
    _r(
        "constraint",
        IM
        + ADV
        + r"(?:only\s+)?(?:on|using|running)\s+(?P<obj>(?:an?\s+)?(?:Windows|macOS|Mac|MacBook|Linux|Ubuntu|Debian|Fedora|Arch|NixOS|iOS|iPhone|iPad|Android|ChromeOS|Chromebook|M[1-4]|Intel|AMD|Raspberry\s+Pi|WSL)\b.*)",
        "Is on {obj}",
        "windows macos mac macbook linux ubuntu debian fedora arch nixos ios iphone ipad android chromeos chromebook m intel amd raspberry wsl",
        group="platform",
        choice=True,
    ),
    _r(
        "constraint",
        I
        + ADV
        + r"(?:don'?t|do\s+not)\s+have\s+(?P<obj>(?:admin|root|sudo|internet|a\s+car|a\s+gpu|a\s+credit\s+card|a\s+driver'?s\s+licen[cs]e|access\s+to)\b.*)",
        "Does not have {obj}",
        "have",
        "negative",
        group="platform",
    ),
    # -- standing instructions ---------------------------------------------------------
    _r(
        "instruction",
        PLEASE
        + r"(?:don'?t|do\s+not|stop|no\s+need\s+to)\s+(?:answer|respond|reply|write|talk|speak)(?:ing)?(?:\s+to\s+me)?\s+in\s+(?P<obj>"
        + LANGS
        + r")",
        "Does not want answers in {obj}",
        _LANG_TRIGGERS,
        "negative",
        slot="instruction.language",
        group="instruction",
    ),
    _r(
        "instruction",
        PLEASE
        + r"(?:answer|respond|reply|write|talk|speak|communicate|chat)(?:\s+(?:back\s+)?to\s+me)?(?:\s+(?:always|only))?\s+(?:to\s+me\s+)?in\s+(?P<obj>"
        + LANGS
        + r")\b",
        "Wants answers in {obj}",
        _LANG_TRIGGERS,
        slot="instruction.language",
        group="instruction",
    ),
    _r(
        "instruction",
        r"\b(?:answers?|responses?|replies)\s+(?:should|must)\s+(?:always\s+)?be\s+in\s+(?P<obj>"
        + LANGS
        + r")\b",
        "Wants answers in {obj}",
        _LANG_TRIGGERS,
        slot="instruction.language",
        group="instruction",
    ),
    _r(
        "instruction",
        START
        + r"I\s+(?:want|need|prefer|would\s+like|'d\s+like)\s+(?:you\s+to\s+(?:answer|reply|respond|write)|answers|responses|replies)\s+in\s+(?P<obj>"
        + LANGS
        + r")\b",
        "Wants answers in {obj}",
        _LANG_TRIGGERS,
        slot="instruction.language",
        group="instruction",
    ),
    _r(
        "instruction",
        PLEASE
        + r"no\s+(?:more\s+)?(?P<obj>emojis?|emoticons|jargon|fluff|small\s+talk|disclaimers|apologies|bullet\s+points|markdown|tables|code\s+comments|preambles?|filler|exclamation\s+marks|yapping|lectures|moralizing|caveats)\b.*",
        "Does not want {obj}",
        "no",
        "negative",
        group="instruction",
    ),
    _r(
        "instruction",
        PLEASE
        + r"(?P<verb>don'?t|do\s+not|never|stop|quit|avoid|please\s+don'?t)\s+(?:ever\s+|even\s+|always\s+)?(?P<obj>(?:use|using|add|adding|include|including|put|putting|apologi[sz]e|apologi[sz]ing|say|saying|start|starting|end|ending|repeat|repeating|give|giving|write|writing|explain|explaining|mention|mentioning|suggest|suggesting|recommend|recommending|sugarcoat|lecture|moraliz\w*|be|being|ask|asking|call|calling|make|making|assume|assuming|show|showing|summari[sz]e|summari[sz]ing|emojis?|jargon)\b.*)",
        {
            "avoid": "Wants the assistant to avoid {obj}",
            "": "Does not want the assistant to {obj}",
        },
        "don do not never stop quit avoid",
        "negative",
        group="instruction",
        accept=_standing,
        slot=_instruction_slot,
    ),
    _r(
        "instruction",
        PLEASE
        + r"(?P<obj>(?:keep|be|use|write|format|give|answer|respond|reply|show|include|add|put|start|end|explain|cite|stick\s+to|default\s+to|assume|treat|spell|sign|talk|address|refer\s+to|prefer|limit|cap)\b.+)",
        "Wants the assistant to {obj}",
        "keep be use write format give answer respond reply show include add put start end explain cite stick default assume treat spell sign talk address refer prefer limit cap",
        group="instruction",
        accept=_standing,
        slot=_instruction_slot,
    ),
    _r(
        "instruction",
        START
        + r"I\s+(?:want|need|would\s+like|'d\s+like|expect)\s+you\s+to\s+(?:always\s+)?(?P<obj>.+)",
        "Wants the assistant to {obj}",
        "want need like expect",
        group="instruction",
        accept=_standing,
        slot=_instruction_slot,
    ),
    _r(
        "instruction",
        START
        + r"I(?:'d|\s+would)\s+(?:prefer|like\s+it|rather|appreciate\s+it)\s+if\s+you\s+(?:didn'?t|did\s+not|wouldn'?t|would\s+not|don'?t|do\s+not|never|stopped|stop)\s+(?P<obj>.+)",
        "Does not want the assistant to {obj}",
        "prefer like rather appreciate",
        "negative",
        group="instruction",
    ),
    _r(
        "instruction",
        PLEASE + r"(?:there's\s+)?no\s+need\s+to\s+(?P<obj>.+)",
        "Does not want the assistant to {obj}",
        "need",
        "negative",
        group="instruction",
    ),
    _r(
        "stack",
        r"(?:^(?:[\w ]{1,20}:\s*)?|,\s*)(?:currently\s+|now\s+|also\s+)?(?P<verb>building|developing|working\s+on|maintaining)\s+(?P<obj>(?:a|an|my|our)\s+.+)",
        "Is {verb} {obj}",
        "building developing working maintaining",
        group="project",
        accept=_not_task,
    ),
    _r(
        "instruction",
        PLEASE
        + r"make\s+(?:your\s+|the\s+|all\s+)?(?P<obj>(?:answers|responses|replies|explanations|code|examples|summaries)\s+.+)",
        "Wants the assistant to make {obj}",
        "make",
        group="instruction",
        slot=_instruction_slot,
    ),
    # -- stack and projects ------------------------------------------------------------
    _r(
        "stack",
        START
        + r"(?P<who>I|we)(?:\s+|(?='))"
        + ADV
        + r"(?P<verb>use|are\s+using|'re\s+using|am\s+using|'m\s+using|rely\s+on|run|are\s+running|'re\s+running|(?:deploy|host|run)(?:\s+(?:everything|it\s+all|all\s+of\s+it|our\s+\w+|it|things|stuff))?\s+(?:to|on|with|at|in)|build\s+(?:with|on)|develop\s+(?:with|in)|code\s+in|write|program\s+in|work\s+with|are\s+on|'re\s+on|standardi[sz]ed\s+on)\s+(?P<obj>.+)",
        {"i": "Uses {obj}", "we": "Their team uses {obj}"},
        "use using rely run running deploy host build develop code write program work on standardized standardised",
        key_group="who",
        choice=True,
        resolvable=True,
        accept=lambda m, o: (
            (
                m.group("verb")
                .lower()
                .startswith(
                    ("use", "are using", "'re using", "am using", "'m using", "rely")
                )
                or _tech(m, o)
            )
            and not re.match(
                r"(?:a\s+)?(?:screen\s*reader|wheelchair|hearing)", o, re.IGNORECASE
            )
        ),
    ),
    _r(
        "stack",
        r"\b(?P<who>our|my)\s+(?P<what>(?:main\s+|whole\s+|tech\s+|current\s+|production\s+|new\s+)?(?:stack|tech\s+stack|backend|back-end|frontend|front-end|database|db|api|apis|infra|infrastructure|ci|ci/cd|pipeline|app|apps|application|website|site|service|services|server|servers|cluster|monorepo|codebase|repo|project|product|data\s+warehouse|orm|framework|cloud|hosting|deployment|mobile\s+app|code|models?|platform|web\s+app)(?:\s+\w+)?)\s+(?P<verb>is|are|runs|run|uses|use|'s|lives|sits|is\s+written|is\s+built|are\s+written|are\s+built|was\s+built|was\s+written|is\s+hosted|are\s+hosted|is\s+deployed|are\s+deployed|targets|depends\s+on)\s+(?P<obj>.+)",
        "Their {what} {verb} {obj}",
        "stack backend frontend database db api apis infra infrastructure ci pipeline app apps application website site service services server servers cluster monorepo codebase repo project product warehouse orm framework cloud hosting deployment code model models platform",
        accept=lambda m, o: (
            not re.match(
                r"(?:down|broken|slow|failing|not|great|awesome|a\s+mess|buggy|crashing|giving|throwing|returning)\b",
                o,
                re.IGNORECASE,
            )
        ),
    ),
    _r(
        "stack",
        START
        + r"(?P<who>I|we)(?:'m|'re|\s+am|\s+are)\s+"
        + ADV
        + r"(?P<verb>building|developing|making|writing|creating|working\s+on|maintaining|launching|designing|prototyping|training|fine-tuning|self-hosting|hosting|running|(?:migrating|moving|switching|porting)(?:\s+\w+)?\s+from\s+.+?\s+to|migrating\s+to|moving\s+to|switching\s+to|porting)\s+(?P<obj>.+)",
        {"i": "Is {verb} {obj}", "we": "Their team is {verb} {obj}"},
        "building developing making writing creating working maintaining launching designing prototyping migrating moving porting switching training tuning hosting running",
        key_group="who",
        group="project",
        resolvable=True,
        accept=lambda m, o: (
            _not_task(m, o)
            and not re.match(
                r"(?:a\s+)?(?:\w+\s+)?(?:function|script|query|regex|email|letter|post|essay|list|mistake|progress|dinner|lunch|breakfast|coffee|tea|sure)\b",
                o,
                re.IGNORECASE,
            )
            and (m.group("verb").lower() not in _LOOSE_VERBS or _tech(m, o))
        ),
    ),
    _r(
        "stack",
        r"\bmy\s+(?:side\s+|pet\s+|current\s+|hobby\s+|main\s+|thesis\s+)?project\s+is\s+(?P<obj>.+)",
        "Their project is {obj}",
        "project",
        group="project",
    ),
    # -- goals and plans ---------------------------------------------------------------
    _r(
        "goal",
        I_ANY
        + ADV
        + r"(?P<verb>want|wanna|hope|plan|intend|aim|would\s+love|'d\s+love|would\s+like|'d\s+like|am\s+planning|'m\s+planning|am\s+hoping|'m\s+hoping|am\s+trying|'m\s+trying|am\s+aiming|'m\s+aiming|dream|am\s+determined|'m\s+determined)\s+(?:to\s+|of\s+)(?P<obj>.+)",
        {
            "want": "Wants to {obj}",
            "wanna": "Wants to {obj}",
            "hope": "Hopes to {obj}",
            "plan": "Plans to {obj}",
            "intend": "Intends to {obj}",
            "aim": "Aims to {obj}",
            "would love": "Would love to {obj}",
            "'d love": "Would love to {obj}",
            "would like": "Would like to {obj}",
            "'d like": "Would like to {obj}",
            "am planning": "Is planning to {obj}",
            "'m planning": "Is planning to {obj}",
            "am hoping": "Is hoping to {obj}",
            "'m hoping": "Is hoping to {obj}",
            "am trying": "Is trying to {obj}",
            "'m trying": "Is trying to {obj}",
            "am aiming": "Aims to {obj}",
            "'m aiming": "Aims to {obj}",
            "dream": "Dreams of {obj}",
            "": "Wants to {obj}",
        },
        "want wanna hope plan intend aim love like planning hoping trying aiming dream determined",
        accept=_not_task,
    ),
    _r(
        "goal",
        START
        + r"I(?:'m|\s+am)\s+"
        + ADV
        + r"(?P<verb>going\s+to|gonna)\s+(?P<obj>(?:move|travel|visit|start|begin|retire|graduate|quit|leave|apply|launch|run|get|take|fly|go|learn|study|buy|sell|build|open|have|become|marry|propose|switch\s+careers|change\s+jobs)\b.+)",
        "Is going to {obj}",
        "going gonna",
    ),
    _r(
        "goal",
        START
        + r"I(?:'ll|\s+will)\s+(?P<obj>(?:be\s+moving|be\s+starting|be\s+travel+ing|be\s+visiting|be\s+retiring|be\s+graduating|move|travel|visit|retire|graduate|start\s+(?:a|my)\s+new|fly|relocate)\b.+)",
        "Will {obj}",
        "moving starting traveling travelling visiting retiring graduating move travel visit retire graduate start fly relocate",
    ),
    _r(
        "goal",
        IM + ADV + r"(?P<verb>moving|relocating|emigrating)\s+to\s+(?P<obj>.+)",
        "Is moving to {obj}",
        "moving relocating emigrating",
        stop=_PLACE_STOP,
    ),
    _r(
        "goal",
        r"\bmy\s+(?:main\s+|big\s+|long-term\s+|short-term\s+|ultimate\s+|next\s+|career\s+|fitness\s+|new\s+year'?s?\s+)?(?P<what>goal|goals|plan|plans|dream|aim|objective|resolution|target|ambition)(?:\s+for\s+[\w\s]{2,20}?|\s+(?:this|next|for\s+the)\s+\w+)?\s+(?:is|are)\s+(?P<obj>.+)",
        "Their {what} is {obj}",
        "goal goals plan plans dream aim objective resolution target ambition",
        accept=lambda m, o: (
            not o.lower().startswith(
                ("simple", "this", "that", "to ask", "to know", "to understand")
            )
        ),
    ),
    _r(
        "goal",
        IM
        + ADV
        + r"(?P<verb>learning|studying|preparing\s+for|training\s+for|practicing|practising|saving\s+(?:up\s+)?for|applying\s+(?:to|for)|looking\s+to|getting\s+ready\s+for|working\s+towards?|trying\s+to\s+get)\s+(?P<obj>.+)",
        "Is {verb} {obj}",
        "learning studying preparing training practicing practising saving applying looking getting towards toward",
        accept=_not_task,
    ),
    _r(
        "goal",
        IM
        + ADV
        + r"(?P<verb>thinking\s+(?:of|about)|considering|contemplating)\s+(?P<obj>\w+ing\b.+)",
        "Is {verb} {obj}",
        "thinking considering contemplating",
        accept=_not_task,
    ),
    _r(
        "goal",
        IM
        + ADV
        + r"(?P<verb>planning|organi[sz]ing|booking)\s+(?P<obj>(?:a|an|my|our)\s+(?:[\w-]+\s+){0,2}?(?:trip|holiday|vacation|move|wedding|party|renovation|career\s+change|sabbatical|honeymoon|launch|visit|marathon)\b.*)",
        "Is {verb} {obj}",
        "planning organising organizing booking",
    ),
    _r(
        "goal",
        I_ANY
        + r"(?:'ve\s+|have\s+)?(?:just\s+|recently\s+)?(?:started|begun|began|taken\s+up)\s+(?P<verb>learning|studying|practicing|practising|training\s+for|playing)\s+(?P<obj>.+)",
        "Started {verb} {obj}",
        "started begun began taken",
        accept=_not_task,
    ),
    _r(
        "goal",
        I_ANY
        + ADV
        + r"(?:plan|'m\s+planning|am\s+planning)\s+on\s+(?P<obj>\w+ing\b.+)",
        "Plans on {obj}",
        "plan planning",
        accept=_not_task,
    ),
    _r(
        "goal",
        IM
        + ADV
        + r"(?P<verb>doing|pursuing|taking|studying\s+for|working\s+on|halfway\s+through|enrolled\s+in)\s+(?P<obj>(?:a|an|my)\s+(?:[\w'-]+\s+){0,2}?(?:master'?s|masters|phd|degree|mba|bootcamp|course|certificate|certification|diploma|apprenticeship|residency|internship|bachelor'?s|thesis|dissertation)\b.*)",
        "Is {verb} {obj}",
        "doing pursuing taking studying working halfway enrolled",
    ),
    _r(
        "habit",
        IM
        + ADV
        + r"(?P<obj>(?:a|an)\s+(?:big|heavy|huge|light|avid|keen|regular|daily|occasional|casual|social)\s+(?:[\w-]+\s+)?(?:drinker|eater|reader|smoker|runner|gamer|sleeper|cyclist|swimmer|walker|hiker|snacker|user|riser|cook|baker))\b",
        "Is {obj}",
        "drinker eater reader smoker runner gamer sleeper cyclist swimmer walker hiker snacker user riser cook baker",
    ),
    # -- notable events ----------------------------------------------------------------------
    _r(
        "event",
        r"^(?P<obj>(?:just|finally|recently)\s+(?:got|bought|finished|started|moved|graduated|retired|adopted|launched|passed|turned|became|had|joined|quit|left|hit|won)\b.+)",
        "{obj}",
        "just finally recently",
        accept=lambda m, o: (
            not re.search(
                r"\b(?:this|that|it|error|bug|issue|problem|message|warning)\b",
                o,
                re.IGNORECASE,
            )
        ),
    ),
    _r(
        "event",
        START
        + r"(?:me\s+and\s+my\s+(?P<rel>\w+)|my\s+(?P<rel2>\w+)\s+and\s+I)\s+(?P<obj>(?:just\s+|recently\s+|finally\s+)?(?:got\s+(?:married|engaged)|bought|moved|adopted|had|welcomed|started|opened|launched)\b.+)",
        "{obj} with their {rel}{rel2}",
        "me and",
    ),
    _r(
        "event",
        I_OR_WE
        + r"(?P<obj>(?:just\s+|recently\s+|finally\s+|also\s+)?(?:got\s+back|came\s+back|returned|flew\s+back|arrived\s+back|am\s+back|'m\s+back)\s+from\s+.+)",
        "{obj}",
        "back returned",
    ),
    _r(
        "event",
        I_OR_WE
        + r"(?P<obj>(?:just\s+|recently\s+|finally\s+|also\s+)?(?:got|became|was|were)\s+(?:married|engaged|divorced|promoted|hired|laid\s+off|fired|diagnosed\s+with|accepted\s+(?:to|into|at)|admitted\s+to|elected|a\s+(?:mom|mum|dad|parent|grandparent|grandma|grandpa|citizen|father|mother|uncle|aunt)|(?:my|a|an|our)\s+(?:first\s+|new\s+)?(?:job|promotion|puppy|kitten|dog|cat|car|house|apartment|flat|degree|diploma|license|licence|certification|black\s+belt|raise|offer|visa|green\s+card|phd|masters?|scholarship|tattoo|bike|tesla|steam\s+deck|macbook|laptop|iphone)\b).*)",
        "{obj}",
        "got became was were",
    ),
    _r(
        "event",
        I_OR_WE
        + r"(?P<obj>(?:just\s+|recently\s+|finally\s+|also\s+)?(?:graduated|retired|gave\s+birth|quit\s+my\s+job|left\s+my\s+job|lost\s+my\s+job|changed\s+jobs|got\s+fired|had\s+(?:a\s+)?(?:baby|twins|surgery|an?\s+operation|a\s+kid)|started\s+(?:at|a\s+new\s+job|working\s+(?:at|for)|my\s+(?:new\s+)?job)|joined|founded|co-founded|defended\s+my|got\s+my\s+first|passed\s+my|finished\s+my|completed\s+my|published\s+my|launched\s+my|ran\s+(?:a|my\s+first)\s+(?:marathon|half|10k|5k|ultra)|adopted\s+(?:a|an|two)|bought\s+(?:a|(?:my|our)(?:\s+first)?)\s+(?:house|home|flat|apartment|car)|turned\s+\d+|became\s+a)\b.*)",
        "{obj}",
        "graduated retired gave had started joined founded co defended got passed finished completed published launched ran adopted bought turned became quit left lost changed fired",
        accept=lambda m, o: not re.search(r"\b(?:this|that|it)\b\s*$", o),
    ),
    _r(
        "event",
        I_OR_WE
        + r"(?P<obj>(?:just|recently|finally)\s+(?:got|bought|adopted|built|finished|started|launched|shipped|released|published|joined|passed|won|ran|completed|signed|sold|opened|found|made|hit|reached|crossed|became|had|turned|celebrated|visited|returned|welcomed|hired|raised|closed|moved|went|came)\b.+)",
        "{obj}",
        "just recently finally",
        accept=lambda m, o: (
            not re.search(
                r"\b(?:this|that|it|error|bug|issue|problem|message|warning)\b",
                o,
                re.IGNORECASE,
            )
        ),
    ),
    _r(
        "event",
        START
        + r"(?P<when>(?:last|this)\s+(?:week|weekend|month|year|summer|winter|spring|fall|autumn|morning|january|february|march|april|may|june|july|august|september|october|november|december|monday|tuesday|wednesday|thursday|friday|saturday|sunday)|yesterday|recently|in\s+(?:19|20)\d\d|\w+\s+(?:days|weeks|months|years)\s+ago)[,\s]+I\s+(?P<obj>(?:went|visited|traveled|travelled|flew|moved|started|finished|ran|won|lost|broke|bought|sold|adopted|launched|shipped|released|published|got|had|became|met|married|graduated|retired|passed|climbed|hiked|completed|quit|left)\b.+)",
        "{obj} {when}",
        "last this yesterday recently ago in",
        keep_case=False,
    ),
    _r(
        "event",
        I_OR_WE
        + r"(?P<obj>(?:went|visited|traveled|travelled|flew|moved|started|finished|ran|won|lost|broke|bought|sold|launched|shipped|released|published|got|had|met|climbed|hiked|completed|passed)\b.+?\s+(?:last|this)\s+(?:week|weekend|month|year|summer|winter|spring|fall|autumn|january|february|march|april|may|june|july|august|september|october|november|december|monday|tuesday|wednesday|thursday|friday|saturday|sunday)|(?:went|visited|traveled|travelled|flew|moved|started|finished|ran|won|lost|broke|bought|sold|launched|shipped|released|published|got|had|met|climbed|hiked|completed|passed)\b.+?\s+(?:yesterday|\w+\s+(?:days|weeks|months|years)\s+ago|in\s+(?:19|20)\d\d))\b",
        "{obj}",
        "last this yesterday ago in",
        accept=lambda m, o: (
            not re.search(
                r"\b(?:error|bug|issue|problem|exception|warning|message|result|output|response|reply)\b",
                o,
                re.IGNORECASE,
            )
        ),
    ),
)
