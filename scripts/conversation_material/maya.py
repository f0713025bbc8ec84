"""Maya: a UX designer in Leeds who moves to Bristol; a cat, running, a sister in Glasgow."""

from __future__ import annotations

from dataclasses import replace

from scripts.conversation_material.types import WHEN, Fact, Persona, q

PERSONA = Persona(
    id="maya",
    name="Maya",
    start="2026-01-05",
    hour=19,
    gaps_days=(9, 14, 16, 21, 17, 20, 26, 24, 30, 38, 30),
    facts=(
        Fact(
            "job",
            0,
            "I need to prep slides for Thursday. I'm a UX designer at Pennant, a small fintech in Leeds, and the design review is always brutal. Any tips for presenting unfinished work?",
            "Frame it as a question, not a pitch: say what you want feedback on, show two options, and stop talking before the clock does.",
            (
                q(
                    "Which company do I work for at the start of the year?",
                    "Pennant",
                    "previous",
                ),
            ),
        ),
        Fact(
            "home",
            0,
            "Our flat in Headingley has no dishwasher and I'm losing my mind. Is there a sane way to hand-wash for two without it taking an hour?",
            "Fill a basin once, wash in order from glasses to pans, and let things air-dry on a rack instead of towelling.",
            (
                q(
                    "Which neighbourhood did I live in before moving?",
                    "Headingley",
                    "previous",
                ),
            ),
        ),
        Fact(
            "cat",
            0,
            "Biscuit knocked my coffee off the desk again. She's a ginger tabby with zero remorse. How do I cat-proof a desk?",
            "Give her a better spot: a box or a heated pad on the desk corner usually wins; sticky tape on the edges deters jumping.",
            (
                q("What is my cat called?", "Biscuit"),
                q("What colour is my first cat?", "ginger"),
            ),
        ),
        Fact(
            "partner",
            1,
            "Sam and I are arguing about whose turn it is to cook. We've been together six years, you'd think we'd have a system by now lol. Suggest a fair rota?",
            "Alternate weeks by who plans and who cooks, with one 'nobody cooks' night. Write it on the fridge so nobody has to remember.",
            (
                q("What's my partner's name?", "Sam"),
                q("How long have Sam and I been together?", "six years"),
            ),
        ),
        Fact(
            "allergy",
            1,
            "Can you check this satay recipe? I'm allergic to peanuts so I want a swap that still tastes right.",
            "Use sunflower seed butter or tahini with a little extra lime and soy; toasted sunflower seeds on top for crunch.",
            (q("What am I allergic to?", "peanuts"),),
        ),
        Fact(
            "race",
            1,
            "Signed up for the Leeds half marathon in May, which is either brave or stupid. I currently run about 15k a week. Can you sketch a 16 week plan?",
            "Build to about 35–40 km a week: three runs, one of them long, adding 10% a week with a lighter week every fourth.",
            (
                q("Which race did I sign up for?", "Leeds half marathon"),
                q("When did I sign up for the half marathon?", WHEN, "when"),
                q(
                    "How much was I running per week when I signed up for the race?",
                    "15k",
                ),
            ),
        ),
        Fact(
            "sister",
            2,
            "My sister Ada lives in Glasgow and wants me to come up for her 40th. Trains or fly from Leeds?",
            "The train is about 4 hours direct and city centre to city centre, so it's usually less hassle than flying.",
            (
                q("Where does my sister live?", "Glasgow"),
                q("Which birthday is my sister celebrating?", "40th"),
            ),
        ),
        Fact(
            "nephew",
            2,
            "Also need a gift for my nephew Felix, Ada's boy, he's turning 7 and obsessed with volcanoes.",
            "A make-your-own-volcano kit, a volcano pop-up book, or a rock and mineral collection set.",
            (
                q("What is my nephew obsessed with?", "volcanoes"),
                q("How old is my sister's son turning?", "7", "multi_hop", ("sister",)),
                q(
                    "What's the name of the boy in Glasgow I'm buying a present for?",
                    "Felix",
                    "multi_hop",
                    ("sister",),
                ),
            ),
        ),
        Fact(
            "veg",
            2,
            "Been vegetarian since New Year and honestly I don't miss meat except bacon. What's a good smoky substitute?",
            "Smoked tofu, smoked paprika on roasted chickpeas, or coconut 'bacon' flakes baked with soy and maple.",
            (q("What diet do I follow?", "vegetarian"),),
        ),
        Fact(
            "mum",
            3,
            "Mum's birthday is on the 14th of June and she's impossible to buy for. She's into gardening and crime novels.",
            "A signed crime novel, a good pair of secateurs, or a National Garden Scheme day out together.",
            (
                q("When is my mother's birthday?", "14th of June"),
                q("What are my mum's hobbies?", "gardening crime novels"),
            ),
        ),
        Fact(
            "lisbon",
            3,
            "We booked Lisbon for the first week of May! Staying in Alfama. Can you teach me five useful Portuguese phrases?",
            "Bom dia (good morning), obrigada (thank you, said by a woman), uma bica, por favor (an espresso, please), quanto custa? (how much?), fala inglês? (do you speak English?).",
            (
                q("Which city did we book a trip to?", "Lisbon"),
                q("Which area are we staying in on the trip?", "Alfama"),
                q("When did we book the trip to Lisbon?", WHEN, "when"),
            ),
        ),
        Fact(
            "phone_old",
            3,
            "My Pixel 7 screen cracked right across. Worth repairing or just replacing?",
            "If the rest works, a screen repair is usually well under the price of a new phone; check the battery health first.",
            (q("What phone did I have before?", "Pixel 7", "previous"),),
        ),
        Fact(
            "plant",
            4,
            "Gerald, my fiddle-leaf fig, is dropping leaves. Is he dying or just being dramatic?",
            "Usually dramatic: they drop leaves after being moved or from cold draughts. Keep him in bright indirect light and water only when the top few cm are dry.",
            (q("What kind of plant is Gerald?", "fiddle-leaf fig"),),
        ),
        Fact(
            "bookclub",
            4,
            "Book club picked Piranesi for this month. I'm hosting on the 20th. What snacks go with a book about an infinite house of statues?",
            "Something 'found': a grazing board, figs, salty crackers, and a jug of something cold with citrus.",
            (q("Which book did my book club pick when I hosted?", "Piranesi"),),
        ),
        Fact(
            "knee",
            5,
            "Bad news, physio says I've got runner's knee and I should skip the half. Gutted. What can I do instead to stay fit?",
            "Swimming and cycling keep your fitness without the impact; add glute and hip strength work, which is what helps runner's knee most.",
            (
                q("Why did I skip the half marathon?", "runner's knee"),
                q("When did I find out I had to skip the race?", WHEN, "when"),
            ),
        ),
        Fact(
            "newjob",
            5,
            "Other news: I accepted an offer from Calder Health! Senior designer, fully remote, starting in April.",
            "Huge congratulations! Remote senior role is a big step; want help with a first-90-days plan?",
            (
                q(
                    "Where do I work now?",
                    "Calder Health",
                    "updated",
                    superseded=("job",),
                ),
                q("What's my job title at my new company?", "senior designer"),
                q("When did I accept the new job offer?", WHEN, "when"),
            ),
        ),
        Fact(
            "move",
            6,
            "Because the new job is remote, Sam and I are moving to Bristol. We found a terraced house in Bedminster with an actual garden!",
            "Bedminster is lovely, and a garden is a big upgrade. Want a moving checklist?",
            (
                q(
                    "Which city do I live in now?",
                    "Bristol",
                    "updated",
                    superseded=("home",),
                ),
                q("Which part of Bristol is our house in?", "Bedminster"),
                q("When did I tell you we were moving to Bristol?", WHEN, "when"),
            ),
        ),
        Fact(
            "lisbon_trip",
            7,
            "Back from Lisbon. The pastéis de nata at Manteigaria ruined every other custard tart for me. Sam got sunburnt on day one at Cascais.",
            "Ha, classic first-day sunburn. Manteigaria's are famous for a reason.",
            (
                q("Where did I have the best custard tarts?", "Manteigaria"),
                q("What happened to Sam at Cascais?", "sunburnt"),
                q(
                    "Where did my partner get sunburnt?",
                    "Cascais",
                    "multi_hop",
                    ("partner",),
                ),
            ),
        ),
        Fact(
            "cat2",
            7,
            "We adopted a second cat yesterday, a shy black kitten called Miso. Biscuit is not impressed. How do I introduce them?",
            "Keep Miso in one room for a few days, swap their bedding so they learn each other's scent, then short supervised meetings with treats.",
            (
                q("What is the name of the kitten we adopted?", "Miso"),
                q("When did we adopt the second cat?", "@-1", "when"),
                q("What colour is the new kitten?", "black"),
            ),
        ),
        Fact(
            "bike",
            8,
            "Sold the old Fiesta, we don't need a car in Bristol. Bought an e-bike instead, a Tern. Any tips for hills?",
            "Use a lower assist on the flat to save battery, shift down before the hill not on it, and keep your cadence up.",
            (
                q("How do I get around now instead of the car?", "e-bike", "updated"),
                q("What car did I sell?", "Fiesta"),
            ),
        ),
        Fact(
            "swim",
            8,
            "I swim at the Bristol South pool three mornings a week now, knee's much happier.",
            "That's great news for the knee.",
            (
                q("Which pool do I go to?", "Bristol South"),
                q("How often do I swim?", "three mornings a week"),
            ),
        ),
        Fact(
            "phone_new",
            9,
            "Finally gave up on Android and switched to an iPhone 15. How do I move my WhatsApp chats?",
            "Use the 'Move to iOS' app during iPhone setup; it can carry WhatsApp chats across if you start the transfer from WhatsApp on the Android.",
            (
                q(
                    "What phone do I use now?",
                    "iPhone 15",
                    "updated",
                    superseded=("phone_old",),
                ),
            ),
        ),
        Fact(
            "glasgow",
            9,
            "Went up to Glasgow for Ada's party last weekend, Felix gave a speech about Krakatoa, it was adorable.",
            "That's adorable — clearly the volcano phase is going strong.",
            (
                q("What did Felix give a speech about?", "Krakatoa"),
                q(
                    "Who gave a speech at my sister's party?",
                    "Felix",
                    "multi_hop",
                    ("nephew",),
                ),
            ),
        ),
        Fact(
            "garden",
            10,
            "The garden is getting away from us. We planted tomatoes and courgettes and the courgettes are winning. What do I do with 4 kilos of courgette?",
            "Courgette fritters, a big batch of ratatouille to freeze, courgette and lemon cake, or grate and freeze it in portions.",
            (q("What did we plant in the garden?", "tomatoes courgettes"),),
        ),
        Fact(
            "language_pt",
            10,
            "Je continue le portugais sur Duolingo, 60 jours d'affilée! Mais c'est mon français qui s'améliore le plus, bizarrement.",
            "Bravo pour les 60 jours ! C'est fréquent : apprendre une langue proche réveille celles qu'on connaît déjà.",
            (q("How long is my Duolingo streak?", "60 jours"),),
        ),
        Fact(
            "mum_visit",
            11,
            "Mum is coming to stay for a week in October, first time she sees the new house. She'll want to see the gardens at Westonbirt.",
            "Westonbirt in October is perfect timing for the autumn colours.",
            (
                q("Which gardens does my mum want to visit?", "Westonbirt"),
                q(
                    "What does my mother enjoy that explains the Westonbirt visit?",
                    "gardening",
                    "multi_hop",
                    ("mum",),
                ),
            ),
        ),
        Fact(
            "race2",
            11,
            "Knee is fine now, so I've entered the Bristol 10k in November instead. Smaller goal, less pressure.",
            "A 10k is a great comeback target.",
            (
                q(
                    "Which race am I training for now?",
                    "Bristol 10k",
                    "updated",
                    superseded=("race",),
                ),
            ),
        ),
    ),
    chatter=(
        (
            "what's a good font pairing for a health app? something calm",
            "Inter for the UI with Source Serif for longer reading — calm and very legible.",
        ),
        (
            "can you explain the 8pt grid like I'm tired",
            "Every size and gap is a multiple of 8 (8, 16, 24...), so things line up without you thinking about it.",
        ),
        (
            "write alt text for a photo of a bar chart showing monthly savings going up",
            "Bar chart: monthly savings rise steadily from January to June, roughly doubling.",
        ),
        (
            "¿cómo se dice 'design review' en español?",
            "Se suele decir 'revisión de diseño'.",
        ),
        (
            "name ideas for a figma file with all our icons",
            "'Iconography', 'Glyph Garden', or simply 'Icons — source of truth'.",
        ),
        (
            "what's the contrast ratio needed for body text?",
            "WCAG AA asks for at least 4.5:1 for normal text, 3:1 for large text.",
        ),
        (
            "how do I politely tell a PM their idea tested badly",
            "Lead with what users said, not your opinion: 'In 4 of 5 sessions people got stuck here — here's a clip.'",
        ),
        (
            "Wie sagt man 'cheers' auf Deutsch?",
            "'Prost!' beim Anstoßen, und 'Danke' wenn man 'cheers' als Dankeschön meint.",
        ),
    ),
)

