"""English rules about what the user needs: constraints and standing instructions."""

from __future__ import annotations

import re

from memtap.engine.extraction.languages.en_vocab import (
    DIETS,
    LANG_TRIGGERS,
    LANGS,
    diet_slot,
    en_rule,
    instruction_slot,
    is_standing,
    is_technical,
    not_task,
)
from memtap.engine.extraction.rules import Rule
from memtap.engine.languages.en import ADV, IM, PLEASE, START, I

RULES: tuple[Rule, ...] = (
    # -- constraints -------------------------------------------------------------------
    en_rule(
        "constraint",
        IM
        + r"(?:[\w-]+\s+){0,4}?(?:severely\s+|very\s+|highly\s+|deathly\s+|mildly\s+|also\s+)?(?P<neg>not\s+)?allergic\s+to\s+(?P<obj>.+)",
        {"not": "Is not allergic to {obj}", "": "Is allergic to {obj}"},
        "allergic",
        key_group="neg",
        group="allergy",
        examples=(("I'm allergic to latex.", "Is allergic to latex"),),
    ),
    en_rule(
        "constraint",
        I
        + ADV
        + r"have\s+(?:a|an|severe|bad|mild)?\s*(?P<obj>[\w -]{1,30}?\s+(?:allergy|allergies|intolerance|sensitivity))\b",
        "Has {obj}",
        "allergy allergies intolerance sensitivity",
        group="allergy",
        examples=(("I have a severe nut allergy.", "Has severe nut allergy"),),
    ),
    en_rule(
        "constraint",
        IM
        + r"(?:no\s+longer|not)\s+(?:a\s+)?(?P<obj>"
        + DIETS
        + r")(?:\s+any\s?more)?",
        "Is no longer {obj}",
        "vegetarian vegan pescatarian pescetarian keto paleo carnivore flexitarian plant diet",
        "negative",
        slot="constraint.diet",
        group="diet",
        examples=(("I'm not vegetarian anymore.", "Is no longer vegetarian"),),
    ),
    en_rule(
        "constraint",
        I + ADV + r"(?:stopped|quit)\s+being\s+(?:a\s+)?(?P<obj>" + DIETS + ")",
        "Is no longer {obj}",
        "stopped quit",
        "negative",
        slot="constraint.diet",
        group="diet",
        examples=(("I stopped being vegetarian.", "Is no longer vegetarian"),),
    ),
    en_rule(
        "constraint",
        IM
        + ADV
        + r"(?:a\s+)?(?:strict\s+|full\s+|mostly\s+)?(?P<obj>"
        + DIETS
        + r")\b",
        "Is {obj}",
        "vegetarian vegan pescatarian pescetarian keto paleo carnivore flexitarian plant diet",
        slot="constraint.diet",
        group="diet",
        examples=(("I'm vegan now.", "Is vegan"),),
    ),
    en_rule(
        "constraint",
        I + ADV + r"(?:follow|eat|keep)\s+(?:a|an)\s+(?P<obj>[\w -]{2,25}?\s+diet)\b",
        "Follows a {obj}",
        "diet",
        slot=diet_slot,
        group="diet",
        examples=(("I follow a low-carb diet.", "Follows a low-carb diet"),),
    ),
    en_rule(
        "constraint",
        IM
        + ADV
        + r"(?:an?\s+)?(?P<obj>(?:lactose|gluten)[\s-]intolerant|gluten-free|celiac|coeliac|diabetic|type\s+[12]\s+diabetic|halal|kosher|sober|teetotal|colou?r-?\s?blind|blind|deaf|hard\s+of\s+hearing|dyslexic|autistic|visually\s+impaired|in\s+a\s+wheelchair|a\s+wheelchair\s+user|epileptic|asthmatic|on\s+medication)\b",
        "Is {obj}",
        "lactose gluten intolerant free celiac coeliac diabetic halal kosher sober teetotal color colour colorblind colourblind blind deaf hearing dyslexic autistic impaired wheelchair epileptic asthmatic medication",
        group="health",
        examples=(("I'm celiac.", "Is celiac"),),
    ),
    en_rule(
        "constraint",
        I
        + ADV
        + r"(?:have|suffer\s+from|live\s+with)\s+(?P<obj>(?:celiac|coeliac|diabetes|type\s+[12]\s+diabetes|adhd|add|dyslexia|autism|asthma|epilepsy|migraines|arthritis|tinnitus|a\s+(?:bad\s+)?back|a\s+heart\s+condition|high\s+blood\s+pressure|low\s+vision|color\s*blindness|colour\s*blindness|hearing\s+loss|rsi|carpal\s+tunnel|long\s+covid|ibs|crohn's)\b.*)",
        "Has {obj}",
        "have suffer live",
        group="health",
        examples=(("I have celiac disease.", "Has celiac disease"),),
    ),
    en_rule(
        "constraint",
        I
        + ADV
        + r"(?:use|rely\s+on|need)\s+(?P<obj>(?:a\s+)?(?:screen\s+reader|screenreader|wheelchair|hearing\s+aids?|large\s+(?:fonts?|text)|high\s+contrast|voice\s+control|captions|subtitles)\b.*)",
        "Uses {obj}",
        "screen screenreader wheelchair hearing large high voice captions subtitles",
        group="health",
        examples=(("I use a screen reader.", "Uses a screen reader"),),
    ),
    en_rule(
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
        examples=(("I don't eat pork.", "Does not eat pork"),),
    ),
    en_rule(
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
        examples=(("I can't have gluten.", "Cannot have gluten"),),
    ),
    en_rule(
        "constraint",
        I
        + ADV
        + r"(?:only\s+)?(?:have|own|work\s+on|am\s+on|'m\s+on)\s+(?P<obj>(?:a|an|my)\s+(?:[\w-]+\s+){0,2}?(?:Chromebook|Mac|MacBook|iMac|iPhone|iPad|Android|PC|laptop|Pixel|Galaxy|ThinkPad|Surface|Raspberry\s+Pi|Linux\s+box|Windows\s+(?:laptop|machine|PC))\b.*)",
        "Has {obj}",
        "chromebook mac macbook imac iphone ipad android pc laptop pixel galaxy thinkpad surface raspberry linux windows",
        group="device",
        examples=(
            (
                "I only have a Chromebook, so no desktop apps please.",
                "Has a Chromebook",
            ),
        ),
    ),
    en_rule(
        "constraint",
        IM
        + r"(?P<obj>(?:a|an)\s+(?:Mac|Windows|Linux|Ubuntu|iPhone|Android|Chromebook|iPad|Emacs|Vim)\s+(?:user|person|guy|girl))\b",
        "Is {obj}",
        "user person guy girl",
        group="device",
        examples=(("I'm a Mac user and I live in Vim.", "Is a Mac user"),),
    ),
    en_rule(
        "constraint",
        I
        + ADV
        + r"(?:avoid|stay\s+away\s+from|cut\s+out)\s+(?P<obj>(?:gluten|dairy|sugar|alcohol|caffeine|meat|pork|beef|nuts|peanuts|shellfish|seafood|eggs|soy|carbs|lactose)\b.*)",
        "Avoids {obj}",
        "avoid stay cut",
        "negative",
        group="choice",
        examples=(("I avoid gluten.", "Avoids gluten"),),
    ),
    en_rule(
        "constraint",
        START
        + r"(?:I|we)(?:'m|'re|\s+am|\s+are)\s+on\s+(?P<obj>(?:a|an)\s+(?:\w+\s+)?budget(?:\s+of\s+.+)?)",
        "Is on {obj}",
        "budget",
        slot="constraint.budget",
        group="budget",
        examples=(
            (
                "OK so context: I'm a solo founder, I'm building a SaaS for dentists, and I'm on a budget of $200/month.",
                "Is on a budget of $200/month",
            ),
        ),
    ),
    en_rule(
        "constraint",
        r"\bmy\s+(?:max(?:imum)?\s+|total\s+|monthly\s+|weekly\s+)?budget\s+(?:is|of)\s+(?P<obj>.+)",
        "Budget is {obj}",
        "budget",
        slot="constraint.budget",
        group="budget",
        examples=(("My budget is around $800.", "Budget is around $800"),),
    ),
    en_rule(
        "constraint",
        # "my budget for the laptop is around 1200 euros": the budget of one purchase
        r"\b(?:my|our)\s+budget\s+for\s+(?P<what>[\w' -]{1,40}?)\s+is\s+(?P<obj>.+)",
        "Budget for {what} is {obj}",
        "budget",
        group="budget",
        examples=(
            (
                "My budget for the laptop is around 1200 euros.",
                "Budget for the laptop is around 1200 euros",
            ),
        ),
    ),
    en_rule(
        "constraint",
        # "I only eat halal meat": a diet said by what is left
        I + r"(?:only\s+eat|eat\s+only|only\s+drink|drink\s+only)\s+(?P<obj>.+)",
        "Only eats {obj}",
        "only",
        group="diet",
        examples=(("I only eat halal meat.", "Only eats halal meat"),),
    ),
    en_rule(
        "constraint",
        # "I can't do stairs because of my knee": a physical limit ("can't stand" is taste)
        I
        + r"(?:can'?t|cannot|can\s+not)\s+(?P<verb>do|climb|walk|lift|carry)\s+(?P<obj>(?!this\b|that\b|it\b)[\w' -]{2,40}?)(?=\s*(?:$|[.,;!]|\bbecause\b|\bsince\b|\bdue\b|\bwith\b))",
        "Cannot {verb} {obj}",
        "do climb walk lift carry",
        "negative",
        group="physical",
        examples=(("Cannot do stairs", "Cannot do stairs"),),
    ),
    en_rule(
        "constraint",
        # "I can only code on weekends": a limit on when or how, not a wish
        I
        + r"(?:can|could)\s+only\s+(?P<obj>[a-z]+\s+(?:on|at|in|during|after|before|from|with|for)\s+.+)",
        "Can only {obj}",
        "only",
        group="time",
        examples=(
            (
                "I can only code on weekends because of my day job.",
                "Can only code on weekends",
            ),
        ),
    ),
    en_rule(
        "constraint",
        # "I only have about 20 minutes a day to study": time they can give, a standing limit
        I
        + r"(?:only\s+|just\s+)?(?:have|get|can\s+spare|can\s+find)\s+(?P<obj>(?:about\s+|around\s+|roughly\s+|maybe\s+|at\s+most\s+)?"
        + r"(?:an?|one|two|three|four|five|ten|\d+(?:[.,]\d+)?)\s*(?:-\s*\d+\s*)?(?:minutes?|mins?|hours?|hrs?|days?|evenings?)\s+"
        + r"(?:a|per|each|every)\s+(?:day|night|week|weekend|month|evening)\b.*)",
        "Has {obj}",
        "have get spare find",
        group="time",
        examples=(
            (
                "I only have about 20 minutes a day to study.",
                "Has about 20 minutes a day to study",
            ),
        ),
    ),
    en_rule(
        "constraint",
        I
        + ADV
        + r"have\s+(?:a|an)\s+(?:max(?:imum)?\s+|total\s+|monthly\s+|weekly\s+)?budget\s+of\s+(?P<obj>.+)",
        "Budget is {obj}",
        "budget",
        slot="constraint.budget",
        group="budget",
        examples=(("I have a budget of 500 euros.", "Budget is 500 euros"),),
    ),
    en_rule(
        "constraint",
        I
        + ADV
        + r"(?P<verb>can'?t|cannot|can\s+not)\s+(?:afford\s+to\s+)?(?:spend|pay)\s+more\s+than\s+(?P<obj>.+)",
        "Cannot spend more than {obj}",
        "spend pay",
        slot="constraint.budget",
        group="budget",
        examples=(
            (
                "I can't spend more than 50 euros a month on software.",
                "Cannot spend more than 50 euros a month on software",
            ),
        ),
    ),
    en_rule(
        "constraint",
        START
        + r"(?:I|we)(?:'m|'re|\s+am|\s+are)\s+(?:still\s+|currently\s+)?(?:stuck|pinned|locked|limited|restricted|tied)\s+(?:on|to|with|into|at)\s+(?P<obj>.+)",
        "Is stuck on {obj}",
        "stuck pinned locked limited restricted tied",
        group="platform",
        examples=(("We're stuck on Python 3.8.", "Is stuck on Python 3.8"),),
    ),
    en_rule(
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
        accept=is_technical,
        examples=(
            (
                "I can't install Docker on my work laptop.",
                "Cannot install Docker on their work laptop",
            ),
        ),
    ),
    en_rule(
        "constraint",
        START
        + r"(?:I|we)\s+(?:have|need|must)\s+(?:to\s+)?(?P<verb>support|stay\s+on|target|run\s+on|stick\s+to|be\s+compatible\s+with|deploy\s+on|ship\s+on)\s+(?P<obj>.+)",
        "Has to {verb} {obj}",
        "support stay target run stick compatible deploy ship",
        group="platform",
        accept=is_technical,
        examples=(("We have to stay on Node 16 for now.", "Has to stay on Node 16"),),
    ),
    en_rule(
        "constraint",
        IM
        + ADV
        + r"(?:only\s+)?(?:on|using|running)\s+(?P<obj>(?:an?\s+)?(?:Windows|macOS|Mac|MacBook|Linux|Ubuntu|Debian|Fedora|Arch|NixOS|iOS|iPhone|iPad|Android|ChromeOS|Chromebook|M[1-4]|Intel|AMD|Raspberry\s+Pi|WSL)\b.*)",
        "Is on {obj}",
        "windows macos mac macbook linux ubuntu debian fedora arch nixos ios iphone ipad android chromeos chromebook m intel amd raspberry wsl",
        group="platform",
        choice=True,
        examples=(("I'm on Windows 11 with WSL2.", "Is on Windows 11 with WSL2"),),
    ),
    en_rule(
        "constraint",
        I
        + ADV
        + r"(?:don'?t|do\s+not)\s+have\s+(?P<obj>(?:admin|root|sudo|internet|a\s+car|a\s+gpu|a\s+credit\s+card|a\s+driver'?s\s+licen[cs]e|access\s+to)\b.*)",
        "Does not have {obj}",
        "have",
        "negative",
        group="platform",
        examples=(
            (
                "I don't have admin rights on this laptop.",
                "Does not have admin rights on this laptop",
            ),
        ),
    ),
    # -- standing instructions ---------------------------------------------------------
    en_rule(
        "instruction",
        PLEASE
        + r"(?:don'?t|do\s+not|stop|no\s+need\s+to)\s+(?:answer|respond|reply|write|talk|speak)(?:ing)?(?:\s+to\s+me)?\s+in\s+(?P<obj>"
        + LANGS
        + r")",
        "Does not want answers in {obj}",
        LANG_TRIGGERS,
        "negative",
        slot="instruction.language",
        group="instruction",
        examples=(
            ("Don't answer in French anymore.", "Does not want answers in French"),
        ),
    ),
    en_rule(
        "instruction",
        PLEASE
        + r"(?:answer|respond|reply|write|talk|speak|communicate|chat)(?:\s+(?:back\s+)?to\s+me)?(?:\s+(?:always|only))?\s+(?:to\s+me\s+)?in\s+(?P<obj>"
        + LANGS
        + r")\b",
        "Wants answers in {obj}",
        LANG_TRIGGERS,
        slot="instruction.language",
        group="instruction",
        examples=(("Reply only in Dutch.", "Wants answers in Dutch"),),
    ),
    en_rule(
        "instruction",
        r"\b(?:answers?|responses?|replies)\s+(?:should|must)\s+(?:always\s+)?be\s+in\s+(?P<obj>"
        + LANGS
        + r")\b",
        "Wants answers in {obj}",
        LANG_TRIGGERS,
        slot="instruction.language",
        group="instruction",
        examples=(("Answers should be in German.", "Wants answers in German"),),
    ),
    en_rule(
        "instruction",
        START
        + r"I\s+(?:want|need|prefer|would\s+like|'d\s+like)\s+(?:you\s+to\s+(?:answer|reply|respond|write)|answers|responses|replies)\s+in\s+(?P<obj>"
        + LANGS
        + r")\b",
        "Wants answers in {obj}",
        LANG_TRIGGERS,
        slot="instruction.language",
        group="instruction",
        examples=(("I want answers in Spanish.", "Wants answers in Spanish"),),
    ),
    en_rule(
        "instruction",
        PLEASE
        + r"no\s+(?:more\s+)?(?P<obj>emojis?|emoticons|jargon|fluff|small\s+talk|disclaimers|apologies|bullet\s+points|markdown|tables|code\s+comments|preambles?|filler|exclamation\s+marks|yapping|lectures|moralizing|caveats)\b.*",
        "Does not want {obj}",
        "no",
        "negative",
        group="instruction",
        examples=(("No emojis please.", "Does not want emojis"),),
    ),
    en_rule(
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
        accept=is_standing,
        slot=instruction_slot,
        examples=(("Never use emojis.", "Does not want the assistant to use emojis"),),
    ),
    en_rule(
        "instruction",
        PLEASE
        + r"(?P<obj>(?:keep|be|use|write|format|give|answer|respond|reply|show|include|add|put|start|end|explain|cite|stick\s+to|default\s+to|assume|treat|spell|sign|talk|address|refer\s+to|prefer|limit|cap)\b.+)",
        "Wants the assistant to {obj}",
        "keep be use write format give answer respond reply show include add put start end explain cite stick default assume treat spell sign talk address refer prefer limit cap",
        group="instruction",
        accept=is_standing,
        slot=instruction_slot,
        examples=(
            ("Always use metric units.", "Wants the assistant to use metric units"),
        ),
    ),
    en_rule(
        "instruction",
        START
        + r"I\s+(?:want|need|would\s+like|'d\s+like|expect)\s+you\s+to\s+(?:always\s+)?(?P<obj>.+)",
        "Wants the assistant to {obj}",
        "want need like expect",
        group="instruction",
        accept=is_standing,
        slot=instruction_slot,
        examples=(
            (
                "I want you to always include sources.",
                "Wants the assistant to include sources",
            ),
        ),
    ),
    en_rule(
        "instruction",
        START
        + r"I(?:'d|\s+would)\s+(?:prefer|like\s+it|rather|appreciate\s+it)\s+if\s+you\s+(?:didn'?t|did\s+not|wouldn'?t|would\s+not|don'?t|do\s+not|never|stopped|stop)\s+(?P<obj>.+)",
        "Does not want the assistant to {obj}",
        "prefer like rather appreciate",
        "negative",
        group="instruction",
        examples=(
            (
                "I'd prefer if you didn't use emojis.",
                "Does not want the assistant to use emojis",
            ),
        ),
    ),
    en_rule(
        "instruction",
        # "I'd like all answers as numbered steps": how every answer should look
        START
        + r"I(?:'d\s+like|\s+would\s+like|\s+want|\s+prefer|\s+need)\s+(?P<obj>(?:all\s+|your\s+|the\s+)*(?:answers|responses|replies|explanations|examples|summaries|code)\s+(?:as|in|to\s+be|with|without|formatted\s+as)\s+.+)",
        "Wants {obj}",
        "like want prefer need",
        group="instruction",
        slot=instruction_slot,
        examples=(
            (
                "I'd like all answers as numbered steps.",
                "Wants all answers as numbered steps",
            ),
        ),
    ),
    en_rule(
        "instruction",
        PLEASE + r"(?:there's\s+)?no\s+need\s+to\s+(?P<obj>.+)",
        "Does not want the assistant to {obj}",
        "need",
        "negative",
        group="instruction",
        examples=(
            (
                "No need to explain the basics, I'm a senior engineer.",
                "Does not want the assistant to explain the basics",
            ),
        ),
    ),
    en_rule(
        "stack",
        r"(?:^(?:[\w ]{1,20}:\s*)?|,\s*)(?:currently\s+|now\s+|also\s+)?(?P<verb>building|developing|working\s+on|maintaining)\s+(?P<obj>(?:a|an|my|our)\s+.+)",
        "Is {verb} {obj}",
        "building developing working maintaining",
        group="project",
        accept=not_task,
        examples=(
            (
                "Context: solo dev, building a budgeting app with SvelteKit and Supabase.",
                "Is building a budgeting app with SvelteKit and Supabase",
            ),
        ),
    ),
    en_rule(
        "instruction",
        PLEASE
        + r"make\s+(?:your\s+|the\s+|all\s+)?(?P<obj>(?:answers|responses|replies|explanations|code|examples|summaries)\s+.+)",
        "Wants the assistant to make {obj}",
        "make",
        group="instruction",
        slot=instruction_slot,
        examples=(
            (
                "Make your answers shorter please.",
                "Wants the assistant to make answers shorter",
            ),
        ),
    ),
)
