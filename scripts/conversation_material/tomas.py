"""Tomás: a Spanish teacher from Seville living in Manchester; a dog, a proposal, a flat."""

from __future__ import annotations

from dataclasses import replace

from scripts.conversation_material.types import WHEN, Fact, Persona, q

PERSONA = Persona(
    id="tomas",
    name="Tomás",
    start="2026-02-02",
    hour=21,
    gaps_days=(6, 11, 8, 37, 26, 42, 23, 28, 30, 34, 28),
    facts=(
        Fact(
            "job",
            0,
            "Marking 90 essays this weekend, kill me. I teach Spanish at a secondary school in Stockport. How do I mark faster without being unfair?",
            "Use a short rubric with 4 criteria, mark one criterion across all essays at a time, and give whole-class feedback for the common mistakes.",
            (
                q("What subject do I teach?", "Spanish"),
                q("Where is the school I teach at?", "Stockport"),
            ),
        ),
        Fact(
            "origin",
            0,
            "I grew up in Seville, so Manchester rain in February is a personal insult. Give me a cosy dinner idea.",
            "A big pot of lentejas with chorizo and smoked paprika — Seville in a bowl.",
            (q("Where did I grow up?", "Seville"),),
        ),
        Fact(
            "rent",
            0,
            "We rent a tiny place in Levenshulme and the boiler died again. What do I say to the letting agent so they actually act?",
            "Put it in writing, say there's no heating or hot water, cite their repair obligation and ask for a date within 24 hours.",
            (q("Which area did I rent in before buying?", "Levenshulme", "previous"),),
        ),
        Fact(
            "dog",
            1,
            "Chispa ate half a sock. She's a two-year-old border collie with the brain of a genius and the judgement of a toddler. Should I worry?",
            "Call the vet: a sock can cause a blockage. Watch for vomiting, lethargy or no appetite, and don't try to make her vomit at home.",
            (
                q("What breed is my dog?", "border collie"),
                q("What's my dog called?", "Chispa"),
                q("What did my dog eat?", "sock"),
            ),
        ),
        Fact(
            "girlfriend",
            1,
            "Hannah says I'm too competitive at board games. She's right, but don't tell her. Any cooperative games we could play instead?",
            "Pandemic, The Crew, or Spirit Island — you win or lose together, so no one gloats.",
            (q("What is my girlfriend's name?", "Hannah"),),
        ),
        Fact(
            "football",
            1,
            "Five-a-side on Tuesdays is the only exercise I get. We play at the Powerleague in Trafford. What stretches before?",
            "Leg swings, walking lunges, high knees and a few short sprints — dynamic, not static.",
            (
                q("What day do I play five-a-side?", "Tuesdays"),
                q("Where do I play five-a-side?", "Powerleague Trafford"),
            ),
        ),
        Fact(
            "team",
            2,
            "Betis lost again. Why do I support a team that makes me suffer. Explain football loyalty psychologically?",
            "It's identity, not outcome: the team ties you to a place and people, so switching would feel like leaving home.",
            (q("Which football team do I support?", "Betis"),),
        ),
        Fact(
            "brother",
            2,
            "My brother Diego is a chef in Madrid, at a place called La Bodeguilla. He wants to open his own restaurant. What should he ask a bank?",
            "Loan term and rate, grace period, what collateral they'd want, and whether they finance equipment separately.",
            (
                q("What does my brother do for a living?", "chef"),
                q("Which restaurant does Diego work at?", "La Bodeguilla"),
                q("In which city does my brother work?", "Madrid"),
            ),
        ),
        Fact(
            "guitar",
            2,
            "Started guitar lessons with a guy called Rob on Saturday mornings. My fingertips hate me. Normal?",
            "Completely normal; it takes 2–4 weeks of short daily practice for calluses to form.",
            (
                q("Who teaches me guitar?", "Rob"),
                q("When did I start guitar lessons?", WHEN, "when"),
            ),
        ),
        Fact(
            "dad",
            3,
            "Mi padre se opera de la cadera el 3 de abril en el Virgen del Rocío. Estoy nervioso. ¿Cómo le escribo algo que le anime?",
            "Algo sencillo: 'Papá, mucho ánimo el jueves. Estás en buenas manos y en nada estarás dando paseos por el parque. Te quiero.'",
            (
                q("What operation is my father having?", "cadera", "single"),
                q("Which hospital is my dad's surgery at?", "Virgen del Rocío"),
            ),
        ),
        Fact(
            "coffee_old",
            3,
            "I drink like five espressos a day, is that too much?",
            "Around 400 mg of caffeine a day is the usual upper limit for adults; five espressos is close to it.",
            (q("How many espressos did I drink a day at first?", "five", "previous"),),
        ),
        Fact(
            "flight",
            4,
            "Flying to Seville to be with Dad after the surgery, Ryanair from Manchester. What can I bring as hand luggage?",
            "One small bag under the seat (40x20x25 cm) for free; a 10 kg cabin bag only if you pay for priority.",
            (q("Which airline did I fly to Seville with?", "Ryanair"),),
        ),
        Fact(
            "dad_ok",
            4,
            "Dad's op went well, he's walking with a frame already. My mum is the one who needs a holiday now, honestly.",
            "That's a relief — and yes, carers need looking after too.",
            (
                q(
                    "How is my dad doing after his operation?",
                    "walking with a frame",
                    "multi_hop",
                    ("dad",),
                ),
            ),
        ),
        Fact(
            "proposal_plan",
            5,
            "I'm going to propose to Hannah. Thinking of doing it in the Lake District, at Tarn Hows. Is June too crowded?",
            "Weekdays early in the morning are quiet even in June, and Tarn Hows has an easy loop path.",
            (q("Where was I planning to propose?", "Tarn Hows"),),
        ),
        Fact(
            "ring",
            5,
            "The ring is a sapphire, her grandmother's was too. I've hidden it in my guitar case.",
            "Sapphire is a lovely nod to her grandmother. The guitar case is a solid hiding spot.",
            (
                q("What stone is the engagement ring?", "sapphire"),
                q("Where did I hide the ring?", "guitar case"),
            ),
        ),
        Fact(
            "engaged",
            6,
            "SHE SAID YES, we're engaged! Yesterday at Tarn Hows, Chispa was there too and barked through the whole speech.",
            "Congratulations to you both! And to Chispa for her contribution.",
            (
                q("When did Hannah and I get engaged?", "@-1", "when"),
                q(
                    "What's my relationship to Hannah now?",
                    "engaged",
                    "updated",
                    superseded=("girlfriend",),
                ),
                q("Which pet was at the proposal?", "Chispa", "multi_hop", ("dog",)),
            ),
        ),
        Fact(
            "flat",
            7,
            "We bought a flat! Two beds in Chorlton, near the Metrolink. Completion is mid-August.",
            "That's brilliant news. Chorlton is great, and being near the tram helps a lot.",
            (
                q("Where do I live now?", "Chorlton", "updated", superseded=("rent",)),
                q("How many bedrooms does the new flat have?", "Two"),
                q("When did I tell you we bought the flat?", WHEN, "when"),
            ),
        ),
        Fact(
            "decaf",
            7,
            "Update: I switched to decaf after the doctor said my blood pressure was a bit high. Tastes like sadness.",
            "Good decision for your health. A good single-origin decaf tastes much better than supermarket ones.",
            (
                q(
                    "What coffee do I drink now?",
                    "decaf",
                    "updated",
                    superseded=("coffee_old",),
                ),
                q("Why did I change my coffee habit?", "blood pressure"),
            ),
        ),
        Fact(
            "wedding_date",
            8,
            "We set the wedding date: 17 April next year, in Seville, at a cortijo outside the city. Guest list is already a war.",
            "Spring in Seville is gorgeous. Want help with a guest list method that avoids fights?",
            (
                q("When is the wedding?", "17 April"),
                q("Where is the wedding going to be?", "Seville cortijo"),
            ),
        ),
        Fact(
            "budget",
            8,
            "Our wedding budget is 18,000 pounds and half the quotes are already over that. How do people do this?",
            "Cut the guest count first, it drives almost everything; then venue day of week, then the bar.",
            (q("What's our wedding budget?", "18,000"),),
        ),
        Fact(
            "honeymoon",
            9,
            "Honeymoon idea: two weeks in Japan, Kyoto and then a ryokan in Hakone. Hannah wants to see the deer in Nara.",
            "Nara is an easy day trip from Kyoto, so that fits nicely.",
            (
                q("Where are we going on honeymoon?", "Japan"),
                q(
                    "What does my fiancée want to see in Nara?",
                    "deer",
                    "multi_hop",
                    ("engaged",),
                ),
            ),
        ),
        Fact(
            "guitar_song",
            9,
            "I can finally play Entre dos aguas, well, the first minute of it. Rob says I'm rushing.",
            "That's a hard piece — a minute is a real milestone. Practise with a metronome a bit slower than feels natural.",
            (q("Which piece can I play on guitar now?", "Entre dos aguas"),),
        ),
        Fact(
            "school_new",
            10,
            "Big change: I got the head of languages job, but at a different school, Altrincham Grammar. Start in January.",
            "Congratulations, head of department is a big step!",
            (
                q(
                    "Which school will I work at from January?",
                    "Altrincham Grammar",
                    "updated",
                    superseded=("job",),
                ),
                q("What's my new position?", "head of languages"),
                q("When did I get the head of languages job?", WHEN, "when"),
            ),
        ),
        Fact(
            "diego_rest",
            10,
            "Diego finally opened his own place! It's called Brasa, a grill in Lavapiés.",
            "Amazing! Brasa is a great name for a grill.",
            (
                q(
                    "What is my brother's restaurant called?",
                    "Brasa",
                    "updated",
                    superseded=("brother",),
                ),
                q("In which neighbourhood is Diego's restaurant?", "Lavapiés"),
            ),
        ),
        Fact(
            "knee",
            11,
            "Twisted my ankle at five-a-side, so I'm out for a few weeks. Hannah says it's karma for the board games.",
            "Rest, ice, compression, elevation — and maybe concede she has a point.",
            (
                q("What injury did I get?", "ankle"),
                q(
                    "Which weekly activity was I injured at?",
                    "five-a-side",
                    "multi_hop",
                    ("football",),
                ),
            ),
        ),
        Fact(
            "chispa_agility",
            11,
            "On n'arrête plus Chispa: elle a gagné sa première compétition d'agility dimanche!",
            "Félicitations à Chispa ! Les border collies sont faits pour ça.",
            (q("What did my dog win?", "agility"),),
        ),
    ),
    chatter=(
        (
            "Give me five fun warm-up activities for a Year 9 Spanish class",
            "Word tennis, 'Pasapalabra' letters, a 60-second picture description, Simon dice, and a quick verb-ending relay.",
        ),
        (
            "¿Cuál es la diferencia entre 'por' y 'para' explicada para adolescentes?",
            "'Por' mira hacia atrás (causa, medio, a través); 'para' mira hacia delante (finalidad, destino, plazo).",
        ),
        (
            "Write a parent email about a trip to the Manchester Museum next month",
            "Dear parents, next month Year 8 will visit the Manchester Museum. Please return the consent slip by Friday. Pupils need a packed lunch and a coat.",
        ),
        (
            "what's a good way to stop kids copying from translation apps",
            "Ask for handwritten drafts in class, oral follow-up questions, and mistakes that only a learner would make.",
        ),
        (
            "dame un trabalenguas difícil",
            "'Pablito clavó un clavito en la calva de un calvito. En la calva de un calvito, un clavito clavó Pablito.'",
        ),
        (
            "how do I explain the subjunctive without scaring them",
            "Start with wishes and feelings ('quiero que vengas'): if one person wants something of another, the second verb changes mood.",
        ),
        (
            "Was heißt 'Hausaufgaben' genau?",
            "'Hausaufgaben' sind Aufgaben für zu Hause, also homework.",
        ),
    ),
)