# More questions about the facts above (when, details, paraphrases without the fact's words).
PERSONA = replace(
    PERSONA,
    extra=(
        ("cat", q("Who keeps knocking things off my desk?", "Biscuit")),
        ("partner", q("Who am I arguing with about cooking?", "Sam")),
        ("allergy", q("What nut should you never suggest in my recipes?", "peanuts")),
        (
            "sister",
            q("When did I ask about getting to my sister's 40th?", WHEN, "when"),
        ),
        ("veg", q("Which meat do I still miss?", "bacon")),
        ("lisbon", q("When are we going to Portugal?", "first week of May")),
        ("plant", q("What's the name of my houseplant?", "Gerald")),
        ("plant", q("When did my plant start dropping leaves?", WHEN, "when")),
        ("bookclub", q("What date am I hosting book club?", "20th")),
        ("knee", q("Who diagnosed my knee problem?", "physio")),
        ("move", q("What does our new house have that the old flat didn't?", "garden")),
        ("lisbon_trip", q("When did I get back from Lisbon?", WHEN, "when")),
        ("bike", q("What brand is my e-bike?", "Tern")),
        ("bike", q("When did I sell my car?", WHEN, "when")),
        ("swim", q("Why is my knee happier these days?", "swim")),
        ("garden", q("Which vegetable did we grow too much of?", "courgettes")),
        ("mum_visit", q("When is my mum coming to stay?", "October")),
        ("race2", q("When is my next race?", "November")),
        (
            "allergy",
            q(
                "What did you suggest I use instead of peanut butter in the satay?",
                "sunflower seed butter tahini",
                "assistant",
            ),
        ),
        (
            "lisbon",
            q(
                "How did you say I should order an espresso in Portuguese?",
                "uma bica, por favor",
                "assistant",
            ),
        ),
    ),
)
