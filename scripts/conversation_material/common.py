"""Fact-free turns everybody has: task requests, follow-ups, small talk, acknowledgements.

None of these says anything about the person, so a memory that recalls them is noise.
"""

from __future__ import annotations

TASKS: tuple[tuple[str, str], ...] = (
    (
        "Give me three synonyms for 'resilient' that don't sound like a LinkedIn post.",
        "Sturdy, hardy, and tough-minded. If you want something warmer: 'bounces back'.",
    ),
    (
        "What's 350 Fahrenheit in Celsius?",
        "About 177 °C; most recipes round it to 180 °C (gas mark 4).",
    ),
    (
        "Write a haiku about autumn rain on a tin roof.",
        "Tin roof drums softly / the maple lets go its red / puddles hold the sky",
    ),
    (
        "How do I remove a red wine stain from a cotton shirt?",
        (
            "Blot (don't rub), rinse from the back with cold water, then cover it with salt or a paste of "
            "baking soda and water; wash cold with an enzyme detergent and don't tumble-dry until it's gone."
        ),
    ),
    (
        "Explain the difference between a Roth and a traditional retirement account in two sentences.",
        (
            "Traditional: you get the tax break now and pay tax when you withdraw. Roth: you pay tax now "
            "and withdrawals in retirement are tax-free."
        ),
    ),
    (
        "Can you proofread this: 'Their going to send the report tomorow, weather or not we agree.'",
        (
            '"They\'re going to send the report tomorrow, whether or not we agree." Three fixes: '
            "they're, tomorrow, whether."
        ),
    ),
    (
        "What's a good way to memorise a short speech?",
        (
            "Learn it in chunks of two or three sentences, tie each chunk to a place in a room you know "
            "(memory palace), and rehearse out loud standing up, not just reading it."
        ),
    ),
    (
        "Summarise the plot of Hamlet in one paragraph, no spoilers beyond act 3.",
        (
            "Prince Hamlet's father has died and his uncle Claudius has married his mother and taken the "
            "throne. A ghost claims Claudius murdered him; Hamlet feigns madness, stages a play to test "
            "Claudius's guilt, and by the end of act 3 is certain - and has made a fatal mistake."
        ),
    ),
    (
        "How long should I boil an egg for a jammy yolk?",
        "Six and a half minutes from boiling water, then straight into ice water for a couple of minutes.",
    ),
    (
        "Draft a polite email declining a meeting invite because of a clash.",
        (
            "Hi —, thanks for the invite. Unfortunately I have a clash at that time. Could we find another "
            "slot later in the week, or could you share the notes afterwards? Best, —"
        ),
    ),
    (
        "What is the capital of Australia? I always forget.",
        "Canberra — not Sydney, everyone forgets.",
    ),
    (
        "Give me a 20-minute bodyweight workout I can do in a small room.",
        (
            "4 rounds, 45 s on / 15 s off: squats, push-ups, reverse lunges, plank, glute bridges. "
            "Warm up 3 minutes first and stretch after."
        ),
    ),
    (
        "How many tablespoons are in a cup?",
        "16 US tablespoons make a cup (about 240 ml).",
    ),
    (
        "What does 'per se' actually mean?",
        "'In itself' / 'intrinsically': the idea isn't bad per se, the timing is.",
    ),
    (
        "Suggest a name for a spreadsheet that tracks shared household expenses.",
        "'Who Paid What', 'The Ledger', or 'Even Steven' if you want something cheeky.",
    ),
    (
        "Write a short birthday message for a coworker I don't know very well.",
        "Happy birthday! Hope you get a proper break today and something nice with your coffee.",
    ),
    (
        "What's the rule for when to use 'fewer' vs 'less'?",
        "'Fewer' for things you can count (fewer emails), 'less' for amounts (less time).",
    ),
    ("Convert 5 km to miles.", "5 km is about 3.1 miles."),
    (
        "Recommend a board game for four adults who don't like long rules explanations.",
        "Codenames, Just One, or Sushi Go Party — all teach in under five minutes.",
    ),
    (
        "How do I make my sourdough crust less thick?",
        (
            "Bake covered for longer and uncovered for less, lower the final temperature a little, and "
            "spritz the loaf with water before it goes in."
        ),
    ),
    (
        "Explain what an API is to a ten-year-old.",
        (
            "It's like a waiter: you tell the waiter what you want, the kitchen makes it, and the waiter "
            "brings it back. You never need to go into the kitchen yourself."
        ),
    ),
    (
        "What's the fastest way to defrost chicken safely?",
        (
            "Sealed bag in cold water, changing the water every 30 minutes; roughly an hour per pound. "
            "Cook it right after."
        ),
    ),
    (
        "Write a limerick about a cat who hates Mondays.",
        (
            "A tabby who dreaded each Monday / would hide till the end of the day / she'd yawn at the "
            "clock, / ignore every knock, / and only come out on a Sunday."
        ),
    ),
    (
        "Is it 'affect' or 'effect' in 'the weather will ___ our plans'?",
        "'Affect' — it's the verb here.",
    ),
    (
        "How much water should I give a snake plant?",
        (
            "Very little: water deeply only when the soil is completely dry, roughly every 2–3 weeks, "
            "less in winter."
        ),
    ),
    (
        "Make a packing checklist for a weekend city break.",
        (
            "Documents and cards, phone + charger + adapter, two tops, one pair of trousers, comfortable "
            "shoes, light jacket, toiletries in a clear bag, meds, a tote bag for shopping."
        ),
    ),
    (
        "What's a polite way to say 'I already told you this' at work?",
        '"Just to recap what I mentioned on Tuesday: ..." — it restates without the edge.',
    ),
    (
        "Translate 'good luck with your exam' into Italian.",
        "In bocca al lupo per l'esame! (reply: crepi!)",
    ),
    (
        "How do I calculate a 15% tip on 64.50?",
        "9.68, so 74.18 in total; round to 74 or 75.",
    ),
    (
        "What are some good questions to ask at the end of a job interview?",
        (
            "What does success look like in the first six months? What's the team's biggest challenge "
            "right now? How do you give feedback here?"
        ),
    ),
    (
        "Can you explain compound interest with a simple example?",
        (
            "1,000 at 5% a year: after year one 1,050; year two you earn 5% of 1,050, so 1,102.50. "
            "Interest earns interest, which is why time matters so much."
        ),
    ),
    (
        "Help me write a text asking my landlord to fix a leaking tap.",
        (
            "Hi, the kitchen tap has started leaking steadily. Could you arrange for someone to look at "
            "it this week? I'm flexible on times. Thanks!"
        ),
    ),
    (
        "What's the difference between baking soda and baking powder?",
        (
            "Baking soda needs an acid in the recipe to react; baking powder already contains the acid. "
            "You can't swap them one for one."
        ),
    ),
    (
        "Give me a mnemonic for the planets in order.",
        "My Very Educated Mother Just Served Us Nachos.",
    ),
    (
        "How long does cooked rice keep in the fridge?",
        "Up to a day is safest; cool it within an hour and reheat until steaming.",
    ),
    (
        "What does a 'bear market' mean?",
        "Prices falling 20% or more from a recent peak, usually with gloomy sentiment.",
    ),
    (
        "Write a two-line toast for a friend's engagement party.",
        "To two people who make everyone around them happier — may you keep doing that for each other. Cheers!",
    ),
    (
        "What's a good stretch for a stiff lower back after sitting all day?",
        "Knees-to-chest for 30 seconds, then cat–cow for a minute, then a gentle supine twist each side.",
    ),
    (
        "How do I politely end a phone call that's going on too long?",
        "\"I'll let you go — I've got to jump on something, but this was great. Let's pick it up next week.\"",
    ),
    (
        "Rewrite this to sound friendlier: 'Send me the files by 5.'",
        '"Could you send the files over by 5? Thanks so much!"',
    ),
    (
        "What's the best way to clean a cast iron pan?",
        "Hot water and a brush while it's warm, dry it on the hob, then wipe a thin film of oil on it.",
    ),
    (
        "Explain what 'inflation-adjusted' means.",
        "The figure has been corrected for rising prices, so it shows real purchasing power rather than nominal amounts.",
    ),
    (
        "Suggest five easy houseplants for a dark flat.",
        "ZZ plant, pothos, snake plant, cast iron plant and peace lily.",
    ),
    (
        "What's the etiquette for tipping in Japan?",
        "Don't — it can be seen as awkward. Good service is expected.",
    ),
    (
        "Give me a quick recipe using chickpeas, spinach and a tin of tomatoes.",
        (
            "Fry garlic and cumin, add the tomatoes and chickpeas, simmer 10 minutes, stir in spinach "
            "until wilted, finish with lemon. Serve with bread or rice."
        ),
    ),
    (
        "How do I say no to extra work without sounding lazy?",
        'Tie it to priorities: "I can take that on if we move X to next week — which matters more?"',
    ),
    (
        "What's the difference between a virus and bacteria, briefly?",
        (
            "Bacteria are living cells that can reproduce on their own; viruses need a host cell. "
            "Antibiotics work on bacteria, not viruses."
        ),
    ),
    (
        "Make a simple weekly cleaning schedule.",
        (
            "Mon: kitchen surfaces. Tue: bathroom. Wed: hoover. Thu: laundry. Fri: fridge check. "
            "Weekend: bedding every other week."
        ),
    ),
    (
        "Can you write a short product review for a kettle that works fine but is loud?",
        "Boils fast and looks good, but it's noticeably loud — fine unless you make tea while others sleep. 4/5.",
    ),
    (
        "What time is it in Tokyo when it's noon in London?",
        "8 or 9 pm, depending on British summer time: Tokyo is UTC+9.",
    ),
    (
        "Give me a fun fact about octopuses.",
        "They have three hearts, and two of them stop beating while they swim.",
    ),
    (
        "How do I stop my glasses fogging up with a mask?",
        "Pinch the mask's wire over your nose, or wash the lenses with a drop of dish soap and let them air-dry.",
    ),
    (
        "What should go in a basic first aid kit?",
        (
            "Plasters, sterile dressings, tape, antiseptic wipes, tweezers, painkillers, antihistamines, "
            "a thermometer and gloves."
        ),
    ),
    (
        "Explain the offside rule in football simply.",
        (
            "When the ball is played to you, at least two opponents (usually the keeper and a defender) "
            "must be level with or behind you, if you're in their half."
        ),
    ),
    (
        "How can I make a small balcony feel cosier?",
        "String lights, a weatherproof rug, a couple of big pots and one comfortable chair beat lots of small things.",
    ),
    (
        "What's a good gift for someone who just bought their first home?",
        "A nice toolkit, a plant, a doormat with a joke on it, or a voucher for a local hardware shop.",
    ),
    (
        "Write a one-sentence out-of-office reply.",
        "I'm away until Monday with limited access to email; for anything urgent please contact the team inbox.",
    ),
    (
        "Why do onions make you cry?",
        "Cutting them releases a sulphur compound that turns into a gas which irritates your eyes; a sharp knife and a cold onion help.",
    ),
    (
        "Is it worth descaling a kettle? How?",
        "Yes: half water, half white vinegar, boil, leave an hour, rinse and boil twice with fresh water.",
    ),
    (
        "Give me a simple explanation of how vaccines work.",
        (
            "They show your immune system a harmless preview of a germ, so it learns to recognise it and "
            "reacts fast if the real one shows up."
        ),
    ),
    (
        "What's a nice way to start a thank-you note?",
        '"I wanted to say a proper thank you for ..." then name the specific thing.',
    ),
    (
        "How many minutes per kilo to roast a chicken?",
        "About 20 minutes per 500 g plus 20 minutes at 190 °C; check the thickest part reaches 75 °C.",
    ),
    (
        "Suggest a podcast format for a 30-minute commute.",
        "A daily news briefing plus one interview show you save for Fridays works well.",
    ),
    (
        "What's the plural of 'octopus'?",
        "'Octopuses' is standard; 'octopi' is common but etymologically shaky.",
    ),
    (
        "Turn this into a bullet list: eggs milk bread coffee the blue detergent",
        "- eggs\n- milk\n- bread\n- coffee\n- the blue detergent",
    ),
    (
        "How do I fix a zip that keeps splitting open?",
        "Gently squeeze the slider's sides with pliers so it grips the teeth again; go little by little.",
    ),
    (
        "Can you help me phrase a complaint to an airline about a lost bag?",
        (
            "State the flight, date and file reference, what was in the bag, what you've spent because "
            "of the delay (keep receipts), and what you want: delivery by a date and reimbursement."
        ),
    ),
    (
        "What's the difference between weather and climate?",
        "Weather is what happens this week; climate is the pattern over decades.",
    ),
    (
        "Give me three icebreaker questions for a team meeting.",
        "What's the best thing you ate this week? What's a small skill you're proud of? Beach or mountains?",
    ),
    (
        "Explain 'opportunity cost' with an everyday example.",
        (
            "If you spend Saturday painting the fence, the opportunity cost is whatever else you'd have "
            "done with that Saturday — say, the paid shift you turned down."
        ),
    ),
)