# More questions about the facts above (when, details, paraphrases without the fact's words).
PERSONA = replace(
    PERSONA,
    extra=(
        ("job", q("How many essays did I have to mark that weekend?", "90")),
        ("dog", q("How old is my collie?", "two")),
        ("dog", q("When did my dog eat the sock?", WHEN, "when")),
        ("girlfriend", q("Who says I'm too competitive at board games?", "Hannah")),
        ("brother", q("What does Diego want to do?", "open his own restaurant")),
        ("dad", q("When is my dad's hip surgery?", "3 de abril")),
        ("flight", q("Which airport did I fly from to see my dad?", "Manchester")),
        (
            "proposal_plan",
            q("In which national park did I want to propose?", "Lake District"),
        ),
        ("ring", q("Whose ring was also a sapphire?", "grandmother")),
        ("engaged", q("What did Chispa do during my proposal speech?", "barked")),
        ("flat", q("Which transport is near our new flat?", "Metrolink")),
        ("flat", q("When do we get the keys to the flat?", "mid-August")),
        ("decaf", q("When did I switch to decaf?", WHEN, "when")),
        ("wedding_date", q("When did we set the wedding date?", WHEN, "when")),
        ("honeymoon", q("Where do we stay in Hakone?", "ryokan")),
        ("school_new", q("When do I start at the new school?", "January")),
        ("diego_rest", q("What kind of restaurant did Diego open?", "grill")),
        (
            "chispa_agility",
            q("When did Chispa win the agility competition?", "dimanche"),
        ),
        (
            "dog",
            q(
                "What did you tell me not to do at home after Chispa ate the sock?",
                "vomit",
                "assistant",
            ),
        ),
        (
            "girlfriend",
            q(
                "Which cooperative games did you recommend for Hannah and me?",
                "Pandemic The Crew Spirit Island",
                "assistant",
            ),
        ),
    ),
)
