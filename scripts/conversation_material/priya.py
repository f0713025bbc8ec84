"""Priya: a product manager in Toronto; wedding planning for her brother, a new city, a hobby."""

from __future__ import annotations

from dataclasses import replace

from scripts.conversation_material.types import WHEN, Fact, Persona, q

PERSONA = Persona(
    id="priya",
    name="Priya",
    start="2026-02-16",
    hour=23,
    gaps_days=(5, 15, 15, 15, 20, 20, 100, 10, 20, 15, 55),
    facts=(
        Fact(
            "job",
            0,
            "Roadmap planning week, send help. I'm a product manager at Shopwell, we do grocery delivery in Toronto. How do I say no to the sales team's feature requests nicely?",
            "Show the trade-off: 'We can do this if we drop X this quarter — which matters more to the customer?'",
            (
                q("What's my job?", "product manager"),
                q("Which company did I work for at the start?", "Shopwell", "previous"),
            ),
        ),
        Fact(
            "home",
            0,
            "Living in a condo on Queen West with a view of a parking lot. The noise at night though. White noise machine worth it?",
            "Yes for street noise; a fan-style one masks it better than app sounds. Earplugs as a backup.",
            (q("Where did I live before moving?", "Queen West", "previous"),),
        ),
        Fact(
            "brother_wedding",
            0,
            "My brother Arjun is getting married in August and I'm in charge of the sangeet. Where do I even start?",
            "Book the venue and DJ first, then the family performances: a sign-up sheet and two rehearsals.",
            (
                q("Whose wedding is in August?", "Arjun"),
                q("Which wedding event am I organising?", "sangeet"),
            ),
        ),
        Fact(
            "pottery",
            1,
            "I started a wheel-throwing pottery class on Wednesday evenings at Clay Studio on Dundas. Everything I make looks like an ashtray lol.",
            "That's every beginner's first ten pieces. Centering is the whole game at the start.",
            (
                q("What hobby did I start?", "pottery"),
                q("Which evening is my pottery class?", "Wednesday"),
                q("When did I start pottery?", WHEN, "when"),
            ),
        ),
        Fact(
            "lactose",
            1,
            "I'm lactose intolerant but I refuse to give up chai. Which milk froths best?",
            "Barista oat milk froths best; lactose-free cow's milk is closest in taste.",
            (q("What food intolerance do I have?", "lactose"),),
        ),
        Fact(
            "parents",
            1,
            "My parents live in Brampton and want me over every Sunday for dinner. How do I skip some without guilt?",
            "Offer a fixed alternative: 'Every other Sunday, and I'll call on the off weeks.'",
            (q("Where do my parents live?", "Brampton"),),
        ),
        Fact(
            "bf",
            2,
            "Met someone nice on Hinge, his name is Marcus, he's a paramedic. Second date ideas that aren't dinner?",
            "A cooking class, a walk through Kensington Market with snacks, or an escape room.",
            (
                q("Who did I meet on Hinge?", "Marcus"),
                q("What does Marcus do?", "paramedic"),
            ),
        ),
        Fact(
            "car",
            2,
            "My Honda Civic got towed from outside my own building. 300 dollars. Can I contest it?",
            "Possibly, if signage was missing or you had a permit; take photos and ask for the tow report.",
            (
                q("What car do I drive?", "Honda Civic"),
                q("How much did the tow cost me?", "300 dollars"),
            ),
        ),
        Fact(
            "marathon_no",
            3,
            "Friends want me to do the Toronto marathon. I hate running, I'd rather swim. Convince me out of it.",
            "You don't need convincing: pick the thing you'll actually keep doing. Masters swimming is social too.",
            (q("Which sport would I rather do than running?", "swim"),),
        ),
        Fact(
            "job_offer",
            3,
            "Got an offer from Wealthsimple, senior PM, 20% more. But I like my team. Help me think it through.",
            "List what you'd lose and gain beyond money: scope, manager, growth, commute. Ask to meet the team before deciding.",
            (
                q("Which company made me an offer?", "Wealthsimple"),
                q("How much more did the offer pay?", "20%"),
            ),
        ),
        Fact(
            "accept",
            4,
            "Decided: I'm taking the Wealthsimple job. Start date May 4. Telling my boss tomorrow, scared.",
            "Congratulations! Keep it short and grateful when you tell your boss.",
            (
                q(
                    "Where do I work now?",
                    "Wealthsimple",
                    "updated",
                    superseded=("job",),
                ),
                q("When do I start the new job?", "May 4"),
                q("When did I decide to take the new job?", WHEN, "when"),
            ),
        ),
        Fact(
            "marcus_official",
            4,
            "Marcus and I are official now. He met my parents in Brampton, my mum fed him for 3 hours.",
            "Ha, that's a proper welcome!",
            (
                q("Who is my boyfriend?", "Marcus", "updated", ("bf",)),
                q(
                    "Which city did Marcus go to to meet my parents?",
                    "Brampton",
                    "multi_hop",
                    ("parents",),
                ),
            ),
        ),
        Fact(
            "sangeet_venue",
            5,
            "Booked the sangeet venue: the Paradise Banquet Hall in Mississauga, 180 guests. DJ is my cousin Rohan.",
            "Great progress! Family DJs are a gamble but usually a fun one.",
            (
                q("Where is the sangeet?", "Paradise Banquet Hall"),
                q("Who is DJing the sangeet?", "Rohan"),
                q("How many guests are coming to the sangeet?", "180"),
            ),
        ),
        Fact(
            "dance",
            5,
            "Teaching my aunties a Bollywood medley for the sangeet. Song suggestions that old people know?",
            "'London Thumakda', 'Gallan Goodiyaan', and 'Mehndi Laga Ke Rakhna' — everyone knows them.",
            (q("What kind of dance am I teaching my aunties?", "Bollywood"),),
        ),
        Fact(
            "move",
            6,
            "Moving in with Marcus! We found a two-bedroom in Leslieville, June 1st. Goodbye Queen West parking lot.",
            "Big step — congratulations! Leslieville is lovely.",
            (
                q(
                    "Where do I live now?",
                    "Leslieville",
                    "updated",
                    superseded=("home",),
                ),
                q("When is the move-in date?", "June 1st"),
                q("Who am I moving in with?", "Marcus"),
            ),
        ),
        Fact(
            "pottery_glaze",
            6,
            "My first non-ashtray! A blue celadon mug. Marcus uses it every morning now.",
            "Celadon is beautiful. A mug that gets used daily is the best review.",
            (q("What was my first successful pottery piece?", "celadon mug"),),
        ),
        Fact(
            "wedding_done",
            7,
            "La boda de Arjun fue increíble, bailamos hasta las tres de la mañana. Mi madre lloró en el sangeet.",
            "¡Qué bonito! Las bodas en que las madres lloran suelen ser las mejores.",
            (
                q(
                    "Until what time did we dance at my brother's wedding?",
                    "tres de la mañana",
                ),
                q("Who cried at the sangeet?", "madre"),
            ),
        ),
        Fact(
            "new_job_feel",
            8,
            "Four months at Wealthsimple. I own the savings accounts product now. Way more pressure but I'm learning so much.",
            "That's a big scope — sounds like it's going well.",
            (q("Which product do I own at my new job?", "savings accounts"),),
        ),
        Fact(
            "cat",
            8,
            "We adopted a cat! A one-eyed tuxedo named Captain. Marcus picked the name.",
            "Captain is a perfect name for a one-eyed cat.",
            (
                q("What's our cat called?", "Captain"),
                q("Who named the cat?", "Marcus"),
                q("When did we adopt the cat?", WHEN, "when"),
            ),
        ),
        Fact(
            "car_sold",
            9,
            "Sold the Civic — with the streetcar and Marcus's car we don't need two. No more tow trucks!",
            "One less worry (and no more parking tickets).",
            (q("Do I still have my Honda?", "Sold", "updated", superseded=("car",)),),
        ),
        Fact(
            "swim",
            9,
            "Joined a masters swim club at Pam McConnell Aquatic Centre, 6am Tuesdays and Thursdays. Who am I.",
            "A morning person now, apparently!",
            (
                q("Where do I swim?", "Pam McConnell"),
                q("What days is my swim club?", "Tuesdays Thursdays"),
            ),
        ),
        Fact(
            "trip",
            10,
            "Marcus and I are going to Mexico City for Día de Muertos. Any must-dos?",
            "The parade, the San Andrés Mixquic cemetery vigil, and the food markets: Coyoacán and Medellín.",
            (
                q("Where are we going for Día de Muertos?", "Mexico City"),
                q("When did I tell you about the Mexico City trip?", WHEN, "when"),
            ),
        ),
        Fact(
            "niece",
            11,
            "Arjun and his wife Meera are expecting a baby in the spring! I'm going to be the fun aunt.",
            "That's wonderful news — congratulations, future fun aunt!",
            (
                q("What is my sister-in-law's name?", "Meera"),
                q("Who is expecting a baby?", "Arjun Meera"),
            ),
        ),
        Fact(
            "promotion",
            11,
            "Bonne nouvelle: on m'a nommée group product manager! Je dirige trois PM maintenant.",
            "Félicitations ! Passer à la gestion d'équipe est un grand pas.",
            (
                q(
                    "What's my title now?",
                    "group product manager",
                    "updated",
                    superseded=("accept",),
                ),
                q("How many PMs do I manage?", "trois"),
            ),
        ),
    ),
    chatter=(
        (
            "write me a PRD outline for a 'reorder last basket' feature",
            "Problem, goals and non-goals, users, user stories, requirements, success metrics (reorder rate), risks, rollout.",
        ),
        (
            "what's a good north star metric for a savings app",
            "Monthly active savers: users who made at least one deposit in the month.",
        ),
        (
            "explain RICE prioritisation quickly",
            "Reach × Impact × Confidence ÷ Effort: a score to compare features on the same scale.",
        ),
        (
            "¿me das una frase para empezar una presentación con energía?",
            "'Hoy les voy a contar cómo ahorramos tres horas por semana a cada cliente.'",
        ),
        (
            "how do I run a retro when the team is burnt out",
            "Keep it short, start with appreciation, pick only one thing to change, and protect time for it.",
        ),
        (
            "Qu'est-ce que ça veut dire 'avoir le cafard'?",
            "Être un peu triste, avoir le moral en baisse.",
        ),
        (
            "name for a slack channel for the sangeet dance practice",
            "#thumka-squad or #sangeet-rehearsals.",
        ),
    ),
)

