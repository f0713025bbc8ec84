"""English: the words memtap reads in English (data only). English facts are phrases read by
the shapes of `engine/extraction/shapes.py`, like every pack's: who the user is (`PEOPLE`),
their devices (`DEVICES`), what they build with, build and aim at (`PROJECTS`), the events
of their life (`EVENTS`), what they need (`NEEDS`), plan (`PLANS`), prefer, decide and do
(`CHOICES`). The readings of a clause without its subject (`engine/extraction/subjectless.py`)
take their words from the end of this module."""

from __future__ import annotations

from memtap.engine.languages.pack import DateWords, LanguagePack, periods, words
from memtap.engine.languages.pack import Example as E
from memtap.engine.languages.pack import Phrase as P

DATES = DateWords(
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
    periods=periods(
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

# -- pieces of the English rules' regular expressions -------------------------------------
START = r"(?:^|(?<=[\s,;:(\"'¿¡]))"
I = START + r"I\s+"
I_ANY = START + r"I(?:\s+|(?='))"
"""`I` followed by a space or a contraction ("I'm", "I'd"): for verbs listed with their "'m"."""
I_OR_WE = START + r"(?:I|we)\s+"
IM = START + r"I(?:'m|\s+am|'ve\s+been|\s+have\s+been)\s+"
ADV = (
    r"(?:(?:really|truly|definitely|much|now|still|actually|generally|personally|also|just|"
    r"strongly|do|would|currently|recently|finally|mostly|mainly|primarily|originally|"
    r"already|officially|both|all|only)\s+)*"
)
SUBJECTLESS_ADVERBS = words("just finally recently officially still")
"""Adverbs before a verb whose "I" was left out ("Just moved to Denver")."""
PLEASE = (
    r"^(?:(?:please|pls|plz|also|and|so|ok|okay|oh|hey|btw|from\s+now\s+on|going\s+forward|"
    r"in\s+(?:the\s+)?future|by\s+default|for\s+(?:all\s+)?future\s+(?:answers|replies|chats)|"
    r"one\s+more\s+thing|remember(?:\s+to)?|always|kindly)[,:!\s]+)*"
)


# -- the words of the English rules (engine/extraction/languages/en_*.py) ------------------
ROLE_WORDS = words(
    "engineer developer programmer dev devs coder scientist analyst architect designer "
    "manager teacher professor lecturer tutor nurse doctor physician surgeon dentist "
    "pharmacist therapist psychologist psychiatrist lawyer attorney paralegal "
    "accountant auditor consultant founder cofounder co-founder ceo cto cfo coo cmo vp "
    "director lead head intern student freelancer contractor writer author journalist "
    "editor translator researcher postdoc phd economist banker trader chef cook baker "
    "waiter waitress bartender barista pilot mechanic electrician plumber carpenter "
    "firefighter officer soldier sailor driver farmer artist musician photographer "
    "filmmaker actor actress dancer singer marketer recruiter librarian veterinarian "
    "vet paramedic midwife pm po sre devops administrator admin sysadmin tester qa "
    "specialist strategist officer owner entrepreneur nanny caregiver clerk cashier "
    "receptionist secretary assistant technician illustrator animator copywriter "
    "planner retiree homemaker academic mathematician statistician physicist chemist "
    "biologist geologist astronomer linguist historian pastor priest rabbi imam coach "
    "practitioner worker agent representative rep associate operator attendant "
    "inspector broker realtor paramedic hygienist optometrist surveyor lifeguard "
    "trainer"
)

NOT_NAMES = words(
    # a faith or a trait after "I'm" is not a name
    "Muslim Christian Jewish Hindu Buddhist Catholic Sikh Mormon Atheist Agnostic "
    "Vegan Vegetarian Canadian American British English German French Spanish Italian "
    "Brazilian Indian Chinese Japanese Mexican Australian Irish Scottish Welsh Dutch "
    "Polish Swedish Norwegian Danish Finnish Russian Ukrainian Korean Turkish Greek "
    "Portuguese Swiss Austrian Belgian Vegan Vegetarian Here Back Done Ready Sorry "
    "Good Fine Ok Okay Sure New Home Confused Lost Stuck Curious Tired Happy Sad "
    "Excited Glad Busy Free Available Late Early Still Not Also Just So Very Really "
    "Using On In At From Working Going Trying Looking Thinking Wondering"
)

NOT_PLACES = words(
    "Excel Word Chrome Firefox Safari Slack Zoom Teams Chapter Python Java JavaScript "
    "TypeScript Rust Docker Kubernetes Figma Notion Jira GitHub Discord Photoshop "
    "Unity Minecraft Year Grade Class Section Step Part Level Stage Phase Room Love "
    "Charge Trouble Luck Pain Debt Shock Bed Hospital School College"
)

ROLE_SUFFIXES = ("ologist", "ician", "grapher", "eer", "ist")

NOT_A_JOB = (
    r"\b(?:terrible|bad|good|great|awful|decent|amateur|home|hobby|wannabe|aspiring|lazy|picky|"
    r"messy|slow|fast|quick|big|huge|keen|avid|casual|weekend|former|ex|retired)\b"
)

NOT_ROLES = words("list twist fist gist mist wrist beginner fan bit lot")

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

STYLE = (
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
    r"like\s+I'?m\s+\w+|(?:British|American|Australian|Canadian|plain|simple)\s+English|everything)\b"
)

STANDING = (
    r"\b(?:always|never|from\s+now\s+on|going\s+forward|in\s+(?:the\s+)?future|by\s+default|"
    r"every\s+time|whenever|each\s+time|all\s+(?:your\s+)?(?:answers|replies|responses)|"
    r"in\s+general|as\s+a\s+rule|remember|everything)\b"
)

LENGTH = r"\b(?:short|shorter|brief|concise|terse|succinct|detailed|thorough|long|longer|length)\b"

TONE = r"\b(?:formal|informal|casual|friendly|direct|blunt|polite|professional|warm|tone)\b"

DIETS = (
    r"(?:vegetarian|vegan|pescatarian|pescetarian|keto|paleo|carnivore|flexitarian|plant-based|"
    r"on\s+(?:a|the)\s+[\w -]{2,25}?\s+diet)"
)

TECH = (
    r"(?-i:[A-Z0-9])|\b(?:python|rust|go|java|node|react|vue|postgres|mysql|sqlite|redis|docker|"
    r"kubernetes|k8s|linux|aws|gcp|azure|terraform|django|flask|rails|kafka|spark|graphql|"
    r"typescript|javascript|php|ruby|swift|kotlin|scala|elixir|haskell|c\+\+|c#|\.net|vim|"
    r"emacs|tabs|spaces)\b"
)

# "I'm running on no sleep": these verbs make a project only with a technical object.
LOOSE_VERBS = words("running hosting training self-hosting fine-tuning making")

VERBISH = words(
    "uses is has does makes pays was sucks sells builds lets wants needs gives"
)

TASK_VERBS = words(
    "know ask understand see check confirm clarify find figure double verify say thank "
    "share tell show add change fix convert rename remove delete update refactor debug "
    "test ensure compare print return call import read look hear talk discuss continue "
    "stop generate implement install parse"
)

HORIZON = (
    r"\b(?:(?:this|next)\s+(?:year|month|summer|winter|spring|autumn|fall|semester|decade)|"
    r"by\s+(?:the\s+end\s+of\s+)?(?:19|20)\d\d|before\s+I\s+turn\s+\d+)\b"
)

BEHAVIOUR = (
    r"^(?:suggest|suggesting|recommend|recommending|mention|mentioning|assume|assuming|apologi[sz]e|"
    r"apologi[sz]ing|lecture|lecturing|moraliz\w*|sugarcoat\w*|ask(?:ing)?\s+(?:me\s+)?(?:follow-up|clarifying)|"
    r"repeat(?:ing)?\s+(?:the\s+)?question|call(?:ing)?\s+me)\b"
)

WHEN = (
    r"(?:last|this|next)\s+(?:week|weekend|month|year|summer|winter|spring|fall|autumn)|yesterday|"
    r"recently|\w+\s+(?:days|weeks|months|years)\s+ago|in\s+(?:19|20)\d\d"
)

ROLE_STOP = (
    r"\s+(?:at|for|in|with|and|who|from|on|of|since|because|but|so|working|based|living|by|"
    + WHEN
    + r")\b|,|;|\(|\s-\s"
)

OBJ_STOP = r"\s+(?:and\s+(?:I|we|my)|but|because|since|which|so|though|if|who\s+(?:is|are))\b|;|\(|\s-\s|,\s+(?:and\s+)?(?:I|we|my)\b"

NAME_STOP = r"\s+(?:and|but|from|i|i'm|here|by|btw)\b|,|;|\.(?!\s*[A-Z])|!|\(|\s-\s"

PLACE_STOP = (
    r"\s+(?:and\s+(?:I|we|my|work|commute)|but|because|since|with\s+my|for\s+(?:work|now|the\s+last|\d+|a\s+few|many|several)|"
    r"where|which|so|though|if|as\s+(?:a|an|the)|" + WHEN + r")\b|;|\(|\s-\s"
)

NOT_ANY_MORE = r"(?:\s+(?:any\s?more|any\s+longer))?"


# "Same here", "Nobody here": words that come before "here" without being a signature
NOT_SIGNATURES = frozenset(
    [
        *["monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday"],
        *["january", "february", "march", "april", "may", "june", "july", "august"],
        *["september", "october", "november", "december", "me", "time"],
        "same",
        "everyone",
        "everybody",
        "nobody",
        "anyone",
        "anybody",
        "someone",
        "somebody",
        "me",
        "us",
        "you",
        "back",
        "still",
        "right",
        "over",
        "out",
        "in",
        "up",
        "down",
        "all",
        "more",
        "stuck",
        "new",
        "help",
        "hi",
        "hello",
        "hey",
        "thanks",
        "lost",
    ]
)

# Capitalised words after a relative that are not their name ("visiting my sister Saturday",
# "teach my son French").
NOT_A_NAME = frozenset(
    [
        *["monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday"],
        *["january", "february", "march", "april", "may", "june", "july", "august"],
        *["september", "october", "november", "december", "christmas", "easter"],
        *["english", "french", "spanish", "german", "italian", "portuguese", "chinese"],
        *["japanese", "korean", "arabic", "russian", "dutch", "hindi", "latin", "math"],
        *["maths", "today", "tonight", "tomorrow", "yesterday", "thanksgiving", "eat"],
        *["the", "and", "but", "what", "how", "why", "when", "where", "who"],
        *["ok", "okay"],
    ]
)
# One relative, not a group: a name follows only one ("my sister Hannah").
ONE_RELATIVE = (
    r"(?i:wife|husband|partner|spouse|girlfriend|boyfriend|fianc[ée]e?|son|daughter|kid|child|"
    r"baby|toddler|mom|mum|mother|dad|father|brother|sister|sibling|grandma|grandmother|grandpa|"
    r"grandfather|aunt|uncle|cousin|niece|nephew|stepson|stepdaughter|stepmom|stepdad|twin)"
)


# -- who the user is: identity, location, work, family (phrases read by the shapes) -------
PEOPLE: tuple[P, ...] = (
    P(
        "full_name",
        r"(?:\bmy\s+(?:full\s+|first\s+|real\s+|given\s+)?name(?:\s+is|'s)|^(?:the\s+)?name's)\s+(?P<obj>.+)",
        "Name is {obj}",
        "name",
        stop="name",
        own_start=True,
        examples=(E("Name is Ana", "Name is Ana"),),
    ),
    P(
        "full_name",
        IM + r"(?:called|named)\s+(?P<obj>.+)",
        "Name is {obj}",
        "called named",
        stop="name",
        examples=(E("I'm called Theo by my friends.", "Name is Theo"),),
    ),
    P(
        "full_name",
        r"^(?:hi|hello|hey|hiya|greetings)(?:\s+there)?[,!.]*\s+(?:I'm|I\s+am|this\s+is|it's)\s+(?P<obj>.+)",
        "Name is {obj}",
        "hi hello hey hiya greetings",
        stop="name",
        examples=(E("Hey there, this is Omar.", "Name is Omar"),),
    ),
    P(
        "name_said",
        r"^(?:(?i:hi|hello|hey|hiya|so|ok|okay|well)[,!.]*\s+)?(?:I'm|I\s+am)\s+(?P<obj>[A-Z][a-z]+(?:\s+[A-Z][a-z]+)?)(?=\s*(?:[.!,;(-]|$|\band\b|\bhere\b|\bby\s+the\s+way\b|\bbtw\b|\bfrom\b))",
        "Name is {obj}",
        "i",
        case_sensitive=True,
        examples=(E("I'm Sofia, by the way.", "Name is Sofia"),),
    ),
    # "Morning! It's Kenji again": a returning user saying who they are
    P(
        "signature",
        r"^(?:(?i:hi|hello|hey|morning|good\s+morning|evening)[,!.]*\s+)?(?i:it's|it\s+is|this\s+is)\s+(?P<obj>[A-Z][a-z]+)(?=\s+(?i:again|here)\b)",
        "Name is {obj}",
        "again here",
        keep_case=True,
        case_sensitive=True,
        examples=(
            E("Morning! It's Kenji again, with the bonsai questions.", "Name is Kenji"),
        ),
    ),
    # "Hey there, Marco here." signs a message the way people sign a note
    P(
        "signature",
        r"^(?:(?i:hi|hello|hey|hiya)(?i:\s+there)?[,!.]*\s+)?(?P<obj>[A-Z][a-z]+(?:\s+[A-Z][a-z]+)?)\s+here\b(?=\s*(?:$|[.!,;-]))",
        "Name is {obj}",
        "here",
        keep_case=True,
        case_sensitive=True,
        examples=(E("Marco Rossi here.", "Name is Marco Rossi"),),
    ),
    P(
        "address_refused",
        r"\b(?:don't|do\s+not|never)\s+call\s+me\s+(?P<obj>.+)",
        "Does not want to be called {obj}",
        "call",
        stop="name",
        own_start=True,
        examples=(E("Please don't call me Bob.", "Does not want to be called Bob"),),
    ),
    P(
        "address_as_said",
        r"\b(?:please\s+)?(?:call|address)\s+me\s+(?:as\s+)?(?P<obj>.+)",
        "Wants to be called {obj}",
        "call address",
        stop="name",
        own_start=True,
        examples=(E("Call me Dr. Patel.", "Wants to be called Dr. Patel"),),
    ),
    P(
        "address_as_said",
        START + r"I\s+(?:go|prefer\s+to\s+go)\s+by\s+(?P<obj>.+)",
        "Goes by {obj}",
        "go",
        stop="name",
        examples=(E("I go by Alex at work.", "Goes by Alex at work"),),
    ),
    P(
        "pronouns",
        r"\bmy\s+pronouns\s+are\s+(?P<obj>.+)",
        "Pronouns are {obj}",
        "pronouns",
        stop="name",
        own_start=True,
        examples=(E("Pronouns are they/them", "Pronouns are they/them"),),
    ),
    P(
        "age",
        IM + r"(?P<obj>\d{1,3})(?:\s*(?:years?\s+old|yo|y/o))\b",
        "Is {obj} years old",
        "old yo",
        examples=(
            E(
                "I'm 34 years old, if that matters for the insurance stuff.",
                "Is 34 years old",
            ),
        ),
    ),
    P(
        "origin",
        IM + ADV + r"from\s+(?P<obj>.+)",
        "Is from {obj}",
        "from",
        stop="place",
        examples=(
            E("I'm from Kerala originally, now in Dubai.", "Is from Kerala originally"),
        ),
    ),
    P(
        "trait",
        IM
        + ADV
        + r"(?P<obj>left-handed|right-handed|ambidextrous|an?\s+introvert|an?\s+extrovert|introverted|extroverted|neurodivergent|a\s+night\s+owl|an\s+early\s+bird|a\s+native\s+[A-Z]\w+\s+speaker|bilingual|trilingual)\b",
        "Is {obj}",
        "left right handed ambidextrous introvert extrovert introverted extroverted neurodivergent owl bird native bilingual trilingual",
        examples=(E("I'm a night owl.", "Is a night owl"),),
    ),
    P(
        "speaks",
        I
        + ADV
        + r"(?:speak|am\s+fluent\s+in|'m\s+fluent\s+in)\s+(?P<obj>"
        + LANGS
        + r"\b.*)",
        "Speaks {obj}",
        LANG_TRIGGERS,
        examples=(
            E(
                "I speak French and a bit of Arabic.",
                "Speaks French and a bit of Arabic",
            ),
        ),
    ),
    P(
        "speaks",
        r"\bmy\s+(?:native|first|mother)\s+(?:language|tongue)\s+is\s+(?P<obj>.+)",
        "Native language is {obj}",
        "native first mother",
        own_start=True,
        examples=(E("My first language is Tagalog.", "Native language is Tagalog"),),
    ),
    P(
        "age_said",
        IM
        + r"(?P<obj>\d{1,2})(?=\s*(?:$|[,.!;(]|-|\band\b|\bbut\b|\bso\b|\bwith\b|\bfrom\b))",
        "Is {obj} years old",
        "i",
        examples=(E("I'm 34 and I live alone.", "Is 34 years old"),),
    ),
    P(
        "sibling",
        IM
        + ADV
        + r"(?P<obj>an\s+only\s+child|the\s+(?:eldest|oldest|youngest|middle\s+child)(?:\s+of\s+\w+)?|a\s+twin|one\s+of\s+(?:two|three|four|five|six|\d+)\s+(?:kids|children|siblings|brothers|sisters)|adopted)\b",
        "Is {obj}",
        "only eldest oldest youngest middle twin one adopted",
        examples=(E("I'm an only child.", "Is an only child"),),
    ),
    P(
        "home_left",
        I
        + ADV
        + r"(?:don'?t|do\s+not|no\s+longer)\s+live\s+in\s+(?P<obj>.+?)"
        + NOT_ANY_MORE
        + r"(?=$|[.,;!])",
        "No longer lives in {obj}",
        "live",
        stop="place",
        examples=(E("I don't live in Oslo anymore.", "No longer lives in Oslo"),),
    ),
    P(
        "home_left",
        IM
        + r"(?:no\s+longer|not)\s+(?:living|based|located)\s+in\s+(?P<obj>.+?)"
        + NOT_ANY_MORE
        + r"(?=$|[.,;!])",
        "No longer lives in {obj}",
        "living based located",
        stop="place",
        examples=(E("I'm no longer living in Austin.", "No longer lives in Austin"),),
    ),
    P(
        "home_left",
        I + ADV + r"moved\s+(?:away\s+from|out\s+of)\s+(?P<obj>.+)",
        "Moved away from {obj}",
        "moved",
        stop="place",
        examples=(E("I moved away from Chicago.", "Moved away from Chicago"),),
    ),
    P(
        "home_lived",
        I_OR_WE
        + ADV
        + r"(?P<verb>live|reside)\s+(?:alone\s+|by\s+myself\s+|on\s+my\s+own\s+)?(?:with\s+(?:[\w'-]+\s+){1,4}?)?(?P<prep>(?:just\s+|right\s+)?(?:in|outside(?:\s+of)?|near|close\s+to|next\s+to|by|north\s+of|south\s+of|east\s+of|west\s+of))\s+(?P<obj>.+)",
        "Lives {prep} {obj}",
        "live reside",
        stop="place",
        examples=(E("I live in Oslo", "Lives in Oslo"),),
    ),
    P(
        "home_named",
        IM
        + ADV
        + r"(?P<verb>living|based|located|staying)\s+(?:in|out\s+of)\s+(?P<obj>.+)",
        {
            "based": "Is based in {obj}",
            "located": "Is based in {obj}",
            "": "Lives in {obj}",
        },
        "living based located staying",
        stop="place",
        examples=(E("I'm based in Austin.", "Is based in Austin"),),
    ),
    P(
        "home_named",
        IM
        + r"[^,.;]{1,40},\s+(?:currently\s+|now\s+)?(?P<verb>living|based|located)\s+(?:in|out\s+of)\s+(?P<obj>.+)",
        {"living": "Lives in {obj}", "": "Is based in {obj}"},
        "living based located",
        stop="place",
        examples=(E("I'm Irish, living in Boston.", "Lives in Boston"),),
    ),
    P(
        "timezone",
        IM
        + ADV
        + r"(?:in|on)\s+(?P<obj>(?:the\s+)?(?:[\w-]+\s+){0,2}?(?:time\s?zone|UTC\s?[+-]\s?\d{1,2}|GMT\s?[+-]?\s?\d{0,2}|(?:CET|CEST|EST|EDT|PST|PDT|CST|BST|IST|JST|AEST)\b(?:\s+time)?))",
        "Is in {obj}",
        "timezone time zone utc gmt cet cest est edt pst pdt cst bst ist jst aest",
        examples=(E("I'm in the Eastern time zone.", "Is in the Eastern time zone"),),
    ),
    P(
        "home_named",
        r"(?:^|,\s*)(?:currently\s+|now\s+|still\s+)?(?P<verb>living|based|located)\s+(?:in|out\s+of)\s+(?P<obj>.+)",
        {"living": "Lives in {obj}", "": "Is based in {obj}"},
        "living based located",
        stop="place",
        own_start=True,
        examples=(
            E("Currently based out of Singapore for work.", "Is based in Singapore"),
        ),
    ),
    P(
        "whereabouts_place",
        IM
        + r"(?:currently\s+|now\s+|still\s+)?(?:in|over\s+in|out\s+in)\s+(?P<obj>[A-Z][\w'.-]+(?:\s+[A-Z][\w'.-]+){0,2}(?:,\s+[A-Z][\w.]+)?)(?=\s*(?:$|[,.!;(]|-|\band\b|\bbut\b|\bso\b|\bfor\b|\bwith\b|\bnow\b|\bat\s+the\s+moment\b))",
        "Is in {obj}",
        "in",
        case_sensitive=True,
        examples=(E("I'm in Sydney, so please use AEST for times.", "Is in Sydney"),),
    ),
    P(
        "home_named",
        I_OR_WE
        + ADV
        + r"(?:just\s+|recently\s+)?(?:moved|relocated)\s+(?:back\s+)?to\s+(?P<obj>.+)",
        "Moved to {obj}",
        "moved relocated",
        stop="place",
        examples=(E("Moved to Denver", "Moved to Denver"),),
    ),
    P(
        "home",
        I_ANY
        + r"(?:'ve|\s*have)\s+(?:always\s+)?lived\s+in\s+(?P<obj>[A-Z][\w'.-]+(?:\s+[A-Z][\w'.-]+){0,2})",
        "Lives in {obj}",
        "lived",
        case_sensitive=True,
        examples=(E("I've lived in Melbourne my whole life.", "Lives in Melbourne"),),
    ),
    P(
        "identity",
        I + ADV + r"grew\s+up\s+(?:in|on|near)\s+(?P<obj>.+)",
        "Grew up in {obj}",
        "grew",
        stop="place",
        examples=(
            E(
                "I grew up in Ghana and now I live in Leeds.",
                "Grew up in Ghana and now they live in Leeds",
            ),
        ),
    ),
    P(
        "home",
        r"^home\s+(?:for\s+me|to\s+me)\s+is\s+(?:in\s+)?(?P<obj>.+)",
        "Home is {obj}",
        "home",
        examples=(
            E(
                "Home for me is a little village in Wales.",
                "Home is a little village in Wales",
            ),
        ),
    ),
    P(
        "home_named",
        r"\bmy\s+home(?:\s+base)?\s+is\s+(?:in\s+)?(?P<obj>.+)",
        "Home is {obj}",
        "home",
        stop="place",
        own_start=True,
        examples=(E("My home is in Leeds.", "Home is Leeds"),),
    ),
    P(
        "whereabouts",
        r"^(?:currently\s+|now\s+)?(?:working|staying|travel+ing)\s+(?:remotely\s+)?(?:from|in)\s+(?P<obj>.+)",
        "Is working from {obj}",
        "working staying traveling travelling",
        stop="place",
        examples=(E("Working from Lisbon this month.", "Is working from Lisbon"),),
    ),
    P(
        "employer_work",
        I_ANY
        + r"(?:'ve|\s*have)\s+(?:been\s+)?work(?:ed|ing)\s+(?P<prep>at|for)\s+(?P<obj>.+)",
        {"for": "Works for {obj}", "": "Works at {obj}"},
        "worked working",
        key="prep",
        stop="place",
        examples=(E("I've worked at Amazon for six years.", "Works at Amazon"),),
    ),
    P(
        "employer_left",
        I
        + ADV
        + r"(?:don'?t|do\s+not|no\s+longer)\s+work\s+(?:at|for)\s+(?P<obj>.+?)"
        + NOT_ANY_MORE
        + r"(?=$|[.,;!])",
        "No longer works at {obj}",
        "work",
        stop="place",
        examples=(E("I no longer work at Deloitte.", "No longer works at Deloitte"),),
    ),
    P(
        "employer_left_named",
        I + ADV + r"(?:just\s+)?(?P<verb>left|quit)\s+(?:my\s+job\s+at\s+)?(?P<obj>.+)",
        "Left {obj}",
        "left quit",
        stop="place",
        examples=(E("I left Acme.", "Left Acme"),),
    ),
    P(
        "project",
        r"\b(?:our|my)\s+(?P<what>startup|company|team|group|lab|agency|business|studio)\s+(?P<verb>is\s+building|is\s+developing|builds|makes|develops|is\s+making|sells|is\s+working\s+on|is\s+launching|runs|maintains|ships)\s+(?P<obj>.+)",
        "Their {what} {verb} {obj}",
        "startup company team group lab agency business studio",
        own_start=True,
        examples=(
            E(
                "Our startup is building a marketplace for used bikes.",
                "Their startup is building a marketplace for used bikes",
            ),
        ),
    ),
    P(
        "stack",
        START
        + r"we(?:'re|\s+are)\s+(?P<obj>(?:a|an)\s+[\w.+#/ -]{1,30}?\s+(?:shop|house|team|company|startup|org|organi[sz]ation|agency))\b",
        "Their team is {obj}",
        "shop house team company startup org organization organisation agency",
        examples=(E("We're a Rails shop, mostly.", "Their team is a Rails shop"),),
    ),
    P(
        "stack_refused_technical",
        START
        + r"(?P<who>I|we)\s+(?:don'?t|do\s+not|no\s+longer|never)\s+(?:use|run|deploy\s+(?:to|on))\s+(?P<obj>.+)",
        {"i": "Does not use {obj}", "we": "Their team does not use {obj}"},
        "use run deploy",
        key="who",
        examples=(E("I never use Windows", "Does not use Windows"),),
    ),
    P(
        "stack",
        r"\b(?:the|my|our)\s+(?P<what>company|employer|team|startup|org|organi[sz]ation|client|department)\s+(?:I|we)\s+(?:work\s+(?:for|at|with|in)|am\s+in|'m\s+in|'m\s+at)\s+(?P<verb>uses|use|runs\s+on|is\s+on|relies\s+on)\s+(?P<obj>.+)",
        "Their {what} {verb} {obj}",
        "company employer team startup org organization organisation client department",
        own_start=True,
        examples=(
            E(
                "The company I work for uses Azure DevOps.",
                "Their company uses Azure DevOps",
            ),
        ),
    ),
    P(
        "employer_work",
        I
        + ADV
        + r"(?:work|am\s+working|'m\s+working)\s+(?P<prep>at|for)\s+(?P<obj>.+)",
        {"for": "Works for {obj}", "": "Works at {obj}"},
        "work working",
        key="prep",
        stop="place",
        examples=(E("I work at Acme.", "Works at Acme"),),
    ),
    P(
        "employer_any",
        IM + r"(?:employed|hired)\s+(?:at|by)\s+(?P<obj>.+)",
        "Works at {obj}",
        "employed hired",
        stop="place",
        examples=(E("I'm employed at Siemens.", "Works at Siemens"),),
    ),
    P(
        "employer_after_role",
        IM
        + ADV
        + r"(?:an?|the)\s+(?P<role>[\w+#./ -]{2,60}?)\s+(?:at|for|with)\s+(?P<obj>.+)",
        "Works at {obj}",
        "a an the",
        stop="place",
        examples=(E("Data engineer at Shopify here.", "Works at Shopify"),),
    ),
    P(
        "employer",
        I
        + ADV
        + r"(?:just\s+|recently\s+)?(?:started|began|joined|got\s+a\s+(?:new\s+)?job)\s+(?:a\s+new\s+job\s+|working\s+)?(?:at|with|for)?\s*(?P<obj>.+)",
        "Works at {obj}",
        "started began joined job",
        stop="role",
        examples=(E("Started at Stripe last week", "Works at Stripe"),),
    ),
    P(
        "role_as",
        r"\bwork(?:ing)?\s+(?:at|for)\s+.+?\s+as\s+(?P<obj>(?:an?\s+|the\s+)?.+)",
        "Works as {obj}",
        "work working",
        stop="role",
        own_start=True,
        examples=(
            E(
                "I work for myself as a wedding photographer.",
                "Works as a wedding photographer",
            ),
        ),
    ),
    P(
        "past_role",
        r"(?:^|,\s*|\bI\s+)(?:used\s+to\s+(?:be|work\s+as)|was)\s+(?P<obj>(?:an?|the)\s+.+)",
        "Used to be {obj}",
        "used",
        stop="role",
        own_start=True,
        examples=(E("Used to be an accountant", "Used to be an accountant"),),
    ),
    P(
        "team_other",
        I
        + ADV
        + r"(?P<verb>lead|manage|run|head|own)\s+(?P<obj>(?:the|our|a|an)\s+(?:[\w/&+-]+\s+){0,3}?(?:team|squad|department|group|lab|practice|org)(?:\s+of\s+[\w-]+(?:\s+[\w-]+){0,3})?)\b",
        {
            "lead": "Leads {obj}",
            "manage": "Manages {obj}",
            "run": "Runs {obj}",
            "head": "Heads {obj}",
            "": "Owns {obj}",
        },
        "lead manage run head own",
        examples=(E("I lead the infra team.", "Leads the infra team"),),
    ),
    P(
        "role_as",
        I
        + ADV
        + r"(?P<verb>freelance|moonlight|volunteer|consult|contract)\s+as\s+(?P<obj>.+)",
        {
            "freelance": "Freelances as {obj}",
            "moonlight": "Moonlights as {obj}",
            "volunteer": "Volunteers as {obj}",
            "": "Works as {obj}",
        },
        "freelance moonlight volunteer consult contract",
        stop="role",
        examples=(
            E(
                "I freelance as a wedding photographer on weekends.",
                "Freelances as a wedding photographer",
            ),
        ),
    ),
    P(
        "role_as",
        I + ADV + r"work(?:\s+[\w-]+){0,3}?\s+as\s+(?P<obj>.+)",
        "Works as {obj}",
        "work",
        stop="role",
        examples=(E("I work as a data analyst.", "Works as a data analyst"),),
    ),
    P(
        "role_checked",
        r"\bmy\s+(?:job|role|position|title|job\s+title|profession|occupation)\s+is\s+(?P<obj>.+)",
        "Role is {obj}",
        "job role position title profession occupation",
        stop="role",
        own_start=True,
        examples=(E("My job title is product manager.", "Role is product manager"),),
    ),
    P(
        "role_checked",
        IM
        + ADV
        + r"(?:(?-i:[A-Z][a-z]+),\s+)?"
        + ADV
        + r"(?:now\s+)?(?P<obj>(?:an?\s+|the\s+)?[\w+#./-]+.*)",
        "Is {obj}",
        "a an the student freelancer ceo cto intern founder",
        stop="statement",
        examples=(E("I'm a data analyst.", "Is a data analyst"),),
    ),
    P(
        "role_as",
        IM
        + ADV
        + r"(?P<obj>retired|unemployed|self-employed|freelancing|between\s+jobs|job\s+hunting|on\s+parental\s+leave)\b",
        "Is {obj}",
        "retired unemployed self employed freelancing between hunting parental",
        examples=(E("I'm retired, used to be an accountant.", "Is retired"),),
    ),
    P(
        "role_as",
        I + ADV + r"(?:got|was)\s+promoted\s+to\s+(?P<obj>.+)",
        "Is {obj}",
        "promoted",
        stop="role",
        examples=(
            E("I was promoted to engineering manager.", "Is engineering manager"),
        ),
    ),
    P(
        "team",
        IM
        + ADV
        + r"(?:on|in|part\s+of)\s+(?:the\s+)?(?P<obj>[\w+#./ -]{1,40}?\s+team)\b",
        "Is on the {obj}",
        "team",
        examples=(E("I'm on the payments team.", "Is on the payments team"),),
    ),
    P(
        "team",
        I
        + ADV
        + r"work\s+(?:in|on|with)\s+(?:the\s+)?(?P<obj>[\w+#./ -]{1,40}?\s+team)\b",
        "Is on the {obj}",
        "team",
        examples=(E("I work on the payments team.", "Is on the payments team"),),
    ),
    P(
        "team_other",
        r"\b(?:my|our)\s+team\s+(?:is|handles|owns|works\s+on)\s+(?P<obj>(?!great|awesome|small|big|busy).+)",
        "Their team is {obj}",
        "team",
        own_start=True,
        examples=(
            E(
                "Our team is six engineers and one designer.",
                "Their team is six engineers and one designer",
            ),
        ),
    ),
    P(
        "field",
        I + ADV + r"work\s+in\s+(?P<obj>(?!the\s+\w+\s+team)[\w&/ -]{2,40})",
        "Works in {obj}",
        "work",
        stop="place",
        examples=(E("I work in finance, mostly risk modelling.", "Works in finance"),),
    ),
    P(
        "field_not_task",
        I + ADV + r"(?P<verb>teach|tutor|coach)\s+(?P<obj>(?!you\b|me\b|myself\b).+)",
        {"tutor": "Tutors {obj}", "coach": "Coaches {obj}", "": "Teaches {obj}"},
        "teach tutor coach",
        examples=(
            E("I teach high school chemistry.", "Teaches high school chemistry"),
        ),
    ),
    P(
        "field",
        I
        + ADV
        + r"work\s+(?P<obj>remotely|from\s+home|remote|hybrid|part[- ]time|full[- ]time|nights|night\s+shifts|shifts|weekends|(?:\d|one|two|three|four|five|six)\s+days\s+(?:a|per)\s+week|\d+\s+hours\s+(?:a|per)\s+week)\b",
        "Works {obj}",
        "work",
        examples=(E("I work 4 days a week.", "Works 4 days a week"),),
    ),
    P(
        "employer_other",
        r"\bmy\s+(?:company|employer|startup|business|firm)\s+is\s+(?P<obj>.+)",
        "Their company is {obj}",
        "company employer startup business firm",
        own_start=True,
        examples=(E("My company is Acme Robotics.", "Their company is Acme Robotics"),),
    ),
    P(
        "business",
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
        examples=(
            E(
                "I run a small Etsy shop selling ceramics.",
                "Runs a small Etsy shop selling ceramics",
            ),
        ),
    ),
    P(
        "parent",
        r"^(?P<obj>(?:a\s+)?(?:single\s+|proud\s+|working\s+)?(?:mum|mom|mother|dad|father|parent)\s+of\s+(?:one|two|three|four|five|\d+)(?:\s+[\w-]+)?)\b",
        "Is a {obj}",
        "mum mom mother dad father parent",
        examples=(
            E("Mum of three here, living in Bristol.", "Is a mum of three here"),
        ),
    ),
    P(
        "family_pair",
        r"\bmy\s+(?P<rel>wife|husband|partner|spouse|girlfriend|boyfriend|sister|brother|mom|mum|dad)\s+and\s+I\s+(?:are|were)\s+(?P<obj>.+)",
        "They and their {rel} are {obj}",
        "and",
        own_start=True,
        examples=(
            E(
                "My husband and I are both teachers.",
                "They and their husband are both teachers",
            ),
        ),
    ),
    P(
        "field",
        IM
        + ADV
        + r"(?:on|working)\s+(?:the\s+)?(?P<obj>(?:night|day|early|late|graveyard|evening|morning|weekend)\s+shifts?(?:\s+at\s+.+)?)",
        "Is on the {obj}",
        "shift shifts",
        examples=(
            E(
                "I'm on the night shift at a warehouse.",
                "Is on the night shift at a warehouse",
            ),
        ),
    ),
    P(
        "relative_said",
        r"\b(?:my|our)\s+(?P<obj>(?:(?:older|younger|little|big|eldest|oldest|youngest|twin|baby|new|two|three|four|\d+|\w+-year-old)\s+)?(?:"
        + REL
        + "|"
        + PET
        + r")(?:\s+[A-Z][\w'-]+)?(?:'s|\s+is|\s+are|\s+works|\s+work|\s+lives|\s+live|\s+has|\s+have|\s+was|\s+were|\s+studies|\s+goes|\s+go|\s+turned|\s+turns|\s+got|\s+just|\s+recently|\s+will\s+be|\s+was\s+born|\s+named|\s+called|\s+starts|\s+started|\s+start|\s+turn|\s+play|\s+attend|\s+is\s+starting|\s+graduated|\s+graduates|\s+plays|\s+attends|\s+needs|\s+uses|\s+can't|\s+cannot|\s+retired|\s+passed\s+away|\s+died|\s+moved|\s+suffers)\b.+)",
        "Their {obj}",
        REL_TRIGGERS + " " + PET_TRIGGERS,
        resolvable=False,
        own_start=True,
        examples=(E("My sister is a pilot.", "Their sister is a pilot"),),
    ),
    # "my wife Priya", "our golden retriever Biscuit ate a sock": whoever the relative
    # or pet does, their name is the fact
    # (the name is in the subject: "my sister Hannah" and "my sister Lea" are two sisters)
    P(
        "named_relative",
        r"\b(?i:my|our)\s+(?P<obj>(?P<rel>(?:[\w-]+\s+){0,2}?(?:"
        + ONE_RELATIVE
        + "|"
        + PET
        + r"))\s+(?P<name>[A-Z][a-z][\w'-]*))\b(?!\s+[A-Z])(?=\s*(?:$|[,.!?;:)]|\s+[a-z]))",
        "Their {rel} is called {name}",
        REL_TRIGGERS + " " + PET_TRIGGERS,
        resolvable=False,
        presupposed=True,
        case_sensitive=True,
        own_start=True,
        examples=(E("my sister Lea turns 9 tomorrow", "Their sister is called Lea"),),
    ),
    P(
        "relative",
        I_ANY
        + ADV
        + r"(?:have|'ve\s+got|have\s+got|'ve)\s+(?P<obj>(?:a|an|one|two|three|four|five|six|\d+|twin)\s+(?:[\w'-]+\s+){0,3}?(?:"
        + REL
        + "|"
        + PET
        + r")\b.*)",
        "Has {obj}",
        REL_TRIGGERS + " " + PET_TRIGGERS,
        resolvable=True,
        examples=(E("I have two kids.", "Has two kids"),),
    ),
    P(
        "family_other",
        I_OR_WE
        + ADV
        + r"(?:have|'ve\s+got|have\s+got)\s+(?P<obj>(?:a|an|one|two|three|\d+)\s+(?:[\w'-]+\s+){1,4}?(?:named|called)\s+[A-Z][\w'-]+.*)",
        "Has {obj}",
        "named called",
        resolvable=True,
        examples=(
            E(
                "We have a cat called Miso who hates the vacuum.",
                "Has a cat called Miso who hates the vacuum",
            ),
        ),
    ),
    P(
        "family_count",
        START
        + r"(?:my|our)\s+(?P<obj>(?:two|three|four|five|six|\d+)\s+(?:[\w'-]+\s+)?(?:"
        + REL
        + "|"
        + PET
        + r"))\b",
        "Has {obj}",
        REL_TRIGGERS + " " + PET_TRIGGERS,
        examples=(
            E(
                "I live just outside Manchester with my girlfriend and our two dogs.",
                "Has two dogs",
            ),
        ),
    ),
    P(
        "relative",
        START
        + r"we(?:\s+|(?='))(?:have|'ve\s+got)\s+(?P<obj>(?:a|an|one|two|three|four|\d+)\s+(?:[\w'-]+\s+){0,3}?(?:"
        + REL
        + "|"
        + PET
        + r")\b.*)",
        "Has {obj}",
        REL_TRIGGERS + " " + PET_TRIGGERS,
        resolvable=True,
        examples=(
            E("We have two cats, Miso and Tofu.", "Has two cats, Miso and Tofu"),
        ),
    ),
    P(
        "no_relative",
        I
        + ADV
        + r"(?:don'?t|do\s+not)\s+have\s+(?:any\s+)?(?P<obj>(?:kids|children|pets|siblings|a\s+partner|a\s+car))\b",
        "Does not have {obj}",
        "kids children pets siblings partner car",
        examples=(E("I don't have kids.", "Does not have kids"),),
    ),
    P(
        "relationship",
        IM
        + ADV
        + r"(?P<obj>married|engaged|divorced|single|widowed|separated|in\s+a\s+relationship)\b",
        "Is {obj}",
        "married engaged divorced single widowed separated relationship",
        examples=(E("I'm married.", "Is married"),),
    ),
    P(
        "parent",
        IM
        + ADV
        + r"(?P<obj>(?:a\s+)?(?:[\w-]+\s+)?(?:mom|mum|mother|dad|father|parent|grandparent|grandma|grandpa|stepmom|stepdad)(?:\s+of\s+.+)?|pregnant|expecting(?:\s+a\s+baby)?)\b",
        "Is {obj}",
        "mom mum mother dad father parent grandparent grandma grandpa stepmom stepdad pregnant expecting",
        examples=(E("I'm a stay-at-home dad.", "Is a stay-at-home dad"),),
    ),
    P(
        "like",
        IM
        + ADV
        + r"(?P<neg>not\s+)?(?:really\s+|much\s+of\s+|at\s+all\s+)?(?:a|an)\s+(?P<obj>[\w-]+(?:\s+[\w-]+)?\s+person)\b",
        {"not": "Is not a {obj}", "": "Is a {obj}"},
        "person",
        key="neg",
        examples=(E("I'm not a morning person at all.", "Is not a morning person"),),
    ),
    P(
        "like",
        IM
        + ADV
        + r"(?P<verb>obsessed\s+with|into|crazy\s+about|passionate\s+about|addicted\s+to|mad\s+about|hooked\s+on|keen\s+on)\s+(?P<obj>.+)",
        "Is {verb} {obj}",
        "obsessed into crazy passionate addicted mad hooked keen",
        resolvable=True,
        examples=(
            E("I'm really into bouldering lately.", "Is into bouldering lately"),
        ),
    ),
)


# -- constraints and standing instructions: phrases read by the shapes ------------------
NEEDS: tuple[P, ...] = (
    P(
        "allergy",
        IM
        + r"(?:[\w-]+\s+){0,4}?(?:severely\s+|very\s+|highly\s+|deathly\s+|mildly\s+|also\s+)?(?P<neg>not\s+)?allergic\s+to\s+(?P<obj>.+)",
        {"not": "Is not allergic to {obj}", "": "Is allergic to {obj}"},
        "allergic",
        key="neg",
        examples=(E("I'm allergic to latex.", "Is allergic to latex"),),
    ),
    P(
        "allergy",
        I
        + ADV
        + r"have\s+(?:a|an|severe|bad|mild)?\s*(?P<obj>[\w -]{1,30}?\s+(?:allergy|allergies|intolerance|sensitivity))\b",
        "Has {obj}",
        "allergy allergies intolerance sensitivity",
        examples=(E("I have a severe nut allergy.", "Has severe nut allergy"),),
    ),
    P(
        "diet_left",
        IM
        + r"(?:no\s+longer|not)\s+(?:a\s+)?(?P<obj>"
        + DIETS
        + r")(?:\s+any\s?more)?",
        "Is no longer {obj}",
        "vegetarian vegan pescatarian pescetarian keto paleo carnivore flexitarian plant diet",
        examples=(E("I'm not vegetarian anymore.", "Is no longer vegetarian"),),
    ),
    P(
        "diet_left",
        I + ADV + r"(?:stopped|quit)\s+being\s+(?:a\s+)?(?P<obj>" + DIETS + ")",
        "Is no longer {obj}",
        "stopped quit",
        examples=(E("I stopped being vegetarian.", "Is no longer vegetarian"),),
    ),
    P(
        "diet_named",
        IM
        + ADV
        + r"(?:a\s+)?(?:strict\s+|full\s+|mostly\s+)?(?P<obj>"
        + DIETS
        + r")\b",
        "Is {obj}",
        "vegetarian vegan pescatarian pescetarian keto paleo carnivore flexitarian plant diet",
        examples=(E("I'm vegan now.", "Is vegan"),),
    ),
    P(
        "diet_said",
        I + ADV + r"(?:follow|eat|keep)\s+(?:a|an)\s+(?P<obj>[\w -]{2,25}?\s+diet)\b",
        "Follows a {obj}",
        "diet",
        examples=(E("I follow a low-carb diet.", "Follows a low-carb diet"),),
    ),
    P(
        "health",
        IM
        + ADV
        + r"(?:an?\s+)?(?P<obj>(?:lactose|gluten)[\s-]intolerant|gluten-free|celiac|coeliac|diabetic|type\s+[12]\s+diabetic|halal|kosher|sober|teetotal|colou?r-?\s?blind|blind|deaf|hard\s+of\s+hearing|dyslexic|autistic|visually\s+impaired|in\s+a\s+wheelchair|a\s+wheelchair\s+user|epileptic|asthmatic|on\s+medication)\b",
        "Is {obj}",
        "lactose gluten intolerant free celiac coeliac diabetic halal kosher sober teetotal color colour colorblind colourblind blind deaf hearing dyslexic autistic impaired wheelchair epileptic asthmatic medication",
        examples=(E("I'm celiac.", "Is celiac"),),
    ),
    P(
        "health",
        I
        + ADV
        + r"(?:have|suffer\s+from|live\s+with)\s+(?P<obj>(?:celiac|coeliac|diabetes|type\s+[12]\s+diabetes|adhd|add|dyslexia|autism|asthma|epilepsy|migraines|arthritis|tinnitus|a\s+(?:bad\s+)?back|a\s+heart\s+condition|high\s+blood\s+pressure|low\s+vision|color\s*blindness|colour\s*blindness|hearing\s+loss|rsi|carpal\s+tunnel|long\s+covid|ibs|crohn's)\b.*)",
        "Has {obj}",
        "have suffer live",
        examples=(E("I have celiac disease.", "Has celiac disease"),),
    ),
    P(
        "health",
        I
        + ADV
        + r"(?:use|rely\s+on|need)\s+(?P<obj>(?:a\s+)?(?:screen\s+reader|screenreader|wheelchair|hearing\s+aids?|large\s+(?:fonts?|text)|high\s+contrast|voice\s+control|captions|subtitles)\b.*)",
        "Uses {obj}",
        "screen screenreader wheelchair hearing large high voice captions subtitles",
        examples=(E("I use a screen reader.", "Uses a screen reader"),),
    ),
    P(
        "refused",
        I
        + ADV
        + r"(?P<verb>don'?t|do\s+not|never|can'?t|cannot|can\s+not|won'?t)\s+(?:ever\s+)?(?P<verb2>eat|drink)\s+(?P<obj>.+)",
        {
            "eat": "Does not eat {obj}",
            "drink": "Does not drink {obj}",
            "": "Does not eat {obj}",
        },
        "eat drink",
        key="verb2",
        examples=(E("I don't eat pork.", "Does not eat pork"),),
    ),
    P(
        "refused",
        I
        + ADV
        + r"(?:can'?t|cannot|can\s+not|shouldn'?t|am\s+not\s+allowed\s+to|'m\s+not\s+allowed\s+to)\s+(?:have|tolerate|digest|handle)\s+(?P<obj>(?!(?:a|an|the|any|more|much|time|fun|it|that|this)\b).+)",
        "Cannot have {obj}",
        "have tolerate digest handle",
        examples=(E("I can't have gluten.", "Cannot have gluten"),),
    ),
    P(
        "device",
        I
        + ADV
        + r"(?:only\s+)?(?:have|own|work\s+on|am\s+on|'m\s+on)\s+(?P<obj>(?:a|an|my)\s+(?:[\w-]+\s+){0,2}?(?:Chromebook|Mac|MacBook|iMac|iPhone|iPad|Android|PC|laptop|Pixel|Galaxy|ThinkPad|Surface|Raspberry\s+Pi|Linux\s+box|Windows\s+(?:laptop|machine|PC))\b.*)",
        "Has {obj}",
        "chromebook mac macbook imac iphone ipad android pc laptop pixel galaxy thinkpad surface raspberry linux windows",
        examples=(
            E(
                "I only have a Chromebook, so no desktop apps please.",
                "Has a Chromebook",
            ),
        ),
    ),
    P(
        "device",
        IM
        + r"(?P<obj>(?:a|an)\s+(?:Mac|Windows|Linux|Ubuntu|iPhone|Android|Chromebook|iPad|Emacs|Vim)\s+(?:user|person|guy|girl))\b",
        "Is {obj}",
        "user person guy girl",
        examples=(E("I'm a Mac user and I live in Vim.", "Is a Mac user"),),
    ),
    P(
        "refused",
        I
        + ADV
        + r"(?:avoid|stay\s+away\s+from|cut\s+out)\s+(?P<obj>(?:gluten|dairy|sugar|alcohol|caffeine|meat|pork|beef|nuts|peanuts|shellfish|seafood|eggs|soy|carbs|lactose)\b.*)",
        "Avoids {obj}",
        "avoid stay cut",
        examples=(E("I avoid gluten.", "Avoids gluten"),),
    ),
    P(
        "budget",
        START
        + r"(?:I|we)(?:'m|'re|\s+am|\s+are)\s+on\s+(?P<obj>(?:a|an)\s+(?:\w+\s+)?budget(?:\s+of\s+.+)?)",
        "Is on {obj}",
        "budget",
        examples=(
            E(
                "OK so context: I'm a solo founder, I'm building a SaaS for dentists, and I'm on a budget of $200/month.",
                "Is on a budget of $200/month",
            ),
        ),
    ),
    P(
        "budget",
        r"\bmy\s+(?:max(?:imum)?\s+|total\s+|monthly\s+|weekly\s+)?budget\s+(?:is|of)\s+(?P<obj>.+)",
        "Budget is {obj}",
        "budget",
        own_start=True,
        examples=(E("My budget is around $800.", "Budget is around $800"),),
    ),
    # "my budget for the laptop is around 1200 euros": the budget of one purchase
    P(
        "budget_other",
        r"\b(?:my|our)\s+budget\s+for\s+(?P<what>[\w' -]{1,40}?)\s+is\s+(?P<obj>.+)",
        "Budget for {what} is {obj}",
        "budget",
        own_start=True,
        examples=(
            E(
                "My budget for the laptop is around 1200 euros.",
                "Budget for the laptop is around 1200 euros",
            ),
        ),
    ),
    # "I only eat halal meat": a diet said by what is left
    P(
        "diet_other",
        I + r"(?:only\s+eat|eat\s+only|only\s+drink|drink\s+only)\s+(?P<obj>.+)",
        "Only eats {obj}",
        "only",
        examples=(E("I only eat halal meat.", "Only eats halal meat"),),
    ),
    # "I can't do stairs because of my knee": a physical limit ("can't stand" is taste)
    P(
        "physical_refused",
        I
        + r"(?:can'?t|cannot|can\s+not)\s+(?P<verb>do|climb|walk|lift|carry)\s+(?P<obj>(?!this\b|that\b|it\b)[\w' -]{2,40}?)(?=\s*(?:$|[.,;!]|\bbecause\b|\bsince\b|\bdue\b|\bwith\b))",
        "Cannot {verb} {obj}",
        "do climb walk lift carry",
        examples=(E("Cannot do stairs", "Cannot do stairs"),),
    ),
    # "I can only code on weekends": a limit on when or how, not a wish
    P(
        "time",
        I
        + r"(?:can|could)\s+only\s+(?P<obj>[a-z]+\s+(?:on|at|in|during|after|before|from|with|for)\s+.+)",
        "Can only {obj}",
        "only",
        examples=(
            E(
                "I can only code on weekends because of my day job.",
                "Can only code on weekends",
            ),
        ),
    ),
    # "I only have about 20 minutes a day to study": time they can give, a standing limit
    P(
        "time",
        I
        + r"(?:only\s+|just\s+)?(?:have|get|can\s+spare|can\s+find)\s+(?P<obj>(?:about\s+|around\s+|roughly\s+|maybe\s+|at\s+most\s+)?"
        + r"(?:an?|one|two|three|four|five|ten|\d+(?:[.,]\d+)?)\s*(?:-\s*\d+\s*)?(?:minutes?|mins?|hours?|hrs?|days?|evenings?)\s+"
        + r"(?:a|per|each|every)\s+(?:day|night|week|weekend|month|evening)\b.*)",
        "Has {obj}",
        "have get spare find",
        examples=(
            E(
                "I only have about 20 minutes a day to study.",
                "Has about 20 minutes a day to study",
            ),
        ),
    ),
    P(
        "budget",
        I
        + ADV
        + r"have\s+(?:a|an)\s+(?:max(?:imum)?\s+|total\s+|monthly\s+|weekly\s+)?budget\s+of\s+(?P<obj>.+)",
        "Budget is {obj}",
        "budget",
        examples=(E("I have a budget of 500 euros.", "Budget is 500 euros"),),
    ),
    P(
        "budget",
        I
        + ADV
        + r"(?P<verb>can'?t|cannot|can\s+not)\s+(?:afford\s+to\s+)?(?:spend|pay)\s+more\s+than\s+(?P<obj>.+)",
        "Cannot spend more than {obj}",
        "spend pay",
        examples=(
            E(
                "I can't spend more than 50 euros a month on software.",
                "Cannot spend more than 50 euros a month on software",
            ),
        ),
    ),
    P(
        "platform",
        START
        + r"(?:I|we)(?:'m|'re|\s+am|\s+are)\s+(?:still\s+|currently\s+)?(?:stuck|pinned|locked|limited|restricted|tied)\s+(?:on|to|with|into|at)\s+(?P<obj>.+)",
        "Is stuck on {obj}",
        "stuck pinned locked limited restricted tied",
        examples=(E("We're stuck on Python 3.8.", "Is stuck on Python 3.8"),),
    ),
    P(
        "platform_refused_technical",
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
        key="verb2",
        examples=(
            E(
                "I can't install Docker on my work laptop.",
                "Cannot install Docker on their work laptop",
            ),
        ),
    ),
    P(
        "platform_technical",
        START
        + r"(?:I|we)\s+(?:have|need|must)\s+(?:to\s+)?(?P<verb>support|stay\s+on|target|run\s+on|stick\s+to|be\s+compatible\s+with|deploy\s+on|ship\s+on)\s+(?P<obj>.+)",
        "Has to {verb} {obj}",
        "support stay target run stick compatible deploy ship",
        examples=(E("We have to stay on Node 16 for now.", "Has to stay on Node 16"),),
    ),
    P(
        "platform_choice",
        IM
        + ADV
        + r"(?:only\s+)?(?:on|using|running)\s+(?P<obj>(?:an?\s+)?(?:Windows|macOS|Mac|MacBook|Linux|Ubuntu|Debian|Fedora|Arch|NixOS|iOS|iPhone|iPad|Android|ChromeOS|Chromebook|M[1-4]|Intel|AMD|Raspberry\s+Pi|WSL)\b.*)",
        "Is on {obj}",
        "windows macos mac macbook linux ubuntu debian fedora arch nixos ios iphone ipad android chromeos chromebook m intel amd raspberry wsl",
        examples=(E("I'm on Windows 11 with WSL2.", "Is on Windows 11 with WSL2"),),
    ),
    P(
        "platform_refused",
        I
        + ADV
        + r"(?:don'?t|do\s+not)\s+have\s+(?P<obj>(?:admin|root|sudo|internet|a\s+car|a\s+gpu|a\s+credit\s+card|a\s+driver'?s\s+licen[cs]e|access\s+to)\b.*)",
        "Does not have {obj}",
        "have",
        examples=(
            E(
                "I don't have admin rights on this laptop.",
                "Does not have admin rights on this laptop",
            ),
        ),
    ),
    P(
        "reply_language_refused",
        PLEASE
        + r"(?:don'?t|do\s+not|stop|no\s+need\s+to)\s+(?:answer|respond|reply|write|talk|speak)(?:ing)?(?:\s+to\s+me)?\s+in\s+(?P<obj>"
        + LANGS
        + r")",
        "Does not want answers in {obj}",
        LANG_TRIGGERS,
        examples=(
            E("Don't answer in French anymore.", "Does not want answers in French"),
        ),
    ),
    P(
        "reply_language",
        PLEASE
        + r"(?:answer|respond|reply|write|talk|speak|communicate|chat)(?:\s+(?:back\s+)?to\s+me)?(?:\s+(?:always|only))?\s+(?:to\s+me\s+)?in\s+(?P<obj>"
        + LANGS
        + r")\b",
        "Wants answers in {obj}",
        LANG_TRIGGERS,
        examples=(E("Reply only in Dutch.", "Wants answers in Dutch"),),
    ),
    P(
        "reply_language",
        r"\b(?:answers?|responses?|replies)\s+(?:should|must)\s+(?:always\s+)?be\s+in\s+(?P<obj>"
        + LANGS
        + r")\b",
        "Wants answers in {obj}",
        LANG_TRIGGERS,
        own_start=True,
        examples=(E("Answers should be in German.", "Wants answers in German"),),
    ),
    P(
        "reply_language",
        START
        + r"I\s+(?:want|need|prefer|would\s+like|'d\s+like)\s+(?:you\s+to\s+(?:answer|reply|respond|write)|answers|responses|replies)\s+in\s+(?P<obj>"
        + LANGS
        + r")\b",
        "Wants answers in {obj}",
        LANG_TRIGGERS,
        examples=(E("I want answers in Spanish.", "Wants answers in Spanish"),),
    ),
    P(
        "ban",
        PLEASE
        + r"no\s+(?:more\s+)?(?P<obj>emojis?|emoticons|jargon|fluff|small\s+talk|disclaimers|apologies|bullet\s+points|markdown|tables|code\s+comments|preambles?|filler|exclamation\s+marks|yapping|lectures|moralizing|caveats)\b.*",
        "Does not want {obj}",
        "no",
        examples=(E("No emojis please.", "Does not want emojis"),),
    ),
    P(
        "ban_standing",
        PLEASE
        + r"(?P<verb>don'?t|do\s+not|never|stop|quit|avoid|please\s+don'?t)\s+(?:ever\s+|even\s+|always\s+)?(?P<obj>(?:use|using|add|adding|include|including|put|putting|apologi[sz]e|apologi[sz]ing|say|saying|start|starting|end|ending|repeat|repeating|give|giving|write|writing|explain|explaining|mention|mentioning|suggest|suggesting|recommend|recommending|sugarcoat|lecture|moraliz\w*|be|being|ask|asking|call|calling|make|making|assume|assuming|show|showing|summari[sz]e|summari[sz]ing|emojis?|jargon)\b.*)",
        {
            "avoid": "Wants the assistant to avoid {obj}",
            "": "Does not want the assistant to {obj}",
        },
        "don do not never stop quit avoid",
        examples=(E("Never use emojis.", "Does not want the assistant to use emojis"),),
    ),
    P(
        "standing",
        PLEASE
        + r"(?P<obj>(?:keep|be|use|write|format|give|answer|respond|reply|show|include|add|put|start|end|explain|cite|stick\s+to|default\s+to|assume|treat|spell|sign|talk|address|refer\s+to|prefer|limit|cap)\b.+)",
        "Wants the assistant to {obj}",
        "keep be use write format give answer respond reply show include add put start end explain cite stick default assume treat spell sign talk address refer prefer limit cap",
        examples=(
            E("Always use metric units.", "Wants the assistant to use metric units"),
        ),
    ),
    P(
        "standing",
        START
        + r"I\s+(?:want|need|would\s+like|'d\s+like|expect)\s+you\s+to\s+(?:always\s+)?(?P<obj>.+)",
        "Wants the assistant to {obj}",
        "want need like expect",
        examples=(
            E(
                "I want you to always include sources.",
                "Wants the assistant to include sources",
            ),
        ),
    ),
    P(
        "ban",
        START
        + r"I(?:'d|\s+would)\s+(?:prefer|like\s+it|rather|appreciate\s+it)\s+if\s+you\s+(?:didn'?t|did\s+not|wouldn'?t|would\s+not|don'?t|do\s+not|never|stopped|stop)\s+(?P<obj>.+)",
        "Does not want the assistant to {obj}",
        "prefer like rather appreciate",
        examples=(
            E(
                "I'd prefer if you didn't use emojis.",
                "Does not want the assistant to use emojis",
            ),
        ),
    ),
    # "I'd like all answers as numbered steps": how every answer should look
    P(
        "instruct",
        START
        + r"I(?:'d\s+like|\s+would\s+like|\s+want|\s+prefer|\s+need)\s+(?P<obj>(?:all\s+|your\s+|the\s+)*(?:answers|responses|replies|explanations|examples|summaries|code)\s+(?:as|in|to\s+be|with|without|formatted\s+as)\s+.+)",
        "Wants {obj}",
        "like want prefer need",
        examples=(
            E(
                "I'd like all answers as numbered steps.",
                "Wants all answers as numbered steps",
            ),
        ),
    ),
    P(
        "ban",
        PLEASE + r"(?:there's\s+)?no\s+need\s+to\s+(?P<obj>.+)",
        "Does not want the assistant to {obj}",
        "need",
        examples=(
            E(
                "No need to explain the basics, I'm a senior engineer.",
                "Does not want the assistant to explain the basics",
            ),
        ),
    ),
    P(
        "project_plan",
        r"(?:^(?:[\w ]{1,20}:\s*)?|,\s*)(?:currently\s+|now\s+|also\s+)?(?P<verb>building|developing|working\s+on|maintaining)\s+(?P<obj>(?:a|an|my|our)\s+.+)",
        "Is {verb} {obj}",
        "building developing working maintaining",
        own_start=True,
        examples=(
            E(
                "Context: solo dev, building a budgeting app with SvelteKit and Supabase.",
                "Is building a budgeting app with SvelteKit and Supabase",
            ),
        ),
    ),
    P(
        "instruct",
        PLEASE
        + r"make\s+(?:your\s+|the\s+|all\s+)?(?P<obj>(?:answers|responses|replies|explanations|code|examples|summaries)\s+.+)",
        "Wants the assistant to make {obj}",
        "make",
        examples=(
            E(
                "Make your answers shorter please.",
                "Wants the assistant to make answers shorter",
            ),
        ),
    ),
)


# -- projects, goals and events: phrases read by the shapes --------------------------------
PLANS: tuple[P, ...] = (
    P(
        "project",
        r"\bmy\s+(?:side\s+|pet\s+|current\s+|hobby\s+|main\s+|thesis\s+)?project\s+is\s+(?P<obj>.+)",
        "Their project is {obj}",
        "project",
        own_start=True,
        examples=(
            E(
                "My side project is a recipe search engine.",
                "Their project is a recipe search engine",
            ),
        ),
    ),
    P(
        "goal_plan",
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
        examples=(E("I'd like to learn Rust", "Would like to learn Rust"),),
    ),
    P(
        "goal",
        START
        + r"I(?:'m|\s+am)\s+"
        + ADV
        + r"(?P<verb>going\s+to|gonna)\s+(?P<obj>(?:move|travel|visit|start|begin|retire|graduate|quit|leave|apply|launch|run|get|take|fly|go|learn|study|buy|sell|build|open|have|become|marry|propose|switch\s+careers|change\s+jobs)\b.+)",
        "Is going to {obj}",
        "going gonna",
        examples=(
            E(
                "I'm going to move to Lisbon next spring.",
                "Is going to move to Lisbon next spring",
            ),
        ),
    ),
    P(
        "goal",
        START
        + r"I(?:'ll|\s+will)\s+(?P<obj>(?:be\s+moving|be\s+starting|be\s+travel+ing|be\s+visiting|be\s+retiring|be\s+graduating|move|travel|visit|retire|graduate|start\s+(?:a|my)\s+new|fly|relocate)\b.+)",
        "Will {obj}",
        "moving starting traveling travelling visiting retiring graduating move travel visit retire graduate start fly relocate",
        examples=(
            E(
                "I will move to Berlin next year if I get the job",
                "Will move to Berlin next year",
            ),
        ),
    ),
    P(
        "goal_plan",
        START
        + r"we(?:'re|\s+are)\s+"
        + ADV
        + r"(?P<verb>trying|planning|hoping|aiming|saving(?:\s+up)?)\s+(?:to|for)\s+(?P<obj>.+)",
        {
            "trying": "They are trying to {obj}",
            "planning": "They are planning to {obj}",
            "hoping": "They are hoping to {obj}",
            "aiming": "They are aiming to {obj}",
            "": "They are saving up for {obj}",
        },
        "trying planning hoping aiming saving",
        examples=(
            E("We're trying to get pregnant.", "They are trying to get pregnant"),
        ),
    ),
    P(
        "goal",
        IM + ADV + r"(?P<verb>moving|relocating|emigrating)\s+to\s+(?P<obj>.+)",
        "Is moving to {obj}",
        "moving relocating emigrating",
        stop="place",
        examples=(E("I'm moving to Lisbon.", "Is moving to Lisbon"),),
    ),
    P(
        "goal_plan",
        IM
        + ADV
        + r"(?P<verb>learning|studying|preparing\s+for|training\s+for|practicing|practising|saving\s+(?:up\s+)?for|applying\s+(?:to|for)|looking\s+to|getting\s+ready\s+for|working\s+towards?|trying\s+to\s+get)\s+(?P<obj>.+)",
        "Is {verb} {obj}",
        "learning studying preparing training practicing practising saving applying looking getting towards toward",
        examples=(
            E("I'm learning Spanish on Duolingo.", "Is learning Spanish on Duolingo"),
        ),
    ),
    P(
        "goal_plan",
        IM
        + ADV
        + r"(?P<verb>thinking\s+(?:of|about)|considering|contemplating)\s+(?P<obj>\w+ing\b.+)",
        "Is {verb} {obj}",
        "thinking considering contemplating",
        examples=(
            E(
                "I'm thinking of switching to a standing desk.",
                "Is thinking of switching to a standing desk",
            ),
        ),
    ),
    P(
        "goal",
        IM
        + ADV
        + r"(?P<verb>planning|organi[sz]ing|booking)\s+(?P<obj>(?:a|an|my|our)\s+(?:[\w-]+\s+){0,2}?(?:trip|holiday|vacation|move|wedding|party|renovation|career\s+change|sabbatical|honeymoon|launch|visit|marathon)\b.*)",
        "Is {verb} {obj}",
        "planning organising organizing booking",
        examples=(
            E(
                "I'm planning a trip to Vietnam in April with my mom.",
                "Is planning a trip to Vietnam in April with their mom",
            ),
        ),
    ),
    P(
        "goal_plan",
        I_ANY
        + r"(?:'ve\s+|have\s+)?(?:just\s+|recently\s+)?(?:started|begun|began|taken\s+up)\s+(?P<verb>learning|studying|practicing|practising|training\s+for|playing)\s+(?P<obj>.+)",
        "Started {verb} {obj}",
        "started begun began taken",
        examples=(
            E("I've just started learning the guitar.", "Started learning the guitar"),
        ),
    ),
    P(
        "goal_plan",
        I_ANY
        + ADV
        + r"(?:plan|'m\s+planning|am\s+planning)\s+on\s+(?P<obj>\w+ing\b.+)",
        "Plans on {obj}",
        "plan planning",
        examples=(
            E(
                "I plan on learning Korean next year.",
                "Plans on learning Korean next year",
            ),
        ),
    ),
    P(
        "goal",
        IM
        + ADV
        + r"(?P<verb>doing|pursuing|taking|studying\s+for|working\s+on|halfway\s+through|enrolled\s+in)\s+(?P<obj>(?:a|an|my)\s+(?:[\w'-]+\s+){0,2}?(?:master'?s|masters|phd|degree|mba|bootcamp|course|certificate|certification|diploma|apprenticeship|residency|internship|bachelor'?s|thesis|dissertation)\b.*)",
        "Is {verb} {obj}",
        "doing pursuing taking studying working halfway enrolled",
        examples=(
            E(
                "I'm doing a master's in data science at Edinburgh.",
                "Is doing a master's in data science at Edinburgh",
            ),
        ),
    ),
    P(
        "routine",
        IM
        + ADV
        + r"(?P<obj>(?:a|an)\s+(?:big|heavy|huge|light|avid|keen|regular|daily|occasional|casual|social)\s+(?:[\w-]+\s+)?(?:drinker|eater|reader|smoker|runner|gamer|sleeper|cyclist|swimmer|walker|hiker|snacker|user|riser|cook|baker))\b",
        "Is {obj}",
        "drinker eater reader smoker runner gamer sleeper cyclist swimmer walker hiker snacker user riser cook baker",
        examples=(
            E(
                "I'm a big coffee drinker, like 5 cups a day.",
                "Is a big coffee drinker",
            ),
        ),
    ),
    P(
        "event",
        START
        + r"(?:me\s+and\s+my\s+(?P<rel>\w+)|my\s+(?P<rel2>\w+)\s+and\s+I)\s+(?P<obj>(?:just\s+|recently\s+|finally\s+)?(?:got\s+(?:married|engaged)|bought|moved|adopted|had|welcomed|started|opened|launched)\b.+)",
        "{obj} with their {rel}{rel2}",
        "me and",
        examples=(
            E(
                "Me and my wife just bought a house in Asheville.",
                "Just bought a house in Asheville with their wife",
            ),
        ),
    ),
    P(
        "event",
        I_OR_WE
        + r"(?P<obj>(?:just\s+|recently\s+|finally\s+|also\s+)?(?:got\s+back|came\s+back|returned|flew\s+back|arrived\s+back|am\s+back|'m\s+back)\s+from\s+.+)",
        "{obj}",
        "back returned",
        examples=(
            E(
                "I just got back from two weeks in Japan.",
                "Just got back from two weeks in Japan",
            ),
        ),
    ),
    P(
        "event",
        I_OR_WE
        + r"(?P<obj>(?:just\s+|recently\s+|finally\s+|also\s+)?(?:got|became|was|were)\s+(?:married|engaged|divorced|promoted|hired|laid\s+off|fired|diagnosed\s+with|accepted\s+(?:to|into|at)|admitted\s+to|elected|a\s+(?:mom|mum|dad|parent|grandparent|grandma|grandpa|citizen|father|mother|uncle|aunt)|(?:my|a|an|our)\s+(?:first\s+|new\s+)?(?:job|promotion|puppy|kitten|dog|cat|car|house|apartment|flat|degree|diploma|license|licence|certification|black\s+belt|raise|offer|visa|green\s+card|phd|masters?|scholarship|tattoo|bike|tesla|steam\s+deck|macbook|laptop|iphone)\b).*)",
        "{obj}",
        "got became was were",
        examples=(E("I got married in May.", "Got married in May"),),
    ),
    P(
        "event",
        START
        + r"(?P<when>(?:last|this)\s+(?:week|weekend|month|year|summer|winter|spring|fall|autumn|morning|january|february|march|april|may|june|july|august|september|october|november|december|monday|tuesday|wednesday|thursday|friday|saturday|sunday)|yesterday|recently|in\s+(?:19|20)\d\d|\w+\s+(?:days|weeks|months|years)\s+ago)[,\s]+I\s+(?P<obj>(?:went|visited|traveled|travelled|flew|moved|started|finished|ran|won|lost|broke|bought|sold|adopted|launched|shipped|released|published|got|had|became|met|married|graduated|retired|passed|climbed|hiked|completed|quit|left)\b.+)",
        "{obj} {when}",
        "last this yesterday recently ago in",
        keep_case=False,
        examples=(
            E(
                "Last week I visited my grandparents in Kraków.",
                "Visited their grandparents in Kraków last week",
            ),
        ),
    ),
)


# -- preferences, decisions and habits: phrases read by the shapes of extraction/shapes.py ---
# Negative forms first, so "I don't like X" is stored as a negative fact and never as "X".
CHOICE_ADV = (
    r"(?:(?:really|truly|definitely|much|now|still|actually|generally|personally|also|just|"
    r"strongly|do|would)\s+)*"
)

CHOICES: tuple[P, ...] = (
    P(
        "dislike",
        I
        + CHOICE_ADV
        + r"(?P<verb>don'?t|do\s+not|no\s+longer|never|doesn'?t)\s+"
        + CHOICE_ADV
        + r"(?P<verb2>like|love|enjoy|prefer|want\s+to\s+use|care\s+for)\s+(?P<obj>.+)",
        {
            "like": "Does not like {obj}",
            "love": "Does not love {obj}",
            "enjoy": "Does not enjoy {obj}",
            "prefer": "Does not prefer {obj}",
            "want to use": "Does not want to use {obj}",
            "care for": "Does not care for {obj}",
            "": "Does not like {obj}",
        },
        "like love enjoy prefer want care",
        key="verb2",
        resolvable=True,
        examples=(E("I don't like Java", "Does not like Java"),),
    ),
    P(
        "dislike",
        I
        + CHOICE_ADV
        + r"(?P<verb>hate|dislike|detest|despise|can'?t\s+stand|cannot\s+stand|avoid)\s+(?P<obj>.+)",
        {
            "hate": "Hates {obj}",
            "dislike": "Dislikes {obj}",
            "detest": "Detests {obj}",
            "despise": "Despises {obj}",
            "can't stand": "Cannot stand {obj}",
            "cant stand": "Cannot stand {obj}",
            "cannot stand": "Cannot stand {obj}",
            "avoid": "Avoids {obj}",
            "": "Dislikes {obj}",
        },
        "hate dislike detest despise stand avoid",
        resolvable=True,
        examples=(E("I hate YAML", "Hates YAML"),),
    ),
    P(
        "dislike",
        I
        + CHOICE_ADV
        + r"(?P<verb>prefer|would\s+rather)\s+not\s+(?:to\s+)?(?P<obj>.+)",
        {
            "prefer": "Prefers not to {obj}",
            "would rather": "Would rather not {obj}",
            "": "Prefers not to {obj}",
        },
        "prefer rather",
        examples=(E("I prefer not to use ORMs", "Prefers not to use ORMs"),),
    ),
    P(
        "dislike",
        START
        + r"I(?:'m|\s+am)\s+(?P<verb>not\s+(?:a\s+|really\s+a\s+|much\s+of\s+a\s+)?fan)\s+of\s+(?P<obj>.+)",
        "Is not a fan of {obj}",
        "fan",
        resolvable=True,
        examples=(E("I'm not a fan of Java", "Is not a fan of Java"),),
    ),
    P(
        "dislike",
        START + r"I(?:'d|\s+would)\s+(?P<verb>rather)\s+not\s+(?:to\s+)?(?P<obj>.+)",
        "Would rather not {obj}",
        "rather",
        examples=(E("I'd rather not use ORMs", "Would rather not use ORMs"),),
    ),
    P(
        "prefer",
        START + r"I(?:'d|\s+would)\s+(?P<verb>rather)\s+(?:use\s+)?(?P<obj>.+)",
        "Prefers {obj}",
        "rather",
        examples=(E("I'd rather use Go", "Prefers Go"),),
    ),
    P(
        "like",
        START
        + r"I(?:'m|\s+am)\s+(?:a\s+)?(?:big\s+|huge\s+|great\s+)?(?P<verb>fan)\s+of\s+(?P<obj>.+)",
        "Is a fan of {obj}",
        "fan",
        resolvable=True,
        examples=(E("I'm a big fan of Haskell", "Is a fan of Haskell"),),
    ),
    P(
        "like",
        START
        + r"I(?:'m|\s+am)\s+(?:a|an)\s+(?:big\s+|huge\s+|great\s+|massive\s+|die-hard\s+|lifelong\s+)?(?P<obj>[A-Z][\w.&' -]{1,40}?)\s+(?P<verb>fan|supporter|nerd|geek|lover|enthusiast)\b",
        "Is a fan of {obj}",
        "fan",
        resolvable=True,
        examples=(E("I'm a huge Arsenal fan.", "Is a fan of Arsenal"),),
    ),
    P(
        "prefer",
        I + CHOICE_ADV + r"(?P<verb>prefer)\s+(?P<obj>.+)",
        "Prefers {obj}",
        "prefer",
        resolvable=True,
        examples=(E("I prefer Go. ", "Prefers Go"),),
    ),
    P(
        "prefer",
        r"\bmy\s+(?:(?:absolute|all-time)\s+)?(?P<verb>favou?rite)\s+(?P<what>[\w -]{1,40}?)\s+(?:is|are)\s+(?P<obj>.+)",
        "Favourite {what} is {obj}",
        "favourite favorite",
        own_start=True,
        examples=(E("My favourite tea is jasmine", "Favourite tea is jasmine"),),
    ),
    # "Sci-fi is my favourite genre": the same fact with the object first
    P(
        "prefer",
        r"^(?P<obj>[\w][\w' .&+-]{0,40}?)\s+(?:is|are)\s+(?:probably\s+|definitely\s+)?my\s+(?:(?:absolute|all-time)\s+)?(?P<verb>favou?rite)\s+(?P<what>[\w -]{1,40}?)(?=\s*(?:$|[.!,;]|\bespecially\b|\bby\s+far\b))",
        "Favourite {what} is {obj}",
        "favourite favorite",
        examples=(
            E(
                "Sci-fi is my favourite genre, especially Le Guin.",
                "Favourite genre is sci-fi",
            ),
        ),
    ),
    # "Jazz is my thing, especially Coltrane"
    P(
        "like",
        r"^(?P<obj>[\w][\w' .&+-]{0,40}?)\s+(?:is|are)\s+(?:totally\s+|really\s+)?my\s+(?P<verb>thing|jam|passion|obsession|happy\s+place)(?=\s*(?:$|[.!,;]))",
        "Loves {obj}",
        "thing jam passion obsession happy",
        examples=(E("Jazz is my thing, especially Coltrane.", "Loves jazz"),),
    ),
    # "I'm going with the Fairphone": a choice being made
    P(
        "decide",
        START
        + r"(?:I|we)(?:'m|'re|\s+am|\s+are)\s+(?:going|gonna\s+go)\s+with\s+(?P<obj>.+)",
        "Decided to go with {obj}",
        "going gonna",
        examples=(
            E("I'm going with the Fairphone.", "Decided to go with the Fairphone"),
        ),
    ),
    P(
        "decide_to",
        START
        + r"(?:I|we)(?:'ve|\s+have)?\s+(?P<verb>chosen|chose|decided|opted)\s+(?:to\s+)(?P<obj>(?!use\b|go\s+with\b|not\b).+)",
        {
            "decided": "Decided to {obj}",
            "opted": "Opted to {obj}",
            "": "Chose to {obj}",
        },
        "chosen chose decided opted",
        examples=(
            E(
                "I've decided to learn Rust instead of C++.",
                "Decided to learn Rust instead of C++",
            ),
        ),
    ),
    P(
        "like",
        I + CHOICE_ADV + r"(?P<verb>like|love|enjoy|adore)\s+(?P<obj>.+)",
        {
            "like": "Likes {obj}",
            "love": "Loves {obj}",
            "enjoy": "Enjoys {obj}",
            "adore": "Adores {obj}",
            "": "Likes {obj}",
        },
        "like love enjoy adore",
        resolvable=True,
        examples=(E("I like Java", "Likes Java"),),
    ),
    P(
        "decide_against",
        I
        + CHOICE_ADV
        + r"(?P<verb>won'?t|will\s+not|decided\s+not\s+to|decided\s+against|am\s+not\s+going\s+to|'m\s+not\s+going\s+to)\s+"
        + r"(?:use|using|adopt|adopting|go\s+with|going\s+with|pick|choose|switch\s+to|switching\s+to)\s+(?P<obj>.+)",
        "Decided not to use {obj}",
        "won wont will decided going",
        examples=(E("I won't use Kubernetes", "Decided not to use Kubernetes"),),
    ),
    P(
        "decide_against",
        START
        + r"I(?:'m|\s+am)\s+not\s+going\s+to\s+(?:use|adopt|go\s+with|pick|choose|switch\s+to)\s+(?P<obj>.+)",
        "Decided not to use {obj}",
        "going",
        examples=(E("I'm not going to use MongoDB.", "Decided not to use MongoDB"),),
    ),
    P(
        "decide",
        I_OR_WE
        + CHOICE_ADV
        + r"(?P<verb>switched|migrated|changed)(?P<thing>\s+(?:our|my|the|all\s+of\s+our|everything)(?:\s+[\w-]+){0,2}?)?\s+from\s+(?P<src>.+?)\s+to\s+(?P<obj>.+)",
        {
            "switched": "Switched from {src} to {obj}",
            "migrated": "Migrated from {src} to {obj}",
            "changed": "Changed from {src} to {obj}",
            "": "Switched from {src} to {obj}",
        },
        "switched migrated changed",
        examples=(E("I switched from tabs to spaces", "Switched from tabs to spaces"),),
    ),
    # "moved from MySQL to Postgres" is a decision; "moved from Oslo to Bergen" is not
    P(
        "switch",
        I_OR_WE
        + CHOICE_ADV
        + r"(?P<verb>moved)(?P<thing>\s+(?:our|my|the|all\s+of\s+our|everything)(?:\s+[\w-]+){0,2}?)?\s+from\s+(?P<src>.+?)\s+to\s+(?P<obj>.+)",
        "Moved from {src} to {obj}",
        "moved",
        examples=(
            E("We moved from MySQL to Postgres.", "Moved from MySQL to Postgres"),
        ),
    ),
    P(
        "decide",
        START
        + r"(?:I|we)(?:'ll|\s+will|'m\s+going\s+to|\s+am\s+going\s+to|'ve\s+decided\s+to|\s+have\s+decided\s+to|\s+decided\s+to)\s+"
        + CHOICE_ADV
        + r"(?P<verb>use|adopt|go\s+with|switch\s+to|pick|choose|stick\s+with|migrate\s+to)\s+(?P<obj>.+)",
        {
            "switch to": "Switched to {obj}",
            "migrate to": "Migrated to {obj}",
            "stick with": "Sticks with {obj}",
            "go with": "Decided to go with {obj}",
            "": "Decided to use {obj}",
        },
        "use adopt go switch pick choose stick migrate",
        examples=(E("I'll use vim", "Decided to use vim"),),
    ),
    P(
        "decide_in_domain",
        START
        + r"(?:I|we)(?:'ll|\s+will|'m\s+going\s+to|\s+am\s+going\s+to|'ve\s+decided\s+to|\s+have\s+decided\s+to|\s+decided\s+to)\s+"
        + CHOICE_ADV
        + r"(?P<verb>move\s+to)\s+(?P<obj>.+)",
        "Moved to {obj}",
        "move",
        examples=(E("I'm going to move to Postgres.", "Moved to Postgres"),),
    ),
    P(
        "decide",
        I_OR_WE
        + CHOICE_ADV
        + r"(?P<verb>chose|picked|went\s+with|switched\s+to|selected|opted\s+for|settled\s+on|decided\s+on|"
        + r"migrated\s+to)\s+(?P<obj>.+)",
        {
            "chose": "Chose {obj}",
            "picked": "Picked {obj}",
            "went with": "Went with {obj}",
            "switched to": "Switched to {obj}",
            "selected": "Selected {obj}",
            "opted for": "Opted for {obj}",
            "settled on": "Settled on {obj}",
            "decided on": "Decided on {obj}",
            "migrated to": "Migrated to {obj}",
            "": "Chose {obj}",
        },
        "chose picked went switched selected opted settled decided migrated",
        examples=(E("I chose MySQL", "Chose MySQL"),),
    ),
    # "I adopted a dog" is family news, not a technical choice
    P(
        "decide_named",
        I_OR_WE + CHOICE_ADV + r"(?P<verb>adopted)\s+(?P<obj>.+)",
        "Adopted {obj}",
        "adopted",
        examples=(E("We adopted Kotlin last year.", "Adopted Kotlin"),),
    ),
    P(
        "habit_never",
        I
        + r"(?P<verb>never|rarely|seldom|hardly\s+ever|don'?t\s+usually|do\s+not\s+usually|don'?t\s+ever|do\s+not\s+ever)\s+(?P<obj>.+)",
        {
            "never": "Never {obj}",
            "rarely": "Rarely {obj}",
            "seldom": "Seldom {obj}",
            "hardly ever": "Hardly ever {obj}",
            "": "Does not usually {obj}",
        },
        "never rarely seldom hardly usually ever",
        examples=(E("I never use Windows", "Never use Windows"),),
    ),
    # "Every morning I do 10 minutes of yoga": the routine with its time first
    P(
        "habit",
        r"^(?P<when>(?:every|each)\s+(?:single\s+)?(?:day|night|morning|evening|afternoon|week|weekend|month|monday|tuesday|wednesday|thursday|friday|saturday|sunday)),?\s+(?:I|we)\s+"
        + r"(?!(?:am|was|have\s+to|had|need|want|wish|hope|think|feel|can|could|will|would|should|must|might|don't)\b)(?P<verb>[a-z]+)\s+(?P<obj>.+)",
        "{verb_s} {obj} {when}",
        "every each",
        examples=(
            E("Every Friday we do pizza night.", "Does pizza night every friday"),
        ),
    ),
    # "I journal every night before bed": a routine named by how often, not by "usually"
    P(
        "habit",
        I
        + r"(?!(?:am|was|have|had|need|want|wish|hope|think|feel|can|could|will|would|should|must|might|do|did|don't|get\s+to)\b)"
        + r"(?P<verb>[a-z]+(?:-[a-z]+)?)\s+(?P<obj>(?:[\w'-]+\s+){0,4}?(?:(?i:every|each)\s+(?:single\s+)?(?i:day|night|morning|evening|afternoon|week|weekend|month|monday|tuesday|wednesday|thursday|friday|saturday|sunday)|(?i:on)\s+(?i:mondays|tuesdays|wednesdays|thursdays|fridays|saturdays|sundays|weekends|weekdays)|(?i:once|twice|three\s+times|four\s+times|\d+\s+times|a\s+few\s+times)\s+(?:a|per)\s+(?i:day|week|month))\b.*)",
        "{verb_s} {obj}",
        "every each mondays tuesdays wednesdays thursdays fridays saturdays sundays weekends weekdays once twice times",
        case_sensitive=True,
        examples=(E("I meal-prep on Sundays.", "Meal-preps on Sundays"),),
    ),
    P(
        "habit_choice",
        I
        + r"(?P<verb>usually|always|often|typically|normally|generally|regularly|mostly|tend\s+to)\s+(?P<obj>.+)",
        {
            "usually": "Usually {obj}",
            "always": "Always {obj}",
            "often": "Often {obj}",
            "typically": "Typically {obj}",
            "normally": "Normally {obj}",
            "generally": "Generally {obj}",
            "regularly": "Regularly {obj}",
            "mostly": "Mostly {obj}",
            "tend to": "Tends to {obj}",
            "": "Usually {obj}",
        },
        "usually always often typically normally generally regularly mostly tend",
        examples=(E("I tend to work late", "Tends to work late"),),
    ),
)


# What the user's devices are and run, tried right after `PEOPLE`.
DEVICES: tuple[P, ...] = (
    P(
        "device_named",
        r"\b(?:my|our)\s+(?P<what>(?:new\s+|work\s+|main\s+|current\s+|personal\s+)?(?:laptop|machine|computer|desktop|workstation|phone|editor|ide|os|car))\s+(?P<verb>is|'s)\s+(?P<obj>.+)",
        "Their {what} {verb} {obj}",
        "laptop machine computer desktop workstation phone editor ide os car",
        own_start=True,
        examples=(E("My phone is a Pixel 8.", "Their phone is a Pixel 8"),),
    ),
    P(
        "stack_named",
        r"\b(?:my|our)\s+(?P<what>(?:new\s+|work\s+|main\s+|current\s+|personal\s+)?(?:laptop|machine|computer|desktop|workstation|phone|editor|ide|os|car))\s+(?P<verb>runs|runs\s+on|uses|has)\s+(?P<obj>.+)",
        "Their {what} {verb} {obj}",
        "laptop machine computer desktop workstation phone editor ide os car",
        own_start=True,
        examples=(E("My laptop runs Arch Linux.", "Their laptop runs Arch Linux"),),
    ),
)

# What the user builds with, builds and aims at, then the events of their life.
PROJECTS: tuple[P, ...] = (
    P(
        "stack_used",
        r"(?P<who>I|we)(?:\s+|(?='))"
        + ADV
        + r"(?P<verb>use|are\s+using|'re\s+using|am\s+using|'m\s+using|rely\s+on|run|are\s+running|'re\s+running|(?:deploy|host|run)(?:\s+(?:everything|it\s+all|all\s+of\s+it|our\s+\w+|it|things|stuff))?\s+(?:to|on|with|at|in)|build\s+(?:with|on)|develop\s+(?:with|in)|code(?:\s+(?:mostly|mainly|primarily|only))?\s+in|write|program(?:\s+(?:mostly|mainly|primarily|only))?\s+in|work\s+with|are\s+on|'re\s+on|standardi[sz]ed\s+on)\s+(?P<obj>.+)",
        {"i": "Uses {obj}", "we": "Their team uses {obj}"},
        "use using rely run running deploy host build develop code write program work on standardized standardised",
        key="who",
        resolvable=True,
        examples=(E("I use Vim.", "Uses Vim"),),
    ),
    P(
        "stack_fact",
        r"(?:\b(?P<who>our|my)|^(?:the|The))\s+(?P<what>(?:main\s+|whole\s+|tech\s+|current\s+|production\s+|new\s+)?(?:stack|tech\s+stack|backend|back-end|frontend|front-end|database|db|api|apis|infra|infrastructure|ci|ci/cd|pipeline|app|apps|application|website|site|service|services|server|servers|cluster|monorepo|codebase|repo|project|product|data\s+warehouse|orm|framework|cloud|hosting|deployment|mobile\s+app|code|models?|platform|web\s+app|data|dev\s+environment|setup|blog|shop|store|newsletter|podcast|portfolio)(?:\s+\w+)?)\s+(?P<verb>is|are|runs|run|uses|use|'s|lives|sits|is\s+written|is\s+built|are\s+written|are\s+built|was\s+built|was\s+written|is\s+hosted|are\s+hosted|is\s+deployed|are\s+deployed|targets|depends\s+on|talk\s+(?:over|via|through)|communicate\s+(?:over|via|through)|run\s+on|live\s+on)\s+(?P<obj>.+)",
        "Their {what} {verb} {obj}",
        "stack backend frontend database db api apis infra infrastructure ci pipeline app apps application website site service services server servers cluster monorepo codebase repo project product warehouse orm framework cloud hosting deployment code model models platform data environment setup blog shop store newsletter podcast portfolio",
        own_start=True,
        examples=(E("My blog runs on Hugo.", "Their blog runs on Hugo"),),
    ),
    P(
        "project_built",
        r"(?P<who>I|we)(?:'m|'re|\s+am|\s+are)\s+"
        + ADV
        + r"(?:in\s+the\s+middle\s+of\s+|busy\s+)?(?P<verb>building|developing|making|writing|creating|rewriting|refactoring|working\s+on|maintaining|launching|designing|prototyping|training|fine-tuning|self-hosting|hosting|running|(?:migrating|moving|switching|porting)(?:\s+\w+){0,2}?\s+from\s+.+?\s+to|migrating\s+to|moving\s+to|switching\s+to|porting)\s+(?P<obj>.+)",
        {"i": "Is {verb} {obj}", "we": "Their team is {verb} {obj}"},
        "building developing making writing creating rewriting refactoring working maintaining launching designing prototyping migrating moving porting switching training tuning hosting running",
        key="who",
        resolvable=True,
        examples=(
            E(
                "I'm developing a Discord bot in Python.",
                "Is developing a Discord bot in Python",
            ),
        ),
    ),
    P(
        "goal_named",
        r"\b(?:my|^the|^our)\s+(?:main\s+|big\s+|long-term\s+|short-term\s+|ultimate\s+|next\s+|career\s+|fitness\s+|new\s+year'?s?\s+)?(?P<what>goal|goals|plan|plans|dream|aim|objective|resolution|target|ambition)(?:\s+for\s+[\w\s]{2,20}?|\s+(?:this|next|for\s+the)\s+\w+)?\s+(?:is|are)\s+(?P<obj>.+)",
        "Their {what} is {obj}",
        "goal goals plan plans dream aim objective resolution target ambition",
        own_start=True,
        examples=(
            E("My dream is to open a bookshop.", "Their dream is to open a bookshop"),
        ),
    ),
)

# Events of the user's life, after what the user builds.
EVENTS: tuple[P, ...] = (
    P(
        "event_not_task",
        r"^(?P<obj>(?:just|finally|recently)\s+(?:got|bought|finished|started|moved|graduated|retired|adopted|launched|passed|turned|became|had|joined|quit|left|hit|won)\b.+)",
        "{obj}",
        "just finally recently",
        own_start=True,
        examples=(
            E("Just moved to Denver last week", "Just moved to Denver last week"),
        ),
    ),
    P(
        "event_not_pointing",
        r"(?:I|we)\s+"
        + r"(?P<obj>(?:just\s+|recently\s+|finally\s+|also\s+)?(?:graduated|retired|gave\s+birth|quit\s+my\s+job|left\s+my\s+job|lost\s+my\s+job|changed\s+jobs|got\s+fired|had\s+(?:a\s+)?(?:baby|twins|surgery|an?\s+operation|a\s+kid)|had\s+(?:a\s+|an\s+|my\s+)?(?:[\w-]+\s+){1,2}?(?:surgery|operation|transplant|accident|stroke|heart\s+attack|concussion|miscarriage|c-section)|started\s+(?:at|a\s+new\s+job|working\s+(?:at|for)|my\s+(?:new\s+)?job)|joined|founded|co-founded|defended\s+my|got\s+my\s+first|passed\s+my|finished\s+my|completed\s+my|published\s+my|launched\s+my|ran\s+(?:a|my\s+first)\s+(?:marathon|half|10k|5k|ultra)|adopted\s+(?:a|an|two)|bought\s+(?:a|(?:my|our)(?:\s+first)?)\s+(?:house|home|flat|apartment|car)|turned\s+\d+|became\s+a)\b.*)",
        "{obj}",
        "graduated retired gave had started joined founded co defended got passed finished completed published launched ran adopted bought turned became quit left lost changed fired",
        examples=(E("I just turned 30!", "Just turned 30"),),
    ),
    P(
        "event_not_task",
        r"(?:I|we)\s+"
        + r"(?P<obj>(?:just|recently|finally)\s+(?:got|bought|adopted|built|finished|started|launched|shipped|released|published|joined|passed|won|ran|completed|signed|sold|opened|found|made|hit|reached|crossed|became|had|turned|celebrated|visited|returned|welcomed|hired|raised|closed|moved|went|came)\b.+)",
        "{obj}",
        "just recently finally",
        examples=(
            E(
                "I just had my first baby last month.",
                "Just had their first baby last month",
            ),
        ),
    ),
    P(
        "event_dated",
        r"(?:I|we)\s+"
        + r"(?P<obj>(?:went|visited|traveled|travelled|flew|moved|started|finished|ran|won|lost|broke|bought|sold|launched|shipped|released|published|got|had|met|climbed|hiked|completed|passed)\b.+?\s+(?:last|this)\s+(?:week|weekend|month|year|summer|winter|spring|fall|autumn|january|february|march|april|may|june|july|august|september|october|november|december|monday|tuesday|wednesday|thursday|friday|saturday|sunday)|(?:went|visited|traveled|travelled|flew|moved|started|finished|ran|won|lost|broke|bought|sold|launched|shipped|released|published|got|had|met|climbed|hiked|completed|passed)\b.+?\s+(?:yesterday|\w+\s+(?:days|weeks|months|years)\s+ago|in\s+(?:19|20)\d\d))\b",
        "{obj}",
        "last this yesterday ago in",
        examples=(E("I moved to Berlin in 2019.", "Moved to Berlin in 2019"),),
    ),
)

# -- clauses that state no fact (engine/extraction/clauses.py) --------------------------------
QUESTION_START = (
    r"^(?:(?:so|and|but|ok|okay|also|hey|hi|well|now|quick\s+question)[,:]?\s+)*"
    r"(?:do|does|did|can|could|would|should|will|shall|is|are|am|was|were|have|has|had|how|what|"
    r"why|where|which|who|whom|whose|may|might|must|isn't|aren't|don't|doesn't|didn't|won't|"
    r"wouldn't|shouldn't|can't|couldn't)\s+(?:I|you|we|my|it|there|the|a|an|this|that|they|he|she|"
    r"your|u|one|anyone|someone)\b"
    r"|^(?:how|what|why|where|when|which|who)(?:'s|\s+(?:am|are|is|do|does|did|can|could|should|would|will|"
    r"was|were|has|have))\b"
)
QUESTION_TAIL = (
    r"what|how|why|where|which|who|can\s+you|could\s+you|would\s+you|should\s+I|do\s+you|"
    r"is\s+there|are\s+there|any\s+(?:ideas|tips|suggestions)"
)
HYPOTHETICAL = (
    r"if|suppose|supposing|imagine|imagining|let's\s+say|lets\s+say|let\s+us\s+say|say|pretend|"
    r"assume|assuming|hypothetically|what\s+if|in\s+a\s+world|picture\s+this|even\s+if|unless"
)
CONDITIONAL = (
    r"\b(?:I(?:'d|\s+would|\s+could|\s+might)|we(?:'d|\s+would|\s+could|\s+might))\s+"
    r"(?!(?:really\s+|much\s+|also\s+|still\s+)*(?:like|love|rather|prefer|appreciate|enjoy|hate|"
    r"say|describe|call)\b)\w+"
)
FICTION = (
    r"in\s+(?:this|the|my|our|a)\s+(?:story|novel|game|scenario|role-?play|book|script|"
    r"dream|fiction|fantasy|poem|song|screenplay|campaign|simulation)|my\s+character|as\s+a\s+character|"
    r"role-?play(?:ing)?|pretend(?:ing)?\s+(?:to\s+be|that|you|I)|act\s+as|you\s+are\s+now|"
    r"for\s+(?:a|my|the)\s+(?:story|novel|game|screenplay|example|test|exercise|demo|sample)"
)
REPORTED = (
    r"said|says|say\s+that|told\s+(?:me|us|him|her|them)|tells\s+(?:me|us)|thinks|believes|"
    r"claims?|claimed|insists|insisted|mentioned|wrote|writes|asked\s+(?:me|if|whether)|"
    r"according\s+to|apparently|supposedly|allegedly"
)
REQUEST_PREFIX = (
    r"please|pls|plz|kindly|ok|okay|now|hey|hi|so|and|also|then|quick|just|"
    r"(?:can|could|would|will)\s+(?:you|u)(?:\s+please)?|i\s+(?:need|want|would\s+like|'d\s+like)\s+(?:you\s+)?to|"
    r"help\s+me(?:\s+to)?|i\s+need\s+help\s+(?:to|with)"
)
REQUEST = (
    r"translate|summari[sz]e|sum\s+up|rewrite|re-write|rephrase|paraphrase|reword|proofread|"
    r"correct|edit|polish|shorten|expand|continue|complete|improve|simplify|write|draft|compose|"
    r"generate|create|make\s+up|make\s+(?:this|it|that|these)\b|come\s+up\s+with|give\s+me\s+(?:a|an|some|\d+)|tell\s+me\s+a|turn|"
    r"convert|reformat|respond\s+to|reply\s+to|answer\s+this|critique|grade|spell-?check|tl;?dr|"
    r"roleplay|role-play|pretend|act\s+as"
)


REQUEST_INSIDE = (
    r"how\s+(?:do|would)\s+(?:you|I)\s+say|how\s+to\s+say|in\s+the\s+voice\s+of|"
    r"(?:can|could|would)\s+you\s+(?:please\s+)?(?:translate|summari[sz]e|rewrite|rephrase|"
    r"proofread|write|draft|compose)|tell\s+(?:him|her|them|my\s+\w+)\s+(?:that\s+)?I\b|"
    r"translat(?:e|ed|ion)\s+(?:into|to|in)\s+\w+|story\s+(?:where|about|in\s+which)|"
    r"(?:poem|song|story|essay|email|letter|tweet|post|bio|speech)\s+(?:where|about|in\s+which|"
    r"that\s+says|saying|from\s+the\s+perspective)"
)
MATERIAL = (
    r"this|it|these|those|the\s+(?:above|following|text|email|message|"
    r"paragraph|sentence|sentences|draft|letter|passage|note)|my\s+(?:\w+\s+)?(?:cover\s+letter|"
    r"letter|email|essay|draft|text|resume|résumé|cv|bio|post|paragraph|message|speech|story|poem|"
    r"answer|reply|statement|profile|summary|intro|introduction)|below|above|following"
)
THIRD_PERSON = {
    "my": "their",
    "mine": "theirs",
    "myself": "themselves",
    "me": "them",
    "i": "they",
    "i'm": "they're",
    "i've": "they've",
    "i'll": "they'll",
    "i'd": "they'd",
    "our": "their",
    "ours": "theirs",
    "we": "they",
    "us": "them",
    "ourselves": "themselves",
    "am": "are",
}

NOT_ABOUT_USER = (
    r"you|your|yours|u|ur|this|that|these|those|it|its|there|above|below|"
    r"here(?!\s+(?:in|at|on)\s+(?-i:[A-ZÀ-Ý]))|"  # "here in Porto Alegre" is a place
    r"one|ones|second|third|former|latter|previous|version|option|draft|suggestion|approach|"
    r"solution|example|says|said|thinks|told|tells|error|errors|bug|bugs|code|file|files|"
    r"script|function|command|output|log|logs|answer|question|thanks|thank|sorry|"
    r"confused|mean|meant|see|think|thought|guess|sure|know|wonder|wondering|curious|"
    r"tried|try|trying|works|worked|fix|fixed|help|helps|"
    r"wrong|right|paste|pasted|copy|copied|run|ran|running|getting|restart|restarted|"
    r"click|clicked|page|screen|tab|login|password|account|"
    r"today|tonight|tomorrow|now|moment|minute|again|still|"
    r"will|would|could|should|can|might|may|must|maybe|probably|need|needs|have\s+to|has\s+to|"
    r"gonna|going\s+to|hope|feel|felt|feeling|agree|understand|remember|forgot|forget|lost|"
    r"missing|ask|asking|asked|looking\s+for|trying\s+to|already|either|neither|idea|"
    r"mind|cache|ok|okay|fine|"
    r"slept|sleep|freaking|stuck|ticket|tickets|commit|branch|merge|pipeline|sprint|deadline|"
    r"meeting|meetings|appointment|exam|mail|e-mail|email"
)

# The words that name a fact's family (the net: engine/extraction/self_statement.py).
FAMILY_WORDS = {
    "habit": (
        r"every|each|usually|always|often|daily|weekly|nightly|weekends?|mornings|evenings|"
        r"most\s+days|\d+\s*x\s+(?:a|per)|times\s+(?:a|per)"
    ),
    "constraint": (
        r"allerg\w*|vegan\w*|vegetarian\w*|pescatarian|gluten|lactose|intoleran\w*|celiac|"
        r"coeliac|diabet\w*|budget|adhd|dyslexi\w*|deaf|blind|migraines?|asthma|kosher|halal|"
        r"wheelchair|laptop|notebook|chromebook|macbook|windows|linux|iphone|android|ram|"
        r"disease|condition|screen\s+reader|nvda|jaws|voiceover"
    ),
    "family": (
        r"wife|husband|partner|boyfriend|girlfriend|fianc\w*|kids?|kiddo|son|sons|daughters?|"
        r"children|child|baby|toddler|mom|mum|mother|dad|father|parents|brother|sister|siblings?|"
        r"grandma|grandpa|dog|cat|puppy|kitten|pets?|married|divorced|twins"
    ),
    "work": (
        r"work|works|working|job|engineer|developer|dev|designer|teacher|nurse|doctor|student|"
        r"sophomore|freshman|phd|retired|freelanc\w*|company|employer|manager|consultant|lawyer|"
        r"accountant|shifts?|startup|intern"
    ),
    "location": (
        r"live|lives|living|based|timezone|time\s+zone|neighbou?rhood|flat|apartment|"
        r"hail\s+from"
    ),
    "identity": (
        r"name|pronouns|years\s+old|born|native|nationality|first\s+language|originally"
    ),
    "instruction": (r"answers|replies|respond|explanations?|emojis?|bullet\s+points"),
    "goal": (r"want|wants|plan|planning|goal|learning|training|saving|aim|dream"),
    "stack": (
        r"stack|deploy\w*|framework|database|backend|frontend|repo|monorepo|kubernetes|k8s|aws|"
        r"gcp|azure|docker|python|java|kotlin|rust|golang|typescript|javascript|react|vue|angular|"
        r"django|rails|laravel|symfony|postgres\w*|mysql|mongo\w*|redis"
    ),
    "decision": (r"decided|chose|going\s+with|went\s+with|picked|settled|ruled\s+out"),
    "preference": (
        r"like|likes|love|loves|hate|hates|fan|favou?rite|fav|prefer|enjoy|adore|nerd|geek|"
        r"obsessed|sucker|can't\s+stand|refuse"
    ),
    "event": (
        r"graduated|got\s+married|got\s+engaged|got\s+divorced|got\s+promoted|promoted|"
        r"laid\s+off|had\s+(?:a|our|my)\s+(?:baby|son|daughter)"
    ),
}


PACK = LanguagePack(
    code="en",
    family_words=FAMILY_WORDS,
    use_verbs=("use", "are using", "'re using", "am using", "'m using", "rely"),
    aids=r"(?:a\s+)?(?:screen\s*reader|wheelchair|hearing)",
    passing_states=(
        r"(?:down|broken|slow|failing|not|great|awesome|a\s+mess|buggy|crashing|giving|throwing|returning)\b"
    ),
    being_verbs=frozenset(["is", "are", "'s"]),
    chores=(
        r"(?:a\s+)?(?:\w+\s+)?(?:function|script|query|regex|email|letter|post|essay|list|mistake|progress|dinner|lunch|breakfast|coffee|tea|sure)\b"
    ),
    loose_verbs=LOOSE_VERBS,
    not_goal_starts=("simple", "this", "that", "to ask", "to know", "to understand"),
    task_words=r"this|that|it|error|bug|issue|problem|message|warning",
    pointing_end=r"this|that|it",
    output_words=(
        r"error|bug|issue|problem|exception|warning|message|result|output|response|reply"
    ),
    passing=words(
        "away out off busy free available late early home back sick ill tired exhausted fine "
        "good great happy sad excited nervous stressed bored flexible ready done sure glad "
        "sorry new at in on with off about going gonna trying im am"
    ),
    empty_words=words("really totally truly absolutely"),
    clause_ends=(
        r"because|since|as\s+it|as\s+they|but|so\s+that|so|which|when|whenever|if|unless|though|"
        r"although|except|and\s+(?:I|we|my|our|it|that|this|you)|or\s+(?:I|we)"
    ),
    name_ends=r"and|from",
    scope_words=r"for|in|when|with|on",
    universal_scopes=r"everything|anything|all(?:\s+(?:of\s+)?(?:my|our|the|their)?\s*\w+)?|every\s+\w+|any\s+\w+",
    i_am=r"I'm|I\s+am|we're|we\s+are",
    mail_headers=r"From|To|Cc|Bcc|Subject|Sent|Date|Reply-To",
    reply_lines=(
        r"-{2,}\s*(?:Original Message|Forwarded message)|On .{5,120} wrote:\s*$"
    ),
    comma_stops=(
        r"I|I'm|we|it|this|that|they|he|she|you|there|please|thanks|thank|what|how|why|"
        r"can|could|would|do|does|is|are|which|who|so|and\s+I|honestly|really|lol|haha|btw|"
        r"though|however|anyway|then|now|currently"
    ),
    sentence_openers=(
        r"please|pls|also|and|so|ok|okay|always|from\s+now\s+on|going\s+forward|never|"
        r"don'?t|do\s+not|stop|avoid|quit"
    ),
    busy=r"I'm|I\s+am|we're|we\s+are",
    deictic_preps=r"on|with|for|to",
    deictic_objects=(
        r"this|that|these|those|the\s+same|here|the\s+(?:former|latter)|how|what|where|when|why|"
        r"the\s+way|"
        r"(?:the|your)\s+(?:first|second|third|fourth|last|other|previous|next|new|old|original|updated|"
        r"revised|above|shorter|longer|earlier|later|final)\s+(?:one|ones|option|options|version|"
        r"versions|approach|answer|suggestion|choice|draft|variant|solution|idea|example|proposal|"
        r"snippet|attempt)"
    ),
    time_phrases=(
        r"(?:this|next|last)\s+(?:week|weekend|month|quarter|year|summer|winter|spring|fall|autumn|"
        r"sprint)|(?:a\s+)?(?:few|couple\s+of)\s+(?:days|weeks|months|years)\s+ago|(?:for|since)\s+(?:\d+|a|a\s+few|a\s+couple\s+of|many|several|one|two|three|four|five|six|seven|eight|nine|ten|twenty)\s+(?:days|weeks|months|"
        r"years)|yesterday|today|recently|\w+\s+(?:days|weeks|months|years)\s+ago|in\s+(?:19|20)\d\d"
    ),
    time_ends=words(
        "week weekend month quarter year summer winter spring fall autumn sprint days "
        "weeks months years yesterday today recently ago"
    ),
    intensifiers=words("a lot so much too very really more when how way about better"),
    chapters=r"chapter|scene",
    chapter_numbers=r"one|two|three",
    book_parts=r"prologue|epilogue",
    tale_openings=r"once\s+upon\s+a\s+time|(?:INT|EXT)\.\s",
    phrases=(*PEOPLE, *DEVICES, *PROJECTS, *EVENTS, *NEEDS, *PLANS, *CHOICES),
    stop="",
    role_stop=ROLE_STOP,
    place_stop=PLACE_STOP,
    name_stop=NAME_STOP,
    statement_stop=OBJ_STOP,
    name_particles=words("de da van von der del la le al bin ben"),
    not_names=NOT_NAMES,
    not_signatures=NOT_SIGNATURES,
    not_a_name=NOT_A_NAME,
    not_places=NOT_PLACES,
    verbish=VERBISH,
    stance_verbs=(
        r"likes?|loves?|prefers?|hates?|wants?|thinks?|says?|said|told|asked|believes?|feels?"
    ),
    articles=words("a an the"),
    role_words=ROLE_WORDS,
    role_suffixes=ROLE_SUFFIXES,
    not_roles=NOT_ROLES,
    not_a_job=NOT_A_JOB,
    technical=TECH,
    style=STYLE,
    behaviour=BEHAVIOUR,
    standing=STANDING,
    length=LENGTH,
    tone=TONE,
    task_verbs=TASK_VERBS,
    horizon=HORIZON,
    deictic="this|that|it|these|those",
    relatives=REL,
    relative_triggers=REL_TRIGGERS,
    diets=DIETS,
    languages=LANGS,
    language_triggers=LANG_TRIGGERS,
    subjects=r"I|I'm|I've|I'd|I'll|my|mine|myself|we|we're|our|ours",
    negators=words("not never no nor dont"),
    negations=r"not|don't|dont|do\s+not|never|no\s+longer|have\s+no",
    aversions=r"hate|hates|dislike|can't\s+stand|refuse|ruled\s+out|against",
    common=words(
        "i i'm i've we my our the an and to of in on at for with is am are it from"
    ),
    fillers=words(
        "and but so also btw fyi oh well ok okay honestly plus anyway hey hi hello ugh lol haha"
    ),
    trailing=(
        "now",
        "for now",
        "for the time being",
        "currently",
        "these days",
        "nowadays",
        "anymore",
        "any more",
        "any longer",
        "at the moment",
        "right now",
        "lol",
        "haha",
        "too",
        "as well",
        "tbh",
        "btw",
        "honestly",
        "thanks",
        "please",
    ),
    joiners=words("and"),
    now=r"now|these\s+days|nowadays|instead",
    clause_joiners=words(
        "and but so plus also though although while whereas because since as cause"
    ),
    question_start=QUESTION_START,
    question_tail=QUESTION_TAIL,
    hypothetical_leads=r"and|but|so|ok|okay|well|now|then|also",
    hypothetical=HYPOTHETICAL,
    hypothetical_words=words(
        "if suppose supposing imagine imagining let lets say pretend assume assuming "
        "hypothetically what world picture even unless would could might d"
    ),
    conditional=CONDITIONAL,
    fiction=FICTION,
    fiction_words=words(
        "story novel game scenario roleplay role play book script dream fiction fantasy "
        "poem song screenplay campaign simulation character pretend pretending act you "
        "example test exercise demo sample"
    ),
    reported=REPORTED,
    reported_words=words(
        "said says say told tells thinks believes claims claim claimed insists insisted "
        "mentioned wrote writes asked according apparently supposedly allegedly"
    ),
    request_prefix=REQUEST_PREFIX,
    request=REQUEST,
    request_words=words(
        "make translate translated translation summarize summarise sum rewrite write "
        "rephrase paraphrase reword proofread correct edit polish shorten expand continue "
        "complete improve simplify draft compose generate create make come give tell turn "
        "convert reformat respond reply answer critique grade spell tl dr tldr roleplay "
        "role pretend act say voice story poem song essay email letter tweet post bio "
        "speech"
    ),
    please=r"please|pls",
    bans=r"no|never|don't|do\s+not",
    order_negations=r"don't|never|do\s+not|no\s+more",
    speaker=r"I",
    request_inside=REQUEST_INSIDE,
    material=MATERIAL,
    creative=(
        r"story|stories|poem|song|lyrics|scene|dialogue|role-?play|pretend|act\s+as|script|"
        r"character|tale|fanfic|fiction|novel|screenplay|limerick|haiku|joke"
    ),
    request_standing=(
        r"always|from\s+now\s+on|going\s+forward|in\s+(?:the\s+)?future|by\s+default|every\s+time|"
        r"whenever|everything|all\s+(?:code|answers|responses|replies|examples|your)"
    ),
    order_standing=(
        r"always|from\s+now\s+on|going\s+forward|whenever|every\s+time|in\s+(?:the\s+)?future|"
        r"by\s+default"
    ),
    answer_words=(
        r"answers?|replies|reply|responses?|explanations?|units|metric|imperial|bullets?|"
        r"bullet\s+points|links|emojis?|tone|jargon|disclaimers?|headings|tables|examples"
    ),
    about_this=(
        r"this|that|it|these|those|below|above|following|email|message|question|letter|text|"
        r"code|file|post|mail|e-mail"
    ),
    greetings=(
        r"Dear|Hi|Hello|Hey|Hiya|Good\s+(?:morning|afternoon|evening)|To\s+whom\s+it\s+may\s+concern"
    ),
    signoffs=(
        r"Best|Regards|Kind\s+regards|Best\s+regards|Warm\s+regards|Sincerely|Cheers|Thanks|"
        r"Thank\s+you|Many\s+thanks|Best\s+wishes|Yours(?:\s+\w+)?|Love|Talk\s+soon"
    ),
    payload_words=(
        r"text|email|e-mail|mail|message|draft|letter|paragraph|essay|post|story|poem|log|logs|"
        r"output|error|traceback|transcript|conversation|chat|note|review|document|article|passage|"
        r"quote|following|below"
    ),
    labels=frozenset(
        [
            "note",
            "ps",
            "p.s",
            "fyi",
            "update",
            "edit",
            "context",
            "background",
            "tl;dr",
            "tldr",
            "question",
            "answer",
            "summary",
            "important",
            "warning",
            "example",
        ]
    ),
    pronouns=words("it this that them those these one ones so him her they there here"),
    second_person=r"you|your|yours|yourself|yourselves|u|ur",
    end_words=words(
        "because since as but so which when whenever if unless though although except and or"
    ),
    third_person=THIRD_PERSON,
    self_subjects=r"I'm|I\s+am|I've|I\s+have|I|we're|we\s+are|we've|we",
    possessives=r"my|our",
    i_after_and=r"I",
    frequency=(
        r"every\s+\w+|each\s+\w+|on\s+\w+days|on\s+weekends|most\s+(?:days|mornings|nights|evenings|weekends)|"
        r"daily|weekly|nightly|\d+\s*x\s+(?:a|per)\s+\w+|(?:once|twice|\w+\s+times)\s+(?:a|per)\s+\w+"
    ),
    not_about_user=NOT_ABOUT_USER,
    consequences=(
        r"so|but|because|cause|since(?!\s+\d)|which|though|although|whereas|and\s+(?:so|then)"
    ),
    order_verbs=(
        r"write|give|tell|make|show|help|send|draft|plan|find|suggest|recommend|"
        r"explain|create|list|translate|fix|check"
    ),
    dates=DATES,
)


# -- English clauses that leave out their subject (engine/extraction/subjectless.py) ------
SUBJECTLESS_FILLERS = (
    r"(?:(?:" + "|".join(sorted(PACK.fillers | SUBJECTLESS_ADVERBS)) + r")[,!.:\s]+)*"
)
"""English fillers and the adverbs before a verb that left out its "I" ("just moved to…")."""

# Opened by a past tense or a stative verb: "I" was left out. Each verb only with what
# follows it when it states something ("moved to", "work at"), so a title or a search
# ("Love Island recap", "Work from home policy template") is not read as the user.
PAST_OR_STATIVE = (
    r"^" + SUBJECTLESS_FILLERS + r"(?=(?:just\s+|finally\s+|recently\s+|also\s+)*"
    r"(?:got\s+(?:married|engaged|divorced|promoted|laid\s+off|fired|hired|a\s+new\s+job)\b|"
    r"(?:moved|relocated)\s+(?:up\s+|back\s+|out\s+)?(?:to|from)\s+(?-i:[A-Z])|"
    r"started\s+(?:as|at|my|a\s+new)\b|graduated\b|quit\s+(?:my\b|smoking\b|drinking\b|"
    r"(?-i:[A-Z]))|left\s+(?:my\b|(?-i:[A-Z]))|became\b|adopted\b|grew\s+up\b|"
    r"(?:hate|love|adore)\s+(?!the\b|this\b|that\b|it\b|you\b|your\b)(?-i:[a-z])|"
    r"can't\b|cannot\b|can\s+not\b|don't\b|do\s+not\b|live\s+(?:in|with|near|on|at)\b|"
    r"work\s+(?:at|for|as|in)\b|"
    r"retired\s+(?:last|this|in|after|from|early|now|since|\d)))"
)

# Opened by what follows "I'm": a plan in -ing, an adjective or a noun phrase of the rules,
# each followed by what makes it a statement ("vegan lasagna recipe" is a search).
STATE = (
    r"^"
    + SUBJECTLESS_FILLERS
    + r"(?=(?:(?:working\s+(?:as|at|for|in)|living\s+(?:in|with)|studying\s+\w+\s+(?:at|in)|"
    r"learning\s+(?-i:[A-Z])\w*|training\s+for|saving\s+(?:up\s+)?for|planning\s+to|"
    r"expecting\s+(?:(?:a|our|my)\s+(?:first\s+|second\s+|third\s+)?(?:baby|child|kid|son|"
    r"daughter|girl|boy)|twins))\b|not\s+a\b|"
    r"a\s+(?:huge|big|total|lifelong)\b|"
    r"(?:huge|big|total|lifelong|longtime|long-time|die-hard|diehard)\s+(?:[\w'-]+\s+){0,3}?"
    r"(?:fan|nerd|geek|buff|lover|addict|enthusiast|person|foodie)\b|"
    r"allergic\s+to\b|(?:based|living)\s+(?:in|out\s+of)\b|originally\s+from\b|"
    r"(?:vegan|vegetarian|pescatarian|celiac|coeliac|diabetic|lactose\s+intolerant|deaf|blind|"
    r"colou?r-?blind|dyslexic|autistic|divorced|engaged|pregnant|unemployed|self-employed)"
    r"(?=\s*(?:$|[,.!;:)]|\s+(?:for|since|now|too|btw|and|but|so|here|myself|lol)\b))))"
)

# "pronouns are they/them", "hey, name's Dmitri": the "my" left out of what is the user's own.
OWN = (
    r"^"
    + SUBJECTLESS_FILLERS
    + r"(?=(?:name's|name\s+is|pronouns\s+are|pronouns:|birthday\s+is)\b)"
)

# "Data engineer at Shopify here", "Single dad here": who is speaking, said the way people
# sign a message. A lone name ("Marco here") is the signature rule's.
HERE = (
    r"^"
    + SUBJECTLESS_FILLERS
    + r"(?P<who>(?:[\w/&+'.-]+\s+){1,6}?[\w/&+'.-]+|[a-z][\w/&+'.-]*)\s+here\b"
    r"(?=\s*(?:[,.!;:—–-]|$))"
)

NOT_WHO = (
    r"^(?:same|nobody|no\s+one|everyone|anyone|someone|it|this|that|there|i|me|we|you|stuck|"
    r"new|back|still|right|over|lost|all|the|my|our|just|hi|hello|hey|thanks)\b"
)

HAS_SUBJECT = r"^\W*(?:I|I'm|I've|I'd|I'll|i|im|ive|we|we're|my|our|you|your)\b"
