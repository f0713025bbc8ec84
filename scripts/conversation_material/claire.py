"""Claire: a nurse from Lyon working in Montreal; night shifts, a climbing habit, a new flat."""

from __future__ import annotations

from dataclasses import replace

from scripts.conversation_material.types import WHEN, Fact, Persona, q

PERSONA = Persona(
    id="claire",
    name="Claire",
    start="2026-01-12",
    hour=14,
    gaps_days=(10, 14, 14, 28, 34, 65, 25, 35, 30, 30, 35),
    facts=(
        Fact(
            "job",
            0,
            "Coming off three night shifts in a row. I'm an ICU nurse at the Royal Victoria in Montreal. How do I flip my sleep back without wrecking the weekend?",
            "Sleep only 3–4 hours after the last shift, get daylight in the afternoon, and go to bed at a normal time that night.",
            (
                q("What's my job?", "ICU nurse"),
                q("Which hospital do I work at first?", "Royal Victoria", "previous"),
            ),
        ),
        Fact(
            "origin",
            0,
            "I moved here from Lyon four years ago and I still miss proper bread. Where do I even start with baking a baguette?",
            "Start with a poolish the night before, a very hot oven with steam, and accept the first ten will be ugly.",
            (
                q("Which city am I originally from?", "Lyon"),
                q("How long ago did I move to Montreal?", "four years"),
            ),
        ),
        Fact(
            "flat_old",
            0,
            "My apartment in Rosemont is freezing, the windows are from 1950. Cheap ways to insulate?",
            "Window insulation film, draught-excluder strips, thick curtains and a rug help a lot for little money.",
            (
                q(
                    "Which neighbourhood did I live in at the start?",
                    "Rosemont",
                    "previous",
                ),
            ),
        ),
        Fact(
            "climb",
            1,
            "I boulder at Allez Up twice a week, it's the only thing that clears my head after work. How do I stop my forearms pumping out?",
            "Climb more easy volume, shake out on good holds, breathe, and straighten your arms so your skeleton takes the load.",
            (
                q("Which climbing gym do I go to?", "Allez Up"),
                q("What sport do I do to unwind after work?", "boulder"),
            ),
        ),
        Fact(
            "roommate",
            1,
            "My roommate Léa is moving out in March, so I need to find someone or move. Pros and cons of living alone?",
            "Alone: quiet and control, but higher rent and sometimes lonelier. A new roommate: cheaper, but a gamble.",
            (q("What was my roommate's name?", "Léa"),),
        ),
        Fact(
            "brother",
            1,
            "Mon frère Julien vient d'avoir des jumeaux, Hugo et Chloé! Je suis tata deux fois d'un coup.",
            "Félicitations, tata Claire ! Des jumeaux, quelle aventure.",
            (
                q("What are the twins called?", "Hugo Chloé"),
                q("Who is the father of the twins?", "Julien"),
            ),
        ),
        Fact(
            "french_exam",
            2,
            "I need to renew my nursing licence with the OIIQ by the end of March, paperwork nightmare. Can you make me a checklist?",
            "Continuing-education hours logged, the online declaration, the fee, and proof of practice hours — do the hours log first.",
            (q("Which body do I renew my nursing licence with?", "OIIQ"),),
        ),
        Fact(
            "coffee",
            2,
            "I take my coffee with oat milk, dairy makes me feel awful. Is oat milk actually healthy or just marketing?",
            "It's fine as a milk alternative, just pick an unsweetened, fortified one; nutritionally it's closer to a drink than to cow's milk.",
            (q("What milk do I take in coffee?", "oat milk"),),
        ),
        Fact(
            "car",
            3,
            "Winter tyres are mandatory here until March 15 and my old Corolla needs new ones. Studded or not?",
            "Non-studded winter tyres are plenty for city driving in Montreal and quieter.",
            (q("What car do I drive?", "Corolla"),),
        ),
        Fact(
            "trip_plan",
            3,
            "Planning a week in Iceland in June with my friend Noor. We want to do the Ring Road. Too ambitious for 7 days?",
            "Doable but rushed: many people do the south coast and Snæfellsnes instead, and keep the full ring for 10+ days.",
            (
                q("Who am I going to Iceland with?", "Noor"),
                q("When did I first mention the Iceland trip?", WHEN, "when"),
            ),
        ),
        Fact(
            "newflat",
            4,
            "Signed a lease on a one-bedroom in the Plateau, on rue Rachel! Living alone for the first time in my life.",
            "Congrats! The Plateau is a great place to live alone, everything's walkable.",
            (
                q(
                    "Where do I live now?",
                    "Plateau",
                    "updated",
                    superseded=("flat_old",),
                ),
                q("Which street is my new apartment on?", "rue Rachel"),
                q("When did I sign the new lease?", WHEN, "when"),
            ),
        ),
        Fact(
            "injury",
            4,
            "Fell off a boulder problem and sprained my wrist. Six weeks no climbing. I'm going to go insane.",
            "Oof. Use the time for legs and core, and ask the physio when you can start grip rehab.",
            (
                q("What did I injure climbing?", "wrist"),
                q("How long can't I climb after the fall?", "Six weeks"),
            ),
        ),
        Fact(
            "cat",
            5,
            "I'm fostering a cat for the SPCA, a senior grey one called Pompon. He's 14 and sleeps 20 hours a day.",
            "Senior fosters are the best. Pompon sounds like he's found his calling.",
            (
                q("What is the name of the cat I foster?", "Pompon"),
                q("How old is the foster cat?", "14"),
                q("Which organisation do I foster for?", "SPCA"),
            ),
        ),
        Fact(
            "iceland",
            6,
            "Back from Iceland! We did the south coast and Snæfellsnes in the end, Noor cried at Jökulsárlón. The hot dogs at Bæjarins Beztu are overrated though.",
            "The glacier lagoon does that to people. Controversial hot-dog take, noted.",
            (
                q(
                    "Which route did we drive in Iceland in the end?",
                    "south coast Snæfellsnes",
                    "updated",
                    superseded=("trip_plan",),
                ),
                q("Where did my friend cry on the trip?", "Jökulsárlón"),
                q("What did I think was overrated in Iceland?", "hot dogs"),
            ),
        ),
        Fact(
            "adopt",
            6,
            "I'm adopting Pompon officially. Couldn't give him back, he's mine now.",
            "Foster fail, the best kind of failure!",
            (q("Did I keep the foster cat?", "adopting", "updated", ("cat",)),),
        ),
        Fact(
            "degree",
            7,
            "I got into the nurse practitioner program at McGill, part-time, starts in September. Terrified and thrilled.",
            "That's a huge achievement — congratulations!",
            (
                q("Which program did I get into?", "nurse practitioner"),
                q("Which university is my program at?", "McGill"),
                q("When did I get into the program?", WHEN, "when"),
            ),
        ),
        Fact(
            "shift",
            7,
            "Also switching to day shifts only from August, my body can't do nights anymore.",
            "That will help a lot with the studying too.",
            (q("Which shifts do I work now?", "day shifts", "updated"),),
        ),
        Fact(
            "julien_visit",
            8,
            "Julien, sa femme et les jumeaux arrivent de Lyon le 12 octobre. Ils restent dix jours chez moi, dans un un-pièce. Au secours.",
            "Dix jours dans un un-pièce avec des jumeaux... Il faudra un plan ! Un matelas gonflable et des sorties au parc.",
            (
                q("When do my brother and his family arrive?", "12 octobre"),
                q("How long is my brother staying?", "dix jours"),
            ),
        ),
        Fact(
            "climb_back",
            8,
            "Wrist is healed, back at the gym. Sent my first V5 yesterday!",
            "Amazing comeback! A V5 right after an injury is impressive.",
            (
                q("What grade did I send after my wrist healed?", "V5"),
                q("When did I send my first V5?", "@-1", "when"),
            ),
        ),
        Fact(
            "hospital2",
            9,
            "Work news: I'm moving to the Jewish General for the day-shift position, so goodbye Royal Vic.",
            "A fresh start with a better schedule — good move.",
            (
                q(
                    "Which hospital do I work at now?",
                    "Jewish General",
                    "updated",
                    superseded=("job",),
                ),
            ),
        ),
        Fact(
            "noor",
            9,
            "Noor is getting married in Marrakech next spring and I'm a bridesmaid. What do I need to know about a Moroccan wedding?",
            "Several days of events, henna night, multiple outfit changes for the bride, and lots of dancing — pack comfortable shoes.",
            (
                q("Where is Noor's wedding?", "Marrakech"),
                q("What's my role at Noor's wedding?", "bridesmaid"),
                q(
                    "Where is my Iceland travel companion getting married?",
                    "Marrakech",
                    "multi_hop",
                    ("trip_plan",),
                ),
            ),
        ),
        Fact(
            "bread",
            10,
            "My sourdough starter is called Gaston and he's finally strong enough for baguettes. Lyon would be proud.",
            "Gaston sounds like a proper French starter. Send me a crumb shot sometime.",
            (q("What is my sourdough starter called?", "Gaston"),),
        ),
        Fact(
            "exam",
            11,
            "First semester exam on pharmacology next week, I'm drowning in drug classes. Quick memory trick for beta blockers?",
            "Most end in '-olol' (metoprolol, propranolol); think 'b-LOL-kers'.",
            (q("What subject is my first exam in?", "pharmacology"),),
        ),
        Fact(
            "car_sold",
            11,
            "Sold the Corolla, with the metro and a Bixi membership I don't need it on the Plateau.",
            "Makes sense there. One less thing to shovel out in winter.",
            (
                q(
                    "How do I get around since selling the car?",
                    "metro Bixi",
                    "updated",
                    superseded=("car",),
                ),
            ),
        ),
    ),
    chatter=(
        (
            "explain the difference between sepsis and septic shock for a new grad",
            "Sepsis is organ dysfunction from infection; septic shock is sepsis with low blood pressure needing vasopressors and high lactate despite fluids.",
        ),
        (
            "écris-moi un petit mot pour remercier une collègue qui m'a remplacée",
            "Merci mille fois de m'avoir remplacée samedi, tu m'as sauvé la vie. Je te dois un café (ou trois) !",
        ),
        (
            "what's a good 10 minute meal after a 12 hour shift",
            "Eggs and greens: fry spinach and garlic, crack in two eggs, cover, and eat with toast.",
        ),
        (
            "comment dit-on 'burnout' au Québec?",
            "On dit souvent 'épuisement professionnel', mais 'burnout' s'utilise aussi.",
        ),
        (
            "give me a calming breathing technique",
            "Box breathing: in for 4, hold 4, out 4, hold 4, for two minutes.",
        ),
        (
            "is it 'à la maison' or 'chez moi' for at home?",
            "Both work: 'chez moi' is more personal (my place), 'à la maison' more general.",
        ),
        (
            "¿qué significa 'madrugada'?",
            "Las primeras horas de la mañana, entre la medianoche y el amanecer.",
        ),
    ),
)