FOLLOWUPS: tuple[tuple[str, str], ...] = (
    (
        "can you make that shorter?",
        "Sure — here's a tighter version with only the essentials.",
    ),
    ("perfect, thanks", "Any time!"),
    ("thanks, that helps", "Glad it helps."),
    (
        "hmm, a bit more formal please",
        "Of course — here it is in a more formal register.",
    ),
    (
        "ok and in simpler words?",
        "In plain terms: the short version is the first point; the rest is detail.",
    ),
    ("great. one more variation?", "Here's another take, a little more playful."),
    ("nice 🙂", "🙂"),
    (
        "wait, are you sure about that?",
        "Good to double-check: yes, that's the usual guidance, though local rules can differ.",
    ),
    ("could you put it in a table?", "Here it is as a two-column table."),
    ("ha, love it", "Glad you like it!"),
    ("too long, tbh", "Fair — trimmed to two lines."),
    ("can you give me an example?", "Sure, here's a concrete example that shows it."),
    ("ok cool", "👍"),
    (
        "and what if I don't have that?",
        "Then a simple substitute works almost as well; the result is just a bit less crisp.",
    ),
    ("thank you!!", "You're welcome!"),
    (
        "that's not quite what I meant",
        "Ah, sorry — let me try again from a different angle.",
    ),
    ("makes sense", "Great."),
    ("lol ok", "😄"),
    (
        "can you double the quantities?",
        "Done — everything doubled; cooking time stays roughly the same.",
    ),
    ("fine, go with the second one", "Second one it is."),
    ("brilliant, cheers", "Cheers!"),
    (
        "can you explain the last bit again?",
        "Sure — the last part just means you repeat the step until it stops changing.",
    ),
    ("ok that's enough for now", "No problem, talk soon."),
    (
        "and the same but for a kid?",
        "For a child: make it a story, with one simple picture in words.",
    ),
    (
        "would that work in winter too?",
        "Mostly yes; in winter give it a little more time.",
    ),
)

