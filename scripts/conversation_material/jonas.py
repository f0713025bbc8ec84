"""Jonas: a wind-turbine engineer in Hamburg; a daughter, a sailing boat, a kitchen renovation."""

from __future__ import annotations

from dataclasses import replace

from scripts.conversation_material.types import WHEN, Fact, Persona, q

PERSONA = Persona(
    id="jonas",
    name="Jonas",
    start="2026-03-02",
    hour=6,
    gaps_days=(7, 13, 15, 20, 25, 30, 25, 30, 50, 35, 30),
    facts=(
        Fact(
            "job",
            0,
            "Morning. I work on offshore wind turbines for Nordwind in Hamburg, and I'm flying out to a platform on Tuesday. What do I pack for a week offshore?",
            "Layers, thermal base layer, your own earplugs, a book, chargers, and any medication; the PPE is usually provided.",
            (
                q("What do I work on?", "offshore wind turbines"),
                q("Which company do I work for?", "Nordwind"),
            ),
        ),
        Fact(
            "daughter",
            0,
            "My daughter Emma is 9 and wants a phone because 'everyone has one'. How do other parents handle this?",
            "Many start with a basic phone or a smartwatch for calls, with a family agreement on rules and screen time.",
            (
                q("What's my daughter's name?", "Emma"),
                q("How old is my daughter?", "9"),
            ),
        ),
        Fact(
            "wife",
            0,
            "Katrin, my wife, works as a pharmacist and does Saturdays, so Saturdays are dad-and-Emma days. Ideas for a rainy Saturday in Hamburg?",
            "Miniatur Wunderland, the Klimahaus... or the Planetarium in Stadtpark.",
            (q("What does my wife do?", "pharmacist"), q("Who is Katrin?", "wife")),
        ),
        Fact(
            "boat",
            1,
            "I own a small sailing boat, a 1979 Folkboat called Möwe, moored on the Alster. She needs new varnish. Best time of year?",
            "Late spring: dry days above 10 °C, low humidity, and before the sailing season gets busy.",
            (
                q("What's the name of my boat?", "Möwe"),
                q("Where is my boat moored?", "Alster"),
                q("What type of boat do I have?", "Folkboat"),
            ),
        ),
        Fact(
            "kitchen_plan",
            1,
            "We're redoing the kitchen in summer. Budget 15,000 euros. Is that realistic in Germany?",
            "For a mid-range kitchen with appliances it's realistic if you keep the layout and plumbing where they are.",
            (q("What's our kitchen renovation budget?", "15,000 euros"),),
        ),
        Fact(
            "vegan",
            2,
            "Emma decided she's vegan because of a documentary. I'm fine with it but I need recipes a 9 year old will actually eat.",
            "Pasta with lentil bolognese, bean burritos, peanut noodles, pancakes with oat milk — start with familiar shapes.",
            (
                q("What diet did my daughter decide to follow?", "vegan"),
                q("When did my daughter decide to change her diet?", WHEN, "when"),
            ),
        ),
        Fact(
            "running",
            2,
            "Ich laufe jeden Sonntag um die Alster, das sind ungefähr 7,4 Kilometer. Wie werde ich schneller ohne mehr Zeit zu investieren?",
            "Einmal pro Woche Intervalle, zum Beispiel 6 x 400 m zügig mit Trabpausen, und die anderen Läufe locker halten.",
            (q("How long is my Sunday run?", "7,4 Kilometer"),),
        ),
        Fact(
            "parents",
            3,
            "My parents live in Lübeck and my dad just turned 70. We're doing a family lunch at Schiffergesellschaft. What do I say in a short speech?",
            "One memory, one thing you learned from him, and a toast. Two minutes max.",
            (
                q("Where do my parents live?", "Lübeck"),
                q("How old did my dad turn?", "70"),
                q("Where was the lunch for my dad's birthday?", "Schiffergesellschaft"),
            ),
        ),
        Fact(
            "commute",
            3,
            "I drive a 2015 Passat to the office in Altona. Thinking of getting the Deutschlandticket instead.",
            "For a regular commute, the Deutschlandticket is very likely cheaper than fuel and parking.",
            (q("What car did I drive at first?", "Passat", "previous"),),
        ),
        Fact(
            "switch_ticket",
            4,
            "Did it: Passat is sold, we're a one-car-less family now, I take the S-Bahn with the Deutschlandticket.",
            "Good call! And you can use the train time to read.",
            (
                q(
                    "How do I commute now?",
                    "S-Bahn Deutschlandticket",
                    "updated",
                    superseded=("commute",),
                ),
                q("When did I tell you I sold the Passat?", WHEN, "when"),
            ),
        ),
        Fact(
            "kitchen_pick",
            4,
            "We chose the kitchen: white matte fronts, oak worktop, and an induction hob from Bosch. Katrin wanted gas, I won.",
            "Induction is faster and easier to clean, good choice.",
            (
                q("What kind of hob are we getting?", "induction"),
                q("What are the worktops made of?", "oak"),
            ),
        ),
        Fact(
            "emma_school",
            5,
            "Emma is switching to the Gymnasium Eppendorf after summer. She's nervous about the new class.",
            "Normal. A meet-up with one future classmate before school starts can help a lot.",
            (q("Which school is Emma going to?", "Gymnasium Eppendorf"),),
        ),
        Fact(
            "offshore_bad",
            5,
            "Stuck on the platform two extra days because of a storm. Missed Emma's school concert. She played the recorder solo.",
            "That's hard. Maybe ask Katrin for a video and watch it together when you're home.",
            (
                q("What did I miss because of the storm?", "school concert"),
                q("What instrument did Emma play solo?", "recorder"),
            ),
        ),
        Fact(
            "promotion",
            6,
            "I'm now lead engineer for the Baltic Eagle maintenance team. More office, less offshore.",
            "Congratulations! Less time offshore sounds good for the family too.",
            (
                q("What's my role now?", "lead engineer", "updated"),
                q("Which project's maintenance team do I lead?", "Baltic Eagle"),
                q("When did I become lead engineer?", WHEN, "when"),
            ),
        ),
        Fact(
            "kitchen_delay",
            6,
            "Kitchen fitter postponed to September. Of course. We're washing dishes in the bathtub.",
            "Classic renovation. A camping stove and paper plates will get you through.",
            (q("When was the kitchen fitting moved to?", "September", "updated"),),
        ),
        Fact(
            "regatta",
            7,
            "Möwe and I came third in the Alster club regatta yesterday! Old boat, old skipper, still fast.",
            "Third place in a club regatta is great! Congratulations.",
            (
                q("What place did I finish in the regatta?", "third"),
                q("When was the regatta?", "@-1", "when"),
                q(
                    "Which boat did I sail in the club regatta?",
                    "Möwe",
                    "multi_hop",
                    ("boat",),
                ),
            ),
        ),
        Fact(
            "dog",
            8,
            "We're getting a dog for Emma's birthday, a Labrador puppy from a breeder near Stade. Her name will be Frieda.",
            "Lovely! Puppy-proof the flat and plan for lots of short walks.",
            (
                q("What breed is our new dog?", "Labrador"),
                q("What is the puppy called?", "Frieda"),
                q("Where is the breeder?", "Stade"),
            ),
        ),
        Fact(
            "emma_veg",
            8,
            "Update on the vegan thing: Emma is now vegetarian, she missed cheese too much.",
            "Cheese is a powerful argument.",
            (
                q(
                    "What does Emma eat now?",
                    "vegetarian",
                    "updated",
                    superseded=("vegan",),
                ),
            ),
        ),
        Fact(
            "kitchen_done",
            9,
            "The kitchen is finally done! Final cost 17,200 euros, so over budget, but it's beautiful.",
            "Congrats on finishing! A 15% overrun is pretty normal.",
            (
                q(
                    "How much did the kitchen end up costing?",
                    "17,200 euros",
                    "updated",
                    superseded=("kitchen_plan",),
                ),
            ),
        ),
        Fact(
            "katrin_job",
            9,
            "Katrin opened her own pharmacy in Winterhude! The Alster-Apotheke. She's exhausted but happy.",
            "That's a big step — congratulations to her.",
            (
                q("What's the name of my wife's pharmacy?", "Alster-Apotheke"),
                q("In which district did Katrin open her pharmacy?", "Winterhude"),
            ),
        ),
        Fact(
            "halfmarathon",
            10,
            "Signed up for the Hamburg half marathon in April. The Sunday Alster loops are paying off.",
            "Great! Add one longer run each week building to 18 km.",
            (
                q("Which race did I sign up for?", "Hamburg half marathon"),
                q(
                    "What route do I run on Sundays?",
                    "Alster",
                    "multi_hop",
                    ("running",),
                ),
            ),
        ),
        Fact(
            "lang",
            10,
            "Emma a commencé le français au lycée et elle veut que je parle français à la maison. Mon français date de l'école, aïe.",
            "Commencez par des petites routines : le petit-déjeuner en français, par exemple.",
            (q("Which language did Emma start at school?", "français"),),
        ),
        Fact(
            "frieda",
            11,
            "Frieda ate my running shoes. Both of them. Asics, one week old.",
            "Puppy tax. Keep shoes in a closed cupboard for the next year.",
            (
                q("What did the puppy chew up?", "running shoes"),
                q("What brand were the shoes?", "Asics"),
            ),
        ),
    ),
    chatter=(
        (
            "Was ist ein gutes Geschenk für einen Kollegen, der in Rente geht?",
            "Ein gemeinsames Erinnerungsbuch mit Fotos und Sprüchen vom Team, oder ein Gutschein für ein Erlebnis.",
        ),
        (
            "explain torque vs power like I'm tired",
            "Torque is how hard it twists; power is how fast it can keep twisting. Power = torque × speed.",
        ),
        (
            "write a short toast for a colleague's 25 years at the company",
            "25 years, countless turbines, and always the calmest person in a storm. To you!",
        ),
        (
            "Kannst du mir einen Witz über Ingenieure erzählen?",
            "Ein Optimist sieht ein halb volles Glas, ein Pessimist ein halb leeres, ein Ingenieur ein doppelt so großes Glas wie nötig.",
        ),
        (
            "what's a good rule of thumb for wind chill",
            "Every 10 km/h of wind makes it feel roughly 2–3 degrees colder near freezing.",
        ),
        (
            "how do I explain what I do to a 9 year old's class",
            "Big windmills in the sea that turn wind into electricity — and you fix them, by helicopter. Kids love the helicopter part.",
        ),
        (
            "¿cómo se dice 'Feierabend' en español?",
            "No hay una palabra exacta; 'el fin de la jornada' o 'salir del trabajo' se acercan.",
        ),
    ),
)

