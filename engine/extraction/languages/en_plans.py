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
from memtap.engine.languages.en import ADV, I_OR_WE, START

RULES: tuple[Rule, ...] = (
    en_rule(
        "stack",
        # a thing the user has one of at a time: a newer "my laptop is …" replaces the older
        r"\b(?:my|our)\s+(?P<what>(?:new\s+|work\s+|main\s+|current\s+|personal\s+)?(?:laptop|machine|computer|desktop|workstation|phone|editor|ide|os|car))\s+(?P<verb>is|'s)\s+(?P<obj>.+)",
        "Their {what} {verb} {obj}",
        "laptop machine computer desktop workstation phone editor ide os car",
        slot="device.{what}",
        accept=lambda m, o: re.search(r"[A-Z0-9]", o) is not None or is_technical(m, o),
        examples=(("My phone is a Pixel 8.", "Their phone is a Pixel 8"),),
    ),
    en_rule(
        "stack",
        # what runs on it is one fact among several ("runs Arch", "has 16 GB")
        r"\b(?:my|our)\s+(?P<what>(?:new\s+|work\s+|main\s+|current\s+|personal\s+)?(?:laptop|machine|computer|desktop|workstation|phone|editor|ide|os|car))\s+(?P<verb>runs|runs\s+on|uses|has)\s+(?P<obj>.+)",
        "Their {what} {verb} {obj}",
        "laptop machine computer desktop workstation phone editor ide os car",
        accept=lambda m, o: re.search(r"[A-Z0-9]", o) is not None or is_technical(m, o),
        examples=(("My laptop runs Arch Linux.", "Their laptop runs Arch Linux"),),
    ),
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
    en_rule(
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
        examples=(
            ("Just moved to Denver last week", "Just moved to Denver last week"),
        ),
    ),
    en_rule(
        "event",
        I_OR_WE
        + r"(?P<obj>(?:just\s+|recently\s+|finally\s+|also\s+)?(?:graduated|retired|gave\s+birth|quit\s+my\s+job|left\s+my\s+job|lost\s+my\s+job|changed\s+jobs|got\s+fired|had\s+(?:a\s+)?(?:baby|twins|surgery|an?\s+operation|a\s+kid)|had\s+(?:a\s+|an\s+|my\s+)?(?:[\w-]+\s+){1,2}?(?:surgery|operation|transplant|accident|stroke|heart\s+attack|concussion|miscarriage|c-section)|started\s+(?:at|a\s+new\s+job|working\s+(?:at|for)|my\s+(?:new\s+)?job)|joined|founded|co-founded|defended\s+my|got\s+my\s+first|passed\s+my|finished\s+my|completed\s+my|published\s+my|launched\s+my|ran\s+(?:a|my\s+first)\s+(?:marathon|half|10k|5k|ultra)|adopted\s+(?:a|an|two)|bought\s+(?:a|(?:my|our)(?:\s+first)?)\s+(?:house|home|flat|apartment|car)|turned\s+\d+|became\s+a)\b.*)",
        "{obj}",
        "graduated retired gave had started joined founded co defended got passed finished completed published launched ran adopted bought turned became quit left lost changed fired",
        accept=lambda m, o: not re.search(r"\b(?:this|that|it)\b\s*$", o),
        examples=(("I just turned 30!", "Just turned 30"),),
    ),
    en_rule(
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
        examples=(
            (
                "I just had my first baby last month.",
                "Just had their first baby last month",
            ),
        ),
    ),
    en_rule(
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
        examples=(("I moved to Berlin in 2019.", "Moved to Berlin in 2019"),),
    ),
)