SMALLTALK: tuple[tuple[str, str], ...] = (
    (
        "morning! coffee hasn't kicked in yet",
        "Morning! Take your time — what's first on the list today?",
    ),
    ("ugh, long day", "Sounds like it. Want to offload or want a distraction?"),
    ("are you there?", "I'm here. What's up?"),
    (
        "random question, do you ever get bored?",
        "Not really — every conversation is a bit different. What made you wonder?",
    ),
    (
        "I just want to procrastinate for five minutes",
        "Five minutes it is. Fun fact or a tiny puzzle?",
    ),
    (
        "tell me something nice",
        "Somewhere right now someone is reading a book they love for the first time.",
    ),
    (
        "what's a good word for when you're tired but wired?",
        "People say 'tired but wired'; 'overtired' is close, and 'frazzled' if stress is in it.",
    ),
    (
        "it's raining again",
        "Perfect excuse for tea and something slow. Anything planned?",
    ),
    ("ok back to work", "Good luck with it!"),
    (
        "do you know any good jokes?",
        "Why don't skeletons fight each other? They don't have the guts.",
    ),
    (
        "I can't focus today",
        "Try one 20-minute block on the smallest task, phone in another room. Momentum helps.",
    ),
    ("weekend finally", "Enjoy it! Anything fun lined up?"),
    ("good night", "Good night — sleep well."),
    ("hey", "Hey! What can I do for you?"),
    ("that was a weird week", "Weird good or weird exhausting?"),
    ("bit of both honestly", "The classic combination. Hope next week is calmer."),
    ("give me a random word", "Lantern."),
    (
        "quick sanity check, it's Thursday right?",
        "Going by your message time, yes, it's Thursday.",
    ),
    ("my brain is mush", "Then let's keep it simple: one thing at a time."),
    ("I'm back", "Welcome back! Where were we?"),
    ("hello again", "Hello again!"),
    ("not much, just bored", "Want a mini quiz? Three questions, general knowledge."),
    (
        "sure, go",
        "Which planet has the most moons? What's the smallest country? Who painted the Water Lilies?",
    ),
    ("saturn, vatican, monet?", "Three for three. Impressive."),
    (
        "it's so hot today",
        "Drink water, close the curtains on the sunny side, and fans work better blowing out of a window at night.",
    ),
    (
        "I should go to bed but I won't",
        "The classic. At least put the phone on night mode.",
    ),
    (
        "any tips for a grey sunday?",
        "A long walk, something in the oven, and one film you've seen before.",
    ),
    ("feeling a bit better today", "Really glad to hear that."),
    (
        "what's your favourite colour lol",
        "If I had to pick: the blue just after sunset.",
    ),
    ("ok, rant over", "Rants are allowed. Hope it helped to get it out."),
    (
        "do you remember what we talked about last time?",
        "I only see what's in this chat, but tell me and we'll pick it up.",
    ),
    (
        "I need a break",
        "Take one — ten minutes away from the screen does more than you'd think.",
    ),
    ("happy friday!", "Happy Friday! Any plans?"),
    ("nothing big, just resting", "Sometimes that's the best plan."),
    ("so tired of emails", "Batch them: two fixed times a day, everything else waits."),
    ("that's clever", "Thanks!"),
    (
        "I'm procrastinating again",
        "Pick the tiniest next step and do only that. Then decide.",
    ),
    (
        "is it normal to talk to an AI this much",
        "Plenty of people use it as a sounding board. As long as it's useful to you.",
    ),
)

ACKS: tuple[str, ...] = (
    "Noted — thanks for telling me.",
    "That sounds lovely.",
    "Oh nice!",
    "Good to know.",
    "That makes sense.",
    "Oof, sorry to hear that.",
    "Congratulations!",
    "Sounds like a good plan.",
    "Ah, fair enough.",
    "Fingers crossed it goes well.",
)

OPENERS: tuple[str, ...] = (
    "",
    "",
    "",
    "",
    "quick one: ",
    "ok, ",
    "hey, ",
    "another thing - ",
    "random but ",
    "so, ",
    "question: ",
    "can you help? ",
    "hi! ",
)
