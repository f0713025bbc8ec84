"""English rules about who the user is: identity, location, work, family and pets."""

from __future__ import annotations

import re

from memtap.engine.extraction.languages.en_vocab import (
    LANG_TRIGGERS,
    LANGS,
    NAME_STOP,
    NOT_ANY_MORE,
    NOT_NAMES,
    NOT_PLACES,
    OBJ_STOP,
    PET,
    PET_TRIGGERS,
    PLACE_STOP,
    REL,
    REL_TRIGGERS,
    ROLE_STOP,
    VERBISH,
    en_rule,
    is_name,
    is_proper,
    is_role,
    is_task,
    is_technical,
    role_then_org,
)
from memtap.engine.extraction.rules import Rule
from memtap.engine.extraction.slots import domain_of
from memtap.engine.languages import en
from memtap.engine.languages.en import ADV, I_ANY, I_OR_WE, IM, START, I

RULES: tuple[Rule, ...] = (
    # -- identity ----------------------------------------------------------------------
    en_rule(
        "identity",
        r"(?:\bmy\s+(?:full\s+|first\s+|real\s+|given\s+)?name(?:\s+is|'s)|^(?:the\s+)?name's)\s+(?P<obj>.+)",
        "Name is {obj}",
        "name",
        slot="identity.name",
        accept=is_name,
        stop=NAME_STOP,
        examples=(("Name is Ana", "Name is Ana"),),
    ),
    en_rule(
        "identity",
        IM + r"(?:called|named)\s+(?P<obj>.+)",
        "Name is {obj}",
        "called named",
        slot="identity.name",
        accept=is_name,
        stop=NAME_STOP,
        examples=(("I'm called Theo by my friends.", "Name is Theo"),),
    ),
    en_rule(
        "identity",
        r"^(?:hi|hello|hey|hiya|greetings)(?:\s+there)?[,!.]*\s+(?:I'm|I\s+am|this\s+is|it's)\s+(?P<obj>.+)",
        "Name is {obj}",
        "hi hello hey hiya greetings",
        slot="identity.name",
        accept=is_name,
        stop=NAME_STOP,
        examples=(("Hey there, this is Omar.", "Name is Omar"),),
    ),
    en_rule(
        "identity",
        r"^(?:(?i:hi|hello|hey|hiya|so|ok|okay|well)[,!.]*\s+)?(?:I'm|I\s+am)\s+(?P<obj>[A-Z][a-z]+(?:\s+[A-Z][a-z]+)?)(?=\s*(?:[.!,;(-]|$|\band\b|\bhere\b|\bby\s+the\s+way\b|\bbtw\b|\bfrom\b))",
        "Name is {obj}",
        "i",
        slot="identity.name",
        flags=0,
        accept=lambda m, o: o.split()[0] not in NOT_NAMES,
        examples=(("I'm Sofia, by the way.", "Name is Sofia"),),
    ),
    en_rule(
        "identity",
        # "Morning! It's Kenji again": a returning user saying who they are
        r"^(?:(?i:hi|hello|hey|morning|good\s+morning|evening)[,!.]*\s+)?(?i:it's|it\s+is|this\s+is)\s+(?P<obj>[A-Z][a-z]+)(?=\s+(?i:again|here)\b)",
        "Name is {obj}",
        "again here",
        slot="identity.name",
        flags=0,
        keep_case=True,
        accept=lambda m, o: o not in NOT_NAMES and o.lower() not in en.NOT_SIGNATURES,
        examples=(
            ("Morning! It's Kenji again, with the bonsai questions.", "Name is Kenji"),
        ),
    ),
    en_rule(
        "identity",
        # "Hey there, Marco here." signs a message the way people sign a note
        r"^(?:(?i:hi|hello|hey|hiya)(?i:\s+there)?[,!.]*\s+)?(?P<obj>[A-Z][a-z]+(?:\s+[A-Z][a-z]+)?)\s+here\b(?=\s*(?:$|[.!,;-]))",
        "Name is {obj}",
        "here",
        slot="identity.name",
        flags=0,
        keep_case=True,
        accept=lambda m, o: (
            o.split()[0] not in NOT_NAMES
            and o.split()[0].lower() not in en.NOT_SIGNATURES
            and is_name(m, o)
        ),
        examples=(("Marco Rossi here.", "Name is Marco Rossi"),),
    ),
    en_rule(
        "identity",
        r"\b(?:don't|do\s+not|never)\s+call\s+me\s+(?P<obj>.+)",
        "Does not want to be called {obj}",
        "call",
        "negative",
        group="address",
        stop=NAME_STOP,
        examples=(("Please don't call me Bob.", "Does not want to be called Bob"),),
    ),
    en_rule(
        "identity",
        r"\b(?:please\s+)?(?:call|address)\s+me\s+(?:as\s+)?(?P<obj>.+)",
        "Wants to be called {obj}",
        "call address",
        slot="identity.address_as",
        group="address",
        stop=NAME_STOP,
        examples=(("Call me Dr. Patel.", "Wants to be called Dr. Patel"),),
    ),
    en_rule(
        "identity",
        START + r"I\s+(?:go|prefer\s+to\s+go)\s+by\s+(?P<obj>.+)",
        "Goes by {obj}",
        "go",
        slot="identity.address_as",
        group="address",
        stop=NAME_STOP,
        examples=(("I go by Alex at work.", "Goes by Alex at work"),),
    ),
    en_rule(
        "identity",
        r"\bmy\s+pronouns\s+are\s+(?P<obj>.+)",
        "Pronouns are {obj}",
        "pronouns",
        slot="identity.pronouns",
        stop=NAME_STOP,
        examples=(("Pronouns are they/them", "Pronouns are they/them"),),
    ),
    en_rule(
        "identity",
        IM + r"(?P<obj>\d{1,3})(?:\s*(?:years?\s+old|yo|y/o))\b",
        "Is {obj} years old",
        "old yo",
        slot="identity.age",
        examples=(
            (
                "I'm 34 years old, if that matters for the insurance stuff.",
                "Is 34 years old",
            ),
        ),
    ),
    en_rule(
        "identity",
        IM + ADV + r"from\s+(?P<obj>.+)",
        "Is from {obj}",
        "from",
        slot="identity.origin",
        accept=is_proper,
        stop=PLACE_STOP,
        examples=(
            ("I'm from Kerala originally, now in Dubai.", "Is from Kerala originally"),
        ),
    ),
    en_rule(
        "identity",
        IM
        + ADV
        + r"(?P<obj>left-handed|right-handed|ambidextrous|an?\s+introvert|an?\s+extrovert|introverted|extroverted|neurodivergent|a\s+night\s+owl|an\s+early\s+bird|a\s+native\s+[A-Z]\w+\s+speaker|bilingual|trilingual)\b",
        "Is {obj}",
        "left right handed ambidextrous introvert extrovert introverted extroverted neurodivergent owl bird native bilingual trilingual",
        group="trait",
        examples=(("I'm a night owl.", "Is a night owl"),),
    ),
    en_rule(
        "identity",
        I
        + ADV
        + r"(?:speak|am\s+fluent\s+in|'m\s+fluent\s+in)\s+(?P<obj>"
        + LANGS
        + r"\b.*)",
        "Speaks {obj}",
        LANG_TRIGGERS,
        group="speaks",
        examples=(
            (
                "I speak French and a bit of Arabic.",
                "Speaks French and a bit of Arabic",
            ),
        ),
    ),
    en_rule(
        "identity",
        r"\bmy\s+(?:native|first|mother)\s+(?:language|tongue)\s+is\s+(?P<obj>.+)",
        "Native language is {obj}",
        "native first mother",
        group="speaks",
        examples=(("My first language is Tagalog.", "Native language is Tagalog"),),
    ),
    en_rule(
        "identity",
        IM
        + r"(?P<obj>\d{1,2})(?=\s*(?:$|[,.!;(]|-|\band\b|\bbut\b|\bso\b|\bwith\b|\bfrom\b))",
        "Is {obj} years old",
        "i",
        slot="identity.age",
        group="age",
        examples=(("I'm 34 and I live alone.", "Is 34 years old"),),
    ),
    en_rule(
        "family",
        IM
        + ADV
        + r"(?P<obj>an\s+only\s+child|the\s+(?:eldest|oldest|youngest|middle\s+child)(?:\s+of\s+\w+)?|a\s+twin|one\s+of\s+(?:two|three|four|five|six|\d+)\s+(?:kids|children|siblings|brothers|sisters)|adopted)\b",
        "Is {obj}",
        "only eldest oldest youngest middle twin one adopted",
        group="sibling",
        examples=(("I'm an only child.", "Is an only child"),),
    ),
    # -- location ----------------------------------------------------------------------
    en_rule(
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
        stop=PLACE_STOP,
        examples=(("I don't live in Oslo anymore.", "No longer lives in Oslo"),),
    ),
    en_rule(
        "location",
        IM
        + r"(?:no\s+longer|not)\s+(?:living|based|located)\s+in\s+(?P<obj>.+?)"
        + NOT_ANY_MORE
        + r"(?=$|[.,;!])",
        "No longer lives in {obj}",
        "living based located",
        "negative",
        slot="location.home",
        stop=PLACE_STOP,
        examples=(("I'm no longer living in Austin.", "No longer lives in Austin"),),
    ),
    en_rule(
        "location",
        I + ADV + r"moved\s+(?:away\s+from|out\s+of)\s+(?P<obj>.+)",
        "Moved away from {obj}",
        "moved",
        "negative",
        slot="location.home",
        stop=PLACE_STOP,
        examples=(("I moved away from Chicago.", "Moved away from Chicago"),),
    ),
    en_rule(
        "location",
        I_OR_WE
        + ADV
        + r"(?P<verb>live|reside)\s+(?:alone\s+|by\s+myself\s+|on\s+my\s+own\s+)?(?:with\s+(?:[\w'-]+\s+){1,4}?)?(?P<prep>(?:just\s+|right\s+)?(?:in|outside(?:\s+of)?|near|close\s+to|next\s+to|by|north\s+of|south\s+of|east\s+of|west\s+of))\s+(?P<obj>.+)",
        "Lives {prep} {obj}",
        "live reside",
        slot="location.home",
        stop=PLACE_STOP,
        accept=lambda m, o: domain_of(o) is None,
        examples=(("I live in Oslo", "Lives in Oslo"),),
    ),
    en_rule(
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
        stop=PLACE_STOP,
        accept=is_proper,
        examples=(("I'm based in Austin.", "Is based in Austin"),),
    ),
    en_rule(
        "location",
        IM
        + r"[^,.;]{1,40},\s+(?:currently\s+|now\s+)?(?P<verb>living|based|located)\s+(?:in|out\s+of)\s+(?P<obj>.+)",
        {"living": "Lives in {obj}", "": "Is based in {obj}"},
        "living based located",
        slot="location.home",
        stop=PLACE_STOP,
        accept=is_proper,
        examples=(("I'm Irish, living in Boston.", "Lives in Boston"),),
    ),
    en_rule(
        "location",
        IM
        + ADV
        + r"(?:in|on)\s+(?P<obj>(?:the\s+)?(?:[\w-]+\s+){0,2}?(?:time\s?zone|UTC\s?[+-]\s?\d{1,2}|GMT\s?[+-]?\s?\d{0,2}|(?:CET|CEST|EST|EDT|PST|PDT|CST|BST|IST|JST|AEST)\b(?:\s+time)?))",
        "Is in {obj}",
        "timezone time zone utc gmt cet cest est edt pst pdt cst bst ist jst aest",
        slot="location.timezone",
        group="timezone",
        examples=(("I'm in the Eastern time zone.", "Is in the Eastern time zone"),),
    ),
    en_rule(
        "location",
        r"(?:^|,\s*)(?:currently\s+|now\s+|still\s+)?(?P<verb>living|based|located)\s+(?:in|out\s+of)\s+(?P<obj>.+)",
        {"living": "Lives in {obj}", "": "Is based in {obj}"},
        "living based located",
        slot="location.home",
        stop=PLACE_STOP,
        accept=is_proper,
        examples=(
            ("Currently based out of Singapore for work.", "Is based in Singapore"),
        ),
    ),
    en_rule(
        "location",
        IM
        + r"(?:currently\s+|now\s+|still\s+)?(?:in|over\s+in|out\s+in)\s+(?P<obj>[A-Z][\w'.-]+(?:\s+[A-Z][\w'.-]+){0,2}(?:,\s+[A-Z][\w.]+)?)(?=\s*(?:$|[,.!;(]|-|\band\b|\bbut\b|\bso\b|\bfor\b|\bwith\b|\bnow\b|\bat\s+the\s+moment\b))",
        "Is in {obj}",
        "in",
        group="whereabouts",  # no slot: "I'm in Paris" may be a visit, not a new home
        flags=0,
        accept=lambda m, o: domain_of(o) is None and o.split()[0] not in NOT_PLACES,
        examples=(("I'm in Sydney, so please use AEST for times.", "Is in Sydney"),),
    ),
    en_rule(
        "location",
        I_OR_WE
        + ADV
        + r"(?:just\s+|recently\s+)?(?:moved|relocated)\s+(?:back\s+)?to\s+(?P<obj>.+)",
        "Moved to {obj}",
        "moved relocated",
        slot="location.home",
        stop=PLACE_STOP,
        accept=is_proper,
        examples=(("Moved to Denver", "Moved to Denver"),),
    ),
    en_rule(
        "location",
        I_ANY
        + r"(?:'ve|\s*have)\s+(?:always\s+)?lived\s+in\s+(?P<obj>[A-Z][\w'.-]+(?:\s+[A-Z][\w'.-]+){0,2})",
        "Lives in {obj}",
        "lived",
        slot="location.home",
        flags=0,
        examples=(("I've lived in Melbourne my whole life.", "Lives in Melbourne"),),
    ),
    en_rule(
        "identity",
        I + ADV + r"grew\s+up\s+(?:in|on|near)\s+(?P<obj>.+)",
        "Grew up in {obj}",
        "grew",
        stop=PLACE_STOP,
        examples=(
            (
                "I grew up in Ghana and now I live in Leeds.",
                "Grew up in Ghana and now they live in Leeds",
            ),
        ),
    ),
    en_rule(
        "location",
        r"^home\s+(?:for\s+me|to\s+me)\s+is\s+(?:in\s+)?(?P<obj>.+)",
        "Home is {obj}",
        "home",
        slot="location.home",
        examples=(
            (
                "Home for me is a little village in Wales.",
                "Home is a little village in Wales",
            ),
        ),
    ),
    en_rule(
        "location",
        r"\bmy\s+home(?:\s+base)?\s+is\s+(?:in\s+)?(?P<obj>.+)",
        "Home is {obj}",
        "home",
        slot="location.home",
        stop=PLACE_STOP,
        accept=is_proper,
        examples=(("My home is in Leeds.", "Home is Leeds"),),
    ),
    en_rule(
        "location",
        r"^(?:currently\s+|now\s+)?(?:working|staying|travel+ing)\s+(?:remotely\s+)?(?:from|in)\s+(?P<obj>.+)",
        "Is working from {obj}",
        "working staying traveling travelling",
        group="whereabouts",
        stop=PLACE_STOP,
        accept=is_proper,
        examples=(("Working from Lisbon this month.", "Is working from Lisbon"),),
    ),
    # -- work --------------------------------------------------------------------------------
    en_rule(
        "work",
        I_ANY
        + r"(?:'ve|\s*have)\s+(?:been\s+)?work(?:ed|ing)\s+(?P<prep>at|for)\s+(?P<obj>.+)",
        {"for": "Works for {obj}", "": "Works at {obj}"},
        "worked working",
        slot="work.employer",
        group="employer",
        key_group="prep",
        stop=PLACE_STOP,
        accept=lambda m, o: o.split(maxsplit=1)[0].lower() not in VERBISH,
        examples=(("I've worked at Amazon for six years.", "Works at Amazon"),),
    ),
    en_rule(
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
        stop=PLACE_STOP,
        examples=(("I no longer work at Deloitte.", "No longer works at Deloitte"),),
    ),
    en_rule(
        "work",
        I + ADV + r"(?:just\s+)?(?P<verb>left|quit)\s+(?:my\s+job\s+at\s+)?(?P<obj>.+)",
        "Left {obj}",
        "left quit",
        "negative",
        slot="work.employer",
        group="employer",
        accept=is_proper,
        stop=PLACE_STOP,
        examples=(("I left Acme.", "Left Acme"),),
    ),
    en_rule(
        "stack",
        r"\b(?:our|my)\s+(?P<what>startup|company|team|group|lab|agency|business|studio)\s+(?P<verb>is\s+building|is\s+developing|builds|makes|develops|is\s+making|sells|is\s+working\s+on|is\s+launching|runs|maintains|ships)\s+(?P<obj>.+)",
        "Their {what} {verb} {obj}",
        "startup company team group lab agency business studio",
        group="project",
        examples=(
            (
                "Our startup is building a marketplace for used bikes.",
                "Their startup is building a marketplace for used bikes",
            ),
        ),
    ),
    en_rule(
        "stack",
        START
        + r"we(?:'re|\s+are)\s+(?P<obj>(?:a|an)\s+[\w.+#/ -]{1,30}?\s+(?:shop|house|team|company|startup|org|organi[sz]ation|agency))\b",
        "Their team is {obj}",
        "shop house team company startup org organization organisation agency",
        examples=(("We're a Rails shop, mostly.", "Their team is a Rails shop"),),
    ),
    en_rule(
        "stack",
        START
        + r"(?P<who>I|we)\s+(?:don'?t|do\s+not|no\s+longer|never)\s+(?:use|run|deploy\s+(?:to|on))\s+(?P<obj>.+)",
        {"i": "Does not use {obj}", "we": "Their team does not use {obj}"},
        "use run deploy",
        "negative",
        key_group="who",
        choice=True,
        accept=lambda m, o: is_technical(m, o),
        examples=(("I never use Windows", "Does not use Windows"),),
    ),
    en_rule(
        "stack",
        r"\b(?:the|my|our)\s+(?P<what>company|employer|team|startup|org|organi[sz]ation|client|department)\s+(?:I|we)\s+(?:work\s+(?:for|at|with|in)|am\s+in|'m\s+in|'m\s+at)\s+(?P<verb>uses|use|runs\s+on|is\s+on|relies\s+on)\s+(?P<obj>.+)",
        "Their {what} {verb} {obj}",
        "company employer team startup org organization organisation client department",
        examples=(
            (
                "The company I work for uses Azure DevOps.",
                "Their company uses Azure DevOps",
            ),
        ),
    ),
    en_rule(
        "work",
        I
        + ADV
        + r"(?:work|am\s+working|'m\s+working)\s+(?P<prep>at|for)\s+(?P<obj>.+)",
        {"for": "Works for {obj}", "": "Works at {obj}"},
        "work working",
        slot="work.employer",
        group="employer",
        key_group="prep",
        stop=PLACE_STOP,
        accept=lambda m, o: o.split(maxsplit=1)[0].lower() not in VERBISH,
        examples=(("I work at Acme.", "Works at Acme"),),
    ),
    en_rule(
        "work",
        IM + r"(?:employed|hired)\s+(?:at|by)\s+(?P<obj>.+)",
        "Works at {obj}",
        "employed hired",
        slot="work.employer",
        group="employer",
        stop=PLACE_STOP,
        examples=(("I'm employed at Siemens.", "Works at Siemens"),),
    ),
    en_rule(
        "work",
        IM
        + ADV
        + r"(?:an?|the)\s+(?P<role>[\w+#./ -]{2,60}?)\s+(?:at|for|with)\s+(?P<obj>.+)",
        "Works at {obj}",
        "a an the",
        slot="work.employer",
        group="employer",
        accept=role_then_org,
        stop=PLACE_STOP,
        examples=(("Data engineer at Shopify here.", "Works at Shopify"),),
    ),
    en_rule(
        "work",
        I
        + ADV
        + r"(?:just\s+|recently\s+)?(?:started|began|joined|got\s+a\s+(?:new\s+)?job)\s+(?:a\s+new\s+job\s+|working\s+)?(?:at|with|for)?\s*(?P<obj>.+)",
        "Works at {obj}",
        "started began joined job",
        slot="work.employer",
        group="employer",
        accept=is_proper,
        stop=ROLE_STOP,
        examples=(("Started at Stripe last week", "Works at Stripe"),),
    ),
    en_rule(
        "work",
        r"\bwork(?:ing)?\s+(?:at|for)\s+.+?\s+as\s+(?P<obj>(?:an?\s+|the\s+)?.+)",
        "Works as {obj}",
        "work working",
        slot="work.role",
        group="role",
        stop=ROLE_STOP,
        examples=(
            (
                "I work for myself as a wedding photographer.",
                "Works as a wedding photographer",
            ),
        ),
    ),
    en_rule(
        "work",
        r"(?:^|,\s*|\bI\s+)(?:used\s+to\s+(?:be|work\s+as)|was)\s+(?P<obj>(?:an?|the)\s+.+)",
        "Used to be {obj}",
        "used",
        group="past_role",
        stop=ROLE_STOP,
        accept=is_role,
        examples=(("Used to be an accountant", "Used to be an accountant"),),
    ),
    en_rule(
        "work",
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
        group="team",
        examples=(("I lead the infra team.", "Leads the infra team"),),
    ),
    en_rule(
        "work",
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
        slot="work.role",
        group="role",
        stop=ROLE_STOP,
        examples=(
            (
                "I freelance as a wedding photographer on weekends.",
                "Freelances as a wedding photographer",
            ),
        ),
    ),
    en_rule(
        "work",
        I + ADV + r"work(?:\s+[\w-]+){0,3}?\s+as\s+(?P<obj>.+)",
        "Works as {obj}",
        "work",
        slot="work.role",
        group="role",
        stop=ROLE_STOP,
        examples=(("I work as a data analyst.", "Works as a data analyst"),),
    ),
    en_rule(
        "work",
        r"\bmy\s+(?:job|role|position|title|job\s+title|profession|occupation)\s+is\s+(?P<obj>.+)",
        "Role is {obj}",
        "job role position title profession occupation",
        slot="work.role",
        group="role",
        accept=is_role,
        stop=ROLE_STOP,
        examples=(("My job title is product manager.", "Role is product manager"),),
    ),
    en_rule(
        "work",
        IM
        + ADV
        + r"(?:(?-i:[A-Z][a-z]+),\s+)?"
        + ADV
        + r"(?:now\s+)?(?P<obj>(?:an?\s+|the\s+)?[\w+#./-]+.*)",
        "Is {obj}",
        "a an the student freelancer ceo cto intern founder",
        slot="work.role",
        group="role",
        accept=is_role,
        stop=OBJ_STOP,
        examples=(("I'm a data analyst.", "Is a data analyst"),),
    ),
    en_rule(
        "work",
        IM
        + ADV
        + r"(?P<obj>retired|unemployed|self-employed|freelancing|between\s+jobs|job\s+hunting|on\s+parental\s+leave)\b",
        "Is {obj}",
        "retired unemployed self employed freelancing between hunting parental",
        slot="work.role",
        group="role",
        examples=(("I'm retired, used to be an accountant.", "Is retired"),),
    ),
    en_rule(
        "work",
        I + ADV + r"(?:got|was)\s+promoted\s+to\s+(?P<obj>.+)",
        "Is {obj}",
        "promoted",
        slot="work.role",
        group="role",
        stop=ROLE_STOP,
        examples=(
            ("I was promoted to engineering manager.", "Is engineering manager"),
        ),
    ),
    en_rule(
        "work",
        IM
        + ADV
        + r"(?:on|in|part\s+of)\s+(?:the\s+)?(?P<obj>[\w+#./ -]{1,40}?\s+team)\b",
        "Is on the {obj}",
        "team",
        slot="work.team",
        group="team",
        examples=(("I'm on the payments team.", "Is on the payments team"),),
    ),
    en_rule(
        "work",
        I
        + ADV
        + r"work\s+(?:in|on|with)\s+(?:the\s+)?(?P<obj>[\w+#./ -]{1,40}?\s+team)\b",
        "Is on the {obj}",
        "team",
        slot="work.team",
        group="team",
        examples=(("I work on the payments team.", "Is on the payments team"),),
    ),
    en_rule(
        "work",
        r"\b(?:my|our)\s+team\s+(?:is|handles|owns|works\s+on)\s+(?P<obj>.+)",
        "Their team is {obj}",
        "team",
        group="team",
        accept=lambda m, o: (
            not o.lower().startswith(("great", "awesome", "small", "big", "busy"))
        ),
        examples=(
            (
                "Our team is six engineers and one designer.",
                "Their team is six engineers and one designer",
            ),
        ),
    ),
    en_rule(
        "work",
        I + ADV + r"work\s+in\s+(?P<obj>(?!the\s+\w+\s+team)[\w&/ -]{2,40})",
        "Works in {obj}",
        "work",
        group="field",
        stop=PLACE_STOP,
        examples=(("I work in finance, mostly risk modelling.", "Works in finance"),),
    ),
    en_rule(
        "work",
        I + ADV + r"(?P<verb>teach|tutor|coach)\s+(?P<obj>(?!you\b|me\b|myself\b).+)",
        {"tutor": "Tutors {obj}", "coach": "Coaches {obj}", "": "Teaches {obj}"},
        "teach tutor coach",
        group="field",
        accept=lambda m, o: not is_task(o),
        examples=(("I teach high school chemistry.", "Teaches high school chemistry"),),
    ),
    en_rule(
        "work",
        I
        + ADV
        + r"work\s+(?P<obj>remotely|from\s+home|remote|hybrid|part[- ]time|full[- ]time|nights|night\s+shifts|shifts|weekends|(?:\d|one|two|three|four|five|six)\s+days\s+(?:a|per)\s+week|\d+\s+hours\s+(?:a|per)\s+week)\b",
        "Works {obj}",
        "work",
        group="field",
        examples=(("I work 4 days a week.", "Works 4 days a week"),),
    ),
    en_rule(
        "work",
        r"\bmy\s+(?:company|employer|startup|business|firm)\s+is\s+(?P<obj>.+)",
        "Their company is {obj}",
        "company employer startup business firm",
        group="employer2",
        examples=(("My company is Acme Robotics.", "Their company is Acme Robotics"),),
    ),
    en_rule(
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
        examples=(
            (
                "I run a small Etsy shop selling ceramics.",
                "Runs a small Etsy shop selling ceramics",
            ),
        ),
    ),
    en_rule(
        "family",
        r"^(?P<obj>(?:a\s+)?(?:single\s+|proud\s+|working\s+)?(?:mum|mom|mother|dad|father|parent)\s+of\s+(?:one|two|three|four|five|\d+)(?:\s+[\w-]+)?)\b",
        "Is a {obj}",
        "mum mom mother dad father parent",
        group="parent",
        examples=(("Mum of three here, living in Bristol.", "Is a mum of three here"),),
    ),
    en_rule(
        "family",
        r"\bmy\s+(?P<rel>wife|husband|partner|spouse|girlfriend|boyfriend|sister|brother|mom|mum|dad)\s+and\s+I\s+(?:are|were)\s+(?P<obj>.+)",
        "They and their {rel} are {obj}",
        "and",
        group="family_pair",
        examples=(
            (
                "My husband and I are both teachers.",
                "They and their husband are both teachers",
            ),
        ),
    ),
    en_rule(
        "work",
        IM
        + ADV
        + r"(?:on|working)\s+(?:the\s+)?(?P<obj>(?:night|day|early|late|graveyard|evening|morning|weekend)\s+shifts?(?:\s+at\s+.+)?)",
        "Is on the {obj}",
        "shift shifts",
        group="field",
        examples=(
            (
                "I'm on the night shift at a warehouse.",
                "Is on the night shift at a warehouse",
            ),
        ),
    ),
    # -- family and pets ---------------------------------------------------------------
    en_rule(
        "family",
        r"\b(?:my|our)\s+(?P<obj>(?:(?:older|younger|little|big|eldest|oldest|youngest|twin|baby|new|two|three|four|\d+|\w+-year-old)\s+)?(?:"
        + REL
        + "|"
        + PET
        + r")(?:\s+[A-Z][\w'-]+)?(?:'s|\s+is|\s+are|\s+works|\s+work|\s+lives|\s+live|\s+has|\s+have|\s+was|\s+were|\s+studies|\s+goes|\s+go|\s+turned|\s+turns|\s+got|\s+just|\s+recently|\s+will\s+be|\s+was\s+born|\s+named|\s+called|\s+starts|\s+started|\s+start|\s+turn|\s+play|\s+attend|\s+is\s+starting|\s+graduated|\s+graduates|\s+plays|\s+attends|\s+needs|\s+uses|\s+can't|\s+cannot|\s+retired|\s+passed\s+away|\s+died|\s+moved|\s+suffers)\b.+)",
        "Their {obj}",
        REL_TRIGGERS + " " + PET_TRIGGERS,
        resolvable=False,
        accept=lambda m, o: (
            not re.search(
                r"\b(?:likes?|loves?|prefers?|hates?|wants?|thinks?|says?|said|told|asked|believes?|feels?)\b",
                o,
                re.IGNORECASE,
            )
        ),
        examples=(("My sister is a pilot.", "Their sister is a pilot"),),
    ),
    en_rule(
        "family",
        # "my wife Priya", "our golden retriever Biscuit ate a sock": whoever the relative
        # or pet does, their name is the fact
        # (the name is in the subject: "my sister Hannah" and "my sister Lea" are two sisters)
        r"\b(?i:my|our)\s+(?P<obj>(?P<rel>(?:[\w-]+\s+){0,2}?(?:"
        + en.ONE_RELATIVE
        + "|"
        + PET
        + r"))\s+(?P<name>[A-Z][a-z][\w'-]*))\b(?!\s+[A-Z])(?=\s*(?:$|[,.!?;:)]|\s+[a-z]))",
        "Their {rel} is called {name}",
        REL_TRIGGERS + " " + PET_TRIGGERS,
        group="family_name",
        resolvable=False,
        presupposed=True,
        flags=0,
        accept=lambda m, o: m.group("name").lower() not in en.NOT_A_NAME,
        examples=(("my sister Lea turns 9 tomorrow", "Their sister is called Lea"),),
    ),
    en_rule(
        "family",
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
        examples=(("I have two kids.", "Has two kids"),),
    ),
    en_rule(
        "family",
        I_OR_WE
        + ADV
        + r"(?:have|'ve\s+got|have\s+got)\s+(?P<obj>(?:a|an|one|two|three|\d+)\s+(?:[\w'-]+\s+){1,4}?(?:named|called)\s+[A-Z][\w'-]+.*)",
        "Has {obj}",
        "named called",
        group="family",
        resolvable=True,
        examples=(
            (
                "We have a cat called Miso who hates the vacuum.",
                "Has a cat called Miso who hates the vacuum",
            ),
        ),
    ),
    en_rule(
        "family",
        START
        + r"(?:my|our)\s+(?P<obj>(?:two|three|four|five|six|\d+)\s+(?:[\w'-]+\s+)?(?:"
        + REL
        + "|"
        + PET
        + r"))\b",
        "Has {obj}",
        REL_TRIGGERS + " " + PET_TRIGGERS,
        group="family_count",
        examples=(
            (
                "I live just outside Manchester with my girlfriend and our two dogs.",
                "Has two dogs",
            ),
        ),
    ),
    en_rule(
        "family",
        START
        + r"we(?:\s+|(?='))(?:have|'ve\s+got)\s+(?P<obj>(?:a|an|one|two|three|four|\d+)\s+(?:[\w'-]+\s+){0,3}?(?:"
        + REL
        + "|"
        + PET
        + r")\b.*)",
        "Has {obj}",
        REL_TRIGGERS + " " + PET_TRIGGERS,
        resolvable=True,
        examples=(("We have two cats, Miso and Tofu.", "Has two cats, Miso and Tofu"),),
    ),
    en_rule(
        "family",
        I
        + ADV
        + r"(?:don'?t|do\s+not)\s+have\s+(?:any\s+)?(?P<obj>(?:kids|children|pets|siblings|a\s+partner|a\s+car))\b",
        "Does not have {obj}",
        "kids children pets siblings partner car",
        "negative",
        examples=(("I don't have kids.", "Does not have kids"),),
    ),
    en_rule(
        "family",
        IM
        + ADV
        + r"(?P<obj>married|engaged|divorced|single|widowed|separated|in\s+a\s+relationship)\b",
        "Is {obj}",
        "married engaged divorced single widowed separated relationship",
        slot="family.relationship",
        group="relationship",
        examples=(("I'm married.", "Is married"),),
    ),
    en_rule(
        "family",
        IM
        + ADV
        + r"(?P<obj>(?:a\s+)?(?:[\w-]+\s+)?(?:mom|mum|mother|dad|father|parent|grandparent|grandma|grandpa|stepmom|stepdad)(?:\s+of\s+.+)?|pregnant|expecting(?:\s+a\s+baby)?)\b",
        "Is {obj}",
        "mom mum mother dad father parent grandparent grandma grandpa stepmom stepdad pregnant expecting",
        group="parent",
        examples=(("I'm a stay-at-home dad.", "Is a stay-at-home dad"),),
    ),
    en_rule(
        "preference",
        IM
        + ADV
        + r"(?P<neg>not\s+)?(?:really\s+|much\s+of\s+|at\s+all\s+)?(?:a|an)\s+(?P<obj>[\w-]+(?:\s+[\w-]+)?\s+person)\b",
        {"not": "Is not a {obj}", "": "Is a {obj}"},
        "person",
        key_group="neg",
        group="choice",
        examples=(("I'm not a morning person at all.", "Is not a morning person"),),
    ),
    en_rule(
        "preference",
        IM
        + ADV
        + r"(?P<verb>obsessed\s+with|into|crazy\s+about|passionate\s+about|addicted\s+to|mad\s+about|hooked\s+on|keen\s+on)\s+(?P<obj>.+)",
        "Is {verb} {obj}",
        "obsessed into crazy passionate addicted mad hooked keen",
        group="choice",
        resolvable=True,
        examples=(("I'm really into bouldering lately.", "Is into bouldering lately"),),
    ),
)