# More questions about the facts above (when, details, paraphrases without the fact's words).
PERSONA = replace(
    PERSONA,
    extra=(
        ("job", q("When was I flying out to the platform?", "Tuesday")),
        ("daughter", q("What does my daughter want that everyone has?", "phone")),
        ("wife", q("Which day does Katrin work?", "Saturdays")),
        ("boat", q("How old is my boat?", "1979")),
        ("boat", q("What does my boat need?", "varnish")),
        ("kitchen_plan", q("When are we redoing the kitchen?", "summer")),
        ("running", q("On which day do I run?", "Sonntag")),
        (
            "parents",
            q("When was my dad's 70th birthday lunch mentioned?", WHEN, "when"),
        ),
        ("commute", q("Where is my office?", "Altona")),
        ("kitchen_pick", q("What did Katrin want instead of induction?", "gas")),
        ("kitchen_pick", q("What colour are the kitchen fronts?", "white matte")),
        ("emma_school", q("When does Emma change schools?", "after summer")),
        ("offshore_bad", q("How many extra days was I stuck offshore?", "two")),
        (
            "kitchen_delay",
            q("Where are we washing dishes during the renovation?", "bathtub"),
        ),
        ("dog", q("When did I say we were getting a puppy?", WHEN, "when")),
        ("kitchen_done", q("When was the kitchen finished?", WHEN, "when")),
        ("halfmarathon", q("When is my half marathon?", "April")),
        ("frieda", q("When did the puppy eat my shoes?", WHEN, "when")),
        (
            "boat",
            q(
                "When did you say is the best time to varnish the boat?",
                "Late spring",
                "assistant",
            ),
        ),
        (
            "wife",
            q(
                "What rainy-Saturday ideas in Hamburg did you give me?",
                "Miniatur Wunderland",
                "assistant",
            ),
        ),
    ),
)