# More questions about the facts above (when, details, paraphrases without the fact's words).
PERSONA = replace(
    PERSONA,
    extra=(
        ("job", q("How many night shifts had I just done in a row?", "three")),
        ("origin", q("What food from home do I miss most?", "bread")),
        ("flat_old", q("How old are the windows in my old apartment?", "1950")),
        ("climb", q("How often do I go bouldering?", "twice a week")),
        ("roommate", q("When is my roommate moving out?", "March")),
        ("brother", q("When did my brother's twins arrive?", WHEN, "when")),
        ("french_exam", q("By when must I renew my licence?", "end of March")),
        ("car", q("Until when are winter tyres mandatory?", "March 15")),
        ("trip_plan", q("Which road did we want to drive in Iceland?", "Ring Road")),
        ("injury", q("When did I sprain my wrist?", WHEN, "when")),
        ("cat", q("When did I start fostering Pompon?", WHEN, "when")),
        ("degree", q("When does my program start?", "September")),
        ("shift", q("Why am I giving up nights?", "body")),
        ("hospital2", q("When did I tell you I was changing hospitals?", WHEN, "when")),
        ("noor", q("When is Noor's wedding?", "next spring")),
        ("bread", q("What am I finally baking with my starter?", "baguettes")),
        ("exam", q("Which drug class did I want a memory trick for?", "beta blockers")),
        ("car_sold", q("When did I sell my car?", WHEN, "when")),
        (
            "flat_old",
            q(
                "What cheap insulation did you suggest for my old windows?",
                "insulation film",
                "assistant",
            ),
        ),
        (
            "trip_plan",
            q(
                "What route did you suggest for a week in Iceland instead of the whole ring?",
                "south coast Snæfellsnes",
                "assistant",
            ),
        ),
    ),
)
