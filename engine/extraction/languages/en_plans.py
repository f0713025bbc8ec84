"""English rules about what the user builds and plans: stack and projects, goals, events."""

from __future__ import annotations

import re

from memtap.engine.extraction.languages.en_vocab import (
    LOOSE_VERBS,
    PLACE_STOP,
    en_rule,
    is_technical,
    not_task,
)
from memtap.engine.extraction.rules import Rule
from memtap.engine.languages.en import ADV, I_ANY, I_OR_WE, IM, START

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
    # -- stack and projects ------------------------------------------------------------
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
        "stack",
        r"\bmy\s+(?:side\s+|pet\s+|current\s+|hobby\s+|main\s+|thesis\s+)?project\s+is\s+(?P<obj>.+)",
        "Their project is {obj}",
        "project",
        group="project",
        examples=(
            (
                "My side project is a recipe search engine.",
                "Their project is a recipe search engine",
            ),
        ),
    ),
    # -- goals and plans ---------------------------------------------------------------
    en_rule(
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
        accept=not_task,
        examples=(("I'd like to learn Rust", "Would like to learn Rust"),),
    ),
    en_rule(
        "goal",
        START
        + r"I(?:'m|\s+am)\s+"
        + ADV
        + r"(?P<verb>going\s+to|gonna)\s+(?P<obj>(?:move|travel|visit|start|begin|retire|graduate|quit|leave|apply|launch|run|get|take|fly|go|learn|study|buy|sell|build|open|have|become|marry|propose|switch\s+careers|change\s+jobs)\b.+)",
        "Is going to {obj}",
        "going gonna",
        examples=(
            (
                "I'm going to move to Lisbon next spring.",
                "Is going to move to Lisbon next spring",
            ),
        ),
    ),
    en_rule(
        "goal",
        START
        + r"I(?:'ll|\s+will)\s+(?P<obj>(?:be\s+moving|be\s+starting|be\s+travel+ing|be\s+visiting|be\s+retiring|be\s+graduating|move|travel|visit|retire|graduate|start\s+(?:a|my)\s+new|fly|relocate)\b.+)",
        "Will {obj}",
        "moving starting traveling travelling visiting retiring graduating move travel visit retire graduate start fly relocate",
        examples=(
            (
                "I will move to Berlin next year if I get the job",
                "Will move to Berlin next year",
            ),
        ),
    ),
    en_rule(
        "goal",
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
        accept=not_task,
        examples=(
            ("We're trying to get pregnant.", "They are trying to get pregnant"),
        ),
    ),
    en_rule(
        "goal",
        IM + ADV + r"(?P<verb>moving|relocating|emigrating)\s+to\s+(?P<obj>.+)",
        "Is moving to {obj}",
        "moving relocating emigrating",
        stop=PLACE_STOP,
        examples=(("I'm moving to Lisbon.", "Is moving to Lisbon"),),
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
        "goal",
        IM
        + ADV
        + r"(?P<verb>learning|studying|preparing\s+for|training\s+for|practicing|practising|saving\s+(?:up\s+)?for|applying\s+(?:to|for)|looking\s+to|getting\s+ready\s+for|working\s+towards?|trying\s+to\s+get)\s+(?P<obj>.+)",
        "Is {verb} {obj}",
        "learning studying preparing training practicing practising saving applying looking getting towards toward",
        accept=not_task,
        examples=(
            ("I'm learning Spanish on Duolingo.", "Is learning Spanish on Duolingo"),
        ),
    ),
    en_rule(
        "goal",
        IM
        + ADV
        + r"(?P<verb>thinking\s+(?:of|about)|considering|contemplating)\s+(?P<obj>\w+ing\b.+)",
        "Is {verb} {obj}",
        "thinking considering contemplating",
        accept=not_task,
        examples=(
            (
                "I'm thinking of switching to a standing desk.",
                "Is thinking of switching to a standing desk",
            ),
        ),
    ),
    en_rule(
        "goal",
        IM
        + ADV
        + r"(?P<verb>planning|organi[sz]ing|booking)\s+(?P<obj>(?:a|an|my|our)\s+(?:[\w-]+\s+){0,2}?(?:trip|holiday|vacation|move|wedding|party|renovation|career\s+change|sabbatical|honeymoon|launch|visit|marathon)\b.*)",
        "Is {verb} {obj}",
        "planning organising organizing booking",
        examples=(
            (
                "I'm planning a trip to Vietnam in April with my mom.",
                "Is planning a trip to Vietnam in April with their mom",
            ),
        ),
    ),
    en_rule(
        "goal",
        I_ANY
        + r"(?:'ve\s+|have\s+)?(?:just\s+|recently\s+)?(?:started|begun|began|taken\s+up)\s+(?P<verb>learning|studying|practicing|practising|training\s+for|playing)\s+(?P<obj>.+)",
        "Started {verb} {obj}",
        "started begun began taken",
        accept=not_task,
        examples=(
            ("I've just started learning the guitar.", "Started learning the guitar"),
        ),
    ),
    en_rule(
        "goal",
        I_ANY
        + ADV
        + r"(?:plan|'m\s+planning|am\s+planning)\s+on\s+(?P<obj>\w+ing\b.+)",
        "Plans on {obj}",
        "plan planning",
        accept=not_task,
        examples=(
            (
                "I plan on learning Korean next year.",
                "Plans on learning Korean next year",
            ),
        ),
    ),
    en_rule(
        "goal",
        IM
        + ADV
        + r"(?P<verb>doing|pursuing|taking|studying\s+for|working\s+on|halfway\s+through|enrolled\s+in)\s+(?P<obj>(?:a|an|my)\s+(?:[\w'-]+\s+){0,2}?(?:master'?s|masters|phd|degree|mba|bootcamp|course|certificate|certification|diploma|apprenticeship|residency|internship|bachelor'?s|thesis|dissertation)\b.*)",
        "Is {verb} {obj}",
        "doing pursuing taking studying working halfway enrolled",
        examples=(
            (
                "I'm doing a master's in data science at Edinburgh.",
                "Is doing a master's in data science at Edinburgh",
            ),
        ),
    ),
    en_rule(
        "habit",
        IM
        + ADV
        + r"(?P<obj>(?:a|an)\s+(?:big|heavy|huge|light|avid|keen|regular|daily|occasional|casual|social)\s+(?:[\w-]+\s+)?(?:drinker|eater|reader|smoker|runner|gamer|sleeper|cyclist|swimmer|walker|hiker|snacker|user|riser|cook|baker))\b",
        "Is {obj}",
        "drinker eater reader smoker runner gamer sleeper cyclist swimmer walker hiker snacker user riser cook baker",
        examples=(
            ("I'm a big coffee drinker, like 5 cups a day.", "Is a big coffee drinker"),
        ),
    ),
    # -- notable events ----------------------------------------------------------------------
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
        START
        + r"(?:me\s+and\s+my\s+(?P<rel>\w+)|my\s+(?P<rel2>\w+)\s+and\s+I)\s+(?P<obj>(?:just\s+|recently\s+|finally\s+)?(?:got\s+(?:married|engaged)|bought|moved|adopted|had|welcomed|started|opened|launched)\b.+)",
        "{obj} with their {rel}{rel2}",
        "me and",
        examples=(
            (
                "Me and my wife just bought a house in Asheville.",
                "Just bought a house in Asheville with their wife",
            ),
        ),
    ),
    en_rule(
        "event",
        I_OR_WE
        + r"(?P<obj>(?:just\s+|recently\s+|finally\s+|also\s+)?(?:got\s+back|came\s+back|returned|flew\s+back|arrived\s+back|am\s+back|'m\s+back)\s+from\s+.+)",
        "{obj}",
        "back returned",
        examples=(
            (
                "I just got back from two weeks in Japan.",
                "Just got back from two weeks in Japan",
            ),
        ),
    ),
    en_rule(
        "event",
        I_OR_WE
        + r"(?P<obj>(?:just\s+|recently\s+|finally\s+|also\s+)?(?:got|became|was|were)\s+(?:married|engaged|divorced|promoted|hired|laid\s+off|fired|diagnosed\s+with|accepted\s+(?:to|into|at)|admitted\s+to|elected|a\s+(?:mom|mum|dad|parent|grandparent|grandma|grandpa|citizen|father|mother|uncle|aunt)|(?:my|a|an|our)\s+(?:first\s+|new\s+)?(?:job|promotion|puppy|kitten|dog|cat|car|house|apartment|flat|degree|diploma|license|licence|certification|black\s+belt|raise|offer|visa|green\s+card|phd|masters?|scholarship|tattoo|bike|tesla|steam\s+deck|macbook|laptop|iphone)\b).*)",
        "{obj}",
        "got became was were",
        examples=(("I got married in May.", "Got married in May"),),
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
        START
        + r"(?P<when>(?:last|this)\s+(?:week|weekend|month|year|summer|winter|spring|fall|autumn|morning|january|february|march|april|may|june|july|august|september|october|november|december|monday|tuesday|wednesday|thursday|friday|saturday|sunday)|yesterday|recently|in\s+(?:19|20)\d\d|\w+\s+(?:days|weeks|months|years)\s+ago)[,\s]+I\s+(?P<obj>(?:went|visited|traveled|travelled|flew|moved|started|finished|ran|won|lost|broke|bought|sold|adopted|launched|shipped|released|published|got|had|became|met|married|graduated|retired|passed|climbed|hiked|completed|quit|left)\b.+)",
        "{obj} {when}",
        "last this yesterday recently ago in",
        keep_case=False,
        examples=(
            (
                "Last week I visited my grandparents in Kraków.",
                "Visited their grandparents in Kraków last week",
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
