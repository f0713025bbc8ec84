"""English rules about what the user builds and plans whose checks read English words of
their own (a device named or technical, a verb of use, a stack's passing state, a goal that
is the task, an event about the conversation). The rest of this family are phrases of the
English pack (`engine/languages/en.py`: `PLANS`)."""

from __future__ import annotations

import re

from memtap.engine.extraction.languages.en_vocab import (
    LOOSE_VERBS,
    en_rule,
    is_technical,
    not_task,
)
from memtap.engine.extraction.rules import Rule
from memtap.engine.languages.en import ADV, START

RULES: tuple[Rule, ...] = (
    en_rule(
        "stack",
        START
        + r"(?P<who>I|we)(?:\s+|(?='))"
        + ADV
        + r"(?P<verb>use|are\s+using|'re\s+using|am\s+using|'m\s+using|rely\s+on|run|are\s+running|'re\s+running|(?:deploy|host|run)(?:\s+(?:everything|it\s+all|all\s+of\s+it|our\s+\w+|it|things|stuff))?\s+(?:to|on|with|at|in)|build\s+(?:with|on)|develop\s+(?:with|in)|code(?:\s+(?:mostly|mainly|primarily|only))?\s+in|write|program(?:\s+(?:mostly|mainly|primarily|only))?\s+in|work\s+with|are\s+on|'re\s+on|standardi[sz]ed\s+on)\s+(?P<obj>.+)",
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
                or is_technical(m, o)
            )
            and not re.match(
                r"(?:a\s+)?(?:screen\s*reader|wheelchair|hearing)", o, re.IGNORECASE
            )
        ),
        examples=(("I use Vim.", "Uses Vim"),),
    ),
    en_rule(
        "stack",
        r"(?:\b(?P<who>our|my)|^(?:the|The))\s+(?P<what>(?:main\s+|whole\s+|tech\s+|current\s+|production\s+|new\s+)?(?:stack|tech\s+stack|backend|back-end|frontend|front-end|database|db|api|apis|infra|infrastructure|ci|ci/cd|pipeline|app|apps|application|website|site|service|services|server|servers|cluster|monorepo|codebase|repo|project|product|data\s+warehouse|orm|framework|cloud|hosting|deployment|mobile\s+app|code|models?|platform|web\s+app|data|dev\s+environment|setup|blog|shop|store|newsletter|podcast|portfolio)(?:\s+\w+)?)\s+(?P<verb>is|are|runs|run|uses|use|'s|lives|sits|is\s+written|is\s+built|are\s+written|are\s+built|was\s+built|was\s+written|is\s+hosted|are\s+hosted|is\s+deployed|are\s+deployed|targets|depends\s+on|talk\s+(?:over|via|through)|communicate\s+(?:over|via|through)|run\s+on|live\s+on)\s+(?P<obj>.+)",
        "Their {what} {verb} {obj}",
        "stack backend frontend database db api apis infra infrastructure ci pipeline app apps application website site service services server servers cluster monorepo codebase repo project product warehouse orm framework cloud hosting deployment code model models platform data environment setup blog shop store newsletter podcast portfolio",
        accept=lambda m, o: (
            not re.match(
                r"(?:down|broken|slow|failing|not|great|awesome|a\s+mess|buggy|crashing|giving|throwing|returning)\b",
                o,
                re.IGNORECASE,
            )
            # "is"/"are" states a fact of the stack only when it names something
            # ("Our backend is a Django monolith"), not a passing state ("the data is wrong")
            and (
                m.group("verb").lower() not in ("is", "are", "'s")
                or re.search(r"[A-Z0-9]", o) is not None
                or is_technical(m, o)
            )
        ),
        examples=(("My blog runs on Hugo.", "Their blog runs on Hugo"),),
    ),
    en_rule(
        "stack",
        START
        + r"(?P<who>I|we)(?:'m|'re|\s+am|\s+are)\s+"
        + ADV
        + r"(?:in\s+the\s+middle\s+of\s+|busy\s+)?(?P<verb>building|developing|making|writing|creating|rewriting|refactoring|working\s+on|maintaining|launching|designing|prototyping|training|fine-tuning|self-hosting|hosting|running|(?:migrating|moving|switching|porting)(?:\s+\w+){0,2}?\s+from\s+.+?\s+to|migrating\s+to|moving\s+to|switching\s+to|porting)\s+(?P<obj>.+)",
        {"i": "Is {verb} {obj}", "we": "Their team is {verb} {obj}"},
        "building developing making writing creating rewriting refactoring working maintaining launching designing prototyping migrating moving porting switching training tuning hosting running",
        key_group="who",
        group="project",
        resolvable=True,
        accept=lambda m, o: (
            not_task(m, o)
            and not re.match(
                r"(?:a\s+)?(?:\w+\s+)?(?:function|script|query|regex|email|letter|post|essay|list|mistake|progress|dinner|lunch|breakfast|coffee|tea|sure)\b",
                o,
                re.IGNORECASE,
            )
            and (m.group("verb").lower() not in LOOSE_VERBS or is_technical(m, o))
        ),
        examples=(
            (
                "I'm developing a Discord bot in Python.",
                "Is developing a Discord bot in Python",
            ),
        ),
    ),
    en_rule(
        "goal",
        r"\b(?:my|^the|^our)\s+(?:main\s+|big\s+|long-term\s+|short-term\s+|ultimate\s+|next\s+|career\s+|fitness\s+|new\s+year'?s?\s+)?(?P<what>goal|goals|plan|plans|dream|aim|objective|resolution|target|ambition)(?:\s+for\s+[\w\s]{2,20}?|\s+(?:this|next|for\s+the)\s+\w+)?\s+(?:is|are)\s+(?P<obj>.+)",
        "Their {what} is {obj}",
        "goal goals plan plans dream aim objective resolution target ambition",
        accept=lambda m, o: (
            not o.lower().startswith(
                ("simple", "this", "that", "to ask", "to know", "to understand")
            )
        ),
        examples=(
            ("My dream is to open a bookshop.", "Their dream is to open a bookshop"),
        ),
    ),
)