# More questions about the facts above (when, details, paraphrases without the fact's words).
PERSONA = replace(
    PERSONA,
    extra=(
        ("job", q("What does my first company deliver?", "grocery")),
        ("home", q("What's the view from my old condo?", "parking lot")),
        ("brother_wedding", q("When is my brother's wedding?", "August")),
        ("pottery", q("Where is my pottery studio?", "Dundas")),
        ("lactose", q("Which drink won't I give up?", "chai")),
        ("parents", q("Which day do my parents want me for dinner?", "Sunday")),
        ("bf", q("When did I first mention Marcus?", WHEN, "when")),
        ("car", q("When did my car get towed?", WHEN, "when")),
        ("job_offer", q("What position was I offered?", "senior PM")),
        ("marcus_official", q("How long did my mum feed Marcus?", "3 hours")),
        ("sangeet_venue", q("Which city is the sangeet venue in?", "Mississauga")),
        ("move", q("How many bedrooms does our new place have?", "two-bedroom")),
        ("pottery_glaze", q("Who uses my mug every morning?", "Marcus")),
        ("wedding_done", q("When did I tell you about Arjun's wedding?", WHEN, "when")),
        ("cat", q("What's special about our cat's appearance?", "one-eyed tuxedo")),
        ("swim", q("What time is swim practice?", "6am")),
        ("niece", q("When is the baby due?", "spring")),
        ("promotion", q("When was I made group product manager?", WHEN, "when")),
        (
            "lactose",
            q(
                "Which milk did you say froths best for my chai?",
                "Barista oat milk",
                "assistant",
            ),
        ),
        (
            "trip",
            q(
                "Which food markets did you recommend in Mexico City?",
                "Coyoacán Medellín",
                "assistant",
            ),
        ),
    ),
)
