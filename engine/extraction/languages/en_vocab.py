"""What the English rule modules share: vocabularies (jobs, relatives, pets, languages, styles),
the checks that accept or refuse a match, and where objects end."""

from __future__ import annotations

import re
from typing import Any

from memtap.engine.extraction.rules import Rule, rule

_CAP = (
    r"(?=[A-Z0-9])"  # a proper name follows (checked case-sensitively by `is_proper`)
)
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
NOT_NAMES = frozenset(
    [
        # a faith or a trait after "I'm" is not a name
        "Muslim",
        "Christian",
        "Jewish",
        "Hindu",
        "Buddhist",
        "Catholic",
        "Sikh",
        "Mormon",
        "Atheist",
        "Agnostic",
        "Vegan",
        "Vegetarian",
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
NOT_PLACES = frozenset(
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
    r"fish|turtle|tortoise|horse|pony|guinea\s+pigs?|lizard|gecko|snake|bearded\s+dragon|bird|birds|budgie|"
    r"ferret|chickens|pet|pets|retriever|labrador|lab|poodle|terrier|beagle|husky|spaniel|shepherd|"
    r"corgi|dachshund|chihuahua|pug|bulldog|collie|greyhound|mutt|tabby|siamese|labradoodle|"
    r"cockapoo|sheepdog|rottweiler|boxer|whippet|schnauzer|doodle)"
)
REL_TRIGGERS = (
    "wife husband partner spouse girlfriend boyfriend fiance fiancee son sons daughter daughters "
    "kid kids child children baby toddler teenager mom mum mother dad father parents brother "
    "brothers sister sisters sibling siblings grandma grandmother grandpa grandfather "
    "grandparents grandson granddaughter grandkids grandchildren aunt uncle cousin cousins niece "
    "teenagers teens teenage toddlers boys girls babies stepkids stepchildren newborn infant "
    "nephew twins stepson stepdaughter stepmom stepdad laws family"
)
PET_TRIGGERS = (
    "dog dogs cat cats puppy puppies kitten kittens parrot hamster rabbit bunny goldfish fish "
    "turtle tortoise horse pony guinea pig pigs lizard gecko snake dragon bird birds budgie ferret "
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
LANG_TRIGGERS = (
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
DIETS = (
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
LOOSE_VERBS = frozenset(
    ["running", "hosting", "training", "self-hosting", "fine-tuning", "making"]
)
VERBISH = frozenset(
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


def is_proper(match: re.Match[str], obj: str) -> bool:
    return obj[:1].isupper() or obj[:1].isdigit()


def is_name(match: re.Match[str], obj: str) -> bool:
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


def is_role(match: re.Match[str], obj: str) -> bool:
    return _role_word(ROLE_STOP.split(obj, maxsplit=1)[0])


def role_then_org(match: re.Match[str], obj: str) -> bool:
    return _role_word(match.group("role")) and is_proper(match, obj)


def is_task(obj: str) -> bool:
    """An object about the task at hand ("fix this bug", "know how"), not a durable fact."""
    first = obj.split(maxsplit=1)[0].lower() if obj else ""
    return (
        first in _TASK_VERBS
        or re.search(r"\b(?:this|that|it|these|those)\b", obj, re.IGNORECASE)
        is not None
    )


_HORIZON = re.compile(
    r"\b(?:(?:this|next)\s+(?:year|month|summer|winter|spring|autumn|fall|semester|decade)|"
    r"by\s+(?:the\s+end\s+of\s+)?(?:19|20)\d\d|before\s+I\s+turn\s+\d+)\b",
    re.IGNORECASE,
)


def not_task(match: re.Match[str], obj: str) -> bool:
    """Not a task for the assistant ("I want to read this file"); a goal with a horizon
    ("I want to read 50 books this year") is a plan even with a task verb."""
    horizon = _HORIZON.search(match.string) is not None
    obj_without_time = _HORIZON.sub("", obj)
    first = obj.split(maxsplit=1)[0].lower() if obj else ""
    return (horizon or first not in _TASK_VERBS) and not re.search(
        r"\b(?:this|that|it|these|those)\b", obj_without_time, re.IGNORECASE
    )


_BEHAVIOUR = re.compile(
    r"^(?:suggest|suggesting|recommend|recommending|mention|mentioning|assume|assuming|apologi[sz]e|"
    r"apologi[sz]ing|lecture|lecturing|moraliz\w*|sugarcoat\w*|ask(?:ing)?\s+(?:me\s+)?(?:follow-up|clarifying)|"
    r"repeat(?:ing)?\s+(?:the\s+)?question|call(?:ing)?\s+me)\b",
    re.IGNORECASE,
)


def is_standing(match: re.Match[str], obj: str) -> bool:
    """A style or behaviour instruction, or any instruction said to hold from now on."""
    return (
        _STYLE.search(obj) is not None
        or _BEHAVIOUR.match(obj) is not None
        or _STANDING.search(match.string) is not None
    )


def is_technical(match: re.Match[str], obj: str) -> bool:
    return _TECH.search(obj) is not None


def instruction_slot(obj: str) -> str | None:
    if _LENGTH.search(obj):
        return "instruction.length"
    if _TONE.search(obj):
        return "instruction.tone"
    return None


def diet_slot(obj: str) -> str | None:
    return "constraint.diet" if re.search(DIETS, obj, re.IGNORECASE) else None


_WHEN = (
    r"(?:last|this|next)\s+(?:week|weekend|month|year|summer|winter|spring|fall|autumn)|yesterday|"
    r"recently|\w+\s+(?:days|weeks|months|years)\s+ago|in\s+(?:19|20)\d\d"
)
ROLE_STOP = re.compile(
    r"\s+(?:at|for|in|with|and|who|from|on|of|since|because|but|so|working|based|living|by|"
    + _WHEN
    + r")\b|,|;|\(|\s-\s",
    re.IGNORECASE,
)
OBJ_STOP = re.compile(
    r"\s+(?:and\s+(?:I|we|my)|but|because|since|which|so|though|if|who\s+(?:is|are))\b|;|\(|\s-\s|,\s+(?:and\s+)?(?:I|we|my)\b",
    re.IGNORECASE,
)
NAME_STOP = re.compile(
    r"\s+(?:and|but|from|i|i'm|here|by|btw)\b|,|;|\.(?!\s*[A-Z])|!|\(|\s-\s",
    re.IGNORECASE,
)
PLACE_STOP = re.compile(
    r"\s+(?:and\s+(?:I|we|my|work|commute)|but|because|since|with\s+my|for\s+(?:work|now|the\s+last|\d+|a\s+few|many|several)|"
    r"where|which|so|though|if|as\s+(?:a|an|the)|" + _WHEN + r")\b|;|\(|\s-\s",
    re.IGNORECASE,
)


def en_rule(
    family: str,
    rx: str,
    template: object,
    triggers: str,
    polarity: str = "positive",
    **options: Any,
) -> Rule:
    return rule("en", family, rx, template, triggers, polarity, **options)  # type: ignore[arg-type]


NOT_ANY_MORE = r"(?:\s+(?:any\s?more|any\s+longer))?"
