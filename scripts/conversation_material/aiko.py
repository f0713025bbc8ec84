"""Aiko: an Osaka-born truck driver in Calgary raising a teenage son; a corgi, a job change, a move."""

from __future__ import annotations

from dataclasses import replace

from scripts.conversation_material.types import WHEN, Fact, Persona, q

PERSONA = Persona(
    id="aiko",
    name="Aiko",
    start="2025-08-04",
    hour=16,
    gaps_days=(12, 40, 20, 9, 45, 17, 38, 33, 50, 60, 40),
    facts=(
        Fact(
            "job",
            0,
            "I drive long haul, Calgary to Vancouver and back mostly, 4 days out 3 home. what snacks keep me awake on the road that aren't energy drinks or Timbits",
            "Roasted almonds, beef jerky, apple slices, cheese strings and sunflower seeds — cracking the shells keeps your hands and brain busy. Keep water in reach and stop caffeine after 2 pm.",
            (
                q(
                    "What kind of trucking did I do before my current job?",
                    "long haul",
                    "previous",
                ),
                q(
                    "Which snack did you say keeps my hands busy behind the wheel?",
                    "sunflower seeds",
                    "assistant",
                ),
            ),
        ),
        Fact(
            "truck",
            0,
            "my rig's a 2019 Freightliner Cascadia and the sleeper mattress is basically a yoga mat. any toppers that fit a 42 inch bunk?",
            "A 3-inch memory foam topper cut to 42x80 works; trucker-specific ones come with a cover that doesn't slide.",
            (
                q(
                    "What make of tractor did I drive on the long trips?",
                    "Freightliner",
                    "previous",
                ),
            ),
        ),
        Fact(
            "son",
            0,
            "my son Ren is 15 and just figured out he can be rude in two languages lol. how do I get a teenager to actually talk to me when I'm on the road",
            "Text rather than call, and ask specific low-stakes questions ('rate your lunch 1-10'). A standing 10-minute call at the same time each night beats random check-ins.",
            (
                q("What's my kid's name?", "Ren"),
                q("How old was my boy when we first chatted?", "15", "previous"),
                q(
                    "What did you suggest doing instead of phoning my teenager?",
                    "text",
                    "assistant",
                ),
            ),
        ),
        Fact(
            "home",
            0,
            "We rent a basement suite in Forest Lawn and the landlord upstairs stomps around at 6am. how do I soundproof a ceiling cheap when I'm renting?",
            "You can't do much structurally as a renter: acoustic foam panels with removable strips, a white-noise machine, and a polite note about the hour usually do more.",
            (q("Which part of Calgary did we rent in?", "Forest Lawn", "previous"),),
        ),
        Fact(
            "origin",
            1,
            "I'm from Osaka originally, came here at 19 for a homestay and just never went back. can you give me an okonomiyaki recipe with stuff from a regular Safeway",
            "Mix 1 cup flour, 2/3 cup water with a pinch of instant dashi, 2 eggs and half a green cabbage finely shredded; skip the nagaimo and add an extra egg instead. Top with bacon, Kewpie mayo, and ketchup mixed with Worcestershire and a little honey.",
            (
                q("Which Japanese city am I from?", "Osaka"),
                q(
                    "What did you say to use in place of the mountain yam in the savoury pancake?",
                    "extra egg",
                    "assistant",
                ),
            ),
        ),
        Fact(
            "dog",
            1,
            "Tofu my corgi rides with me in the cab. it was 31 today waiting at the scale in Golden and he was panting like crazy. how do I keep him cool when I can't idle?",
            "A cooling mat, a 12V fan clipped at his level, reflective shades on the windshield, and frozen water bottles wrapped in a towel. If he's still panting hard, get him out into the shade.",
            (
                q("What breed is my dog?", "corgi"),
                q("What's my dog called?", "Tofu"),
                q(
                    "What did you suggest my dog lie on to stay cool?",
                    "cooling mat",
                    "assistant",
                ),
            ),
        ),
        Fact(
            "knitting",
            1,
            "picked up knitting on my 10 hour breaks lol, truck stop granny era. doing a toque for Ren in Flames colours. how do I fix a dropped stitch??",
            "Use a crochet hook: catch the dropped loop, pull each horizontal bar through it one row at a time, then put it back on the left needle.",
            (
                q("Which hobby fills my mandatory rest breaks?", "knitting"),
                q("What am I making for my son?", "toque", "multi_hop", ("son",)),
            ),
        ),
        Fact(
            "custody",
            2,
            "When I'm on the road Ren stays at his dad's. Mark's in Airdrie, 40 min away, so school mornings are a nightmare for him. is there a carpool app for high schoolers?",
            "Some schools run ride-share boards; apps like GoKid or a simple group chat with other Airdrie parents usually work better than anything formal.",
            (q("Who looks after my son while I'm on a trip?", "Mark"),),
        ),
        Fact(
            "coq",
            2,
            "Coquihalla was closed 9 hours yesterday, jackknifed semi near the summit. slept in the lot at Hope. is there an app that shows BC closures live?",
            "DriveBC (drivebc.ca) has live closures, webcams and a map; follow @DriveBC for alerts. Its 'Major events' view is the quickest check.",
            (
                q("Which highway shut down and left me stuck?", "Coquihalla"),
                q("When did the road closure strand me?", "@-1", "when"),
                q(
                    "Which website did you point me to for road closures?",
                    "DriveBC",
                    "assistant",
                ),
            ),
        ),
        Fact(
            "apnea",
            2,
            "sleep study results: moderate sleep apnea. great. I need a CPAP that works in the truck, what do I need to run it off the truck's power?",
            "A pure sine wave inverter of 300 W or more, or a CPAP with a 12V DC power cord; switch off the heated humidifier to save power.",
            (
                q("What did the overnight test find?", "sleep apnea"),
                q(
                    "What did you say I need to power the breathing machine in my cab?",
                    "inverter",
                    "assistant",
                ),
            ),
        ),
        Fact(
            "welder",
            3,
            "Ren announced he wants to be a welder, not go to uni. honestly? good money and he's good with his hands. how do apprenticeships work in Alberta?",
            "He registers as an apprentice with an employer, works and does blocks of technical training at a school; welding is three periods of about 1,500 hours each.",
            (q("What trade does my son want to go into?", "welder"),),
        ),
        Fact(
            "mom_wrist",
            3,
            "mom (78, still in Osaka) slipped on her stairs and broke her wrist. my brother is in Tokyo and useless. flights YYC to Kansai in december are insane",
            "I'm sorry — a wrist fracture at 78 is a big deal. Flying into Haneda or Narita and taking the shinkansen is often cheaper than Kansai in December.",
            (
                q("What injury did my mother have?", "wrist"),
                q("Which city did my brother live in at first?", "Tokyo", "previous"),
            ),
        ),
        Fact(
            "flight",
            4,
            "Booked it. Air Canada to Haneda on Dec 18, then the shinkansen down. Tofu is staying with Mark, Ren too. 3 weeks unpaid, dispatch is not thrilled",
            "Good plan. Pack a copy of your mum's medical papers and a small gift for the neighbours who helped her.",
            (
                q("Which Tokyo airport am I flying into?", "Haneda"),
                q(
                    "Who's minding my corgi while I'm in Japan?",
                    "Mark",
                    "multi_hop",
                    ("dog",),
                ),
                q("When did I tell you I'd booked the trip to Japan?", WHEN, "when"),
            ),
        ),
        Fact(
            "mom_ok",
            5,
            "back from Japan. mom's wrist healed ok but she can't live alone anymore. Hiroshi is quitting his Tokyo job and moving back to Osaka to live with her, which I did NOT see coming",
            "That's a big step for your brother, and a relief for you. It's worth thanking him properly — caring is a lot.",
            (
                q(
                    "Where does my brother live now?",
                    "Osaka",
                    "updated",
                    superseded=("mom_wrist",),
                ),
                q("What's my brother's name?", "Hiroshi"),
            ),
        ),
        Fact(
            "apply",
            5,
            "I'm done with long haul, Ren needs me home more. applied for a city LTL job at Prairie Express. help me write a cover letter that doesn't sound like a robot?",
            "Lead with your record: years accident-free, your endorsements, and why you want local work now. Keep it to three short paragraphs.",
            (q("Which company did I apply to for a local job?", "Prairie Express"),),
        ),
        Fact(
            "newjob",
            6,
            "GOT IT. starting monday, city deliveries around Calgary, day shift, home every night. the pay cut hurts but whatever. what should I ask on my first day?",
            "Ask about the route and stop order, who to call when a dock won't receive, how they handle overtime and breaks, and the pre-trip checklist they expect.",
            (
                q(
                    "What kind of driving do I do now?",
                    "city deliveries",
                    "updated",
                    superseded=("job",),
                ),
                q("When did I land the local job?", WHEN, "when"),
            ),
        ),
        Fact(
            "daycab",
            6,
            "new job = day cab, an International LT, no sleeper. feels weird having nothing behind my seat lol",
            "Ha, no more yoga-mat mattress at least.",
            (
                q(
                    "Which brand of truck do I drive these days?",
                    "International",
                    "updated",
                    superseded=("truck",),
                ),
            ),
        ),
        Fact(
            "ren16",
            7,
            "Ren turned 16 on saturday and passed his learners first try!! he wants to learn stick so we're practising in the McMahon Stadium parking lot on sundays. tips for teaching clutch without screaming?",
            "Start on flat ground with the engine off so he can feel the clutch, then have him find the bite point and roll forward on the clutch alone, no gas. Ten-minute sessions, and stalling is part of it.",
            (
                q("How old is my son now?", "16", "updated", superseded=("son",)),
                q("Where am I teaching Ren to drive a manual?", "McMahon Stadium"),
                q(
                    "What did you tell me Ren should find on the clutch before touching the gas?",
                    "bite point",
                    "assistant",
                ),
            ),
        ),
        Fact(
            "curling",
            7,
            "now that I'm home evenings I joined a spring curling league at the Glencoe Club, wednesday nights. they put me at second. no idea what I'm doing",
            "Second mostly throws takeouts and sweeps hard — perfect for learning. Ask your skip to call the weight for you early on.",
            (q("What position do I play on my team?", "second"),),
        ),
        Fact(
            "darnell",
            8,
            "went on a date with Darnell from curling, he's a paramedic, divorced too, has a daughter Ren's age. is it weird to go on a second date this fast?",
            "Not weird at all — if you enjoyed the first one, a second date is how you find out more.",
            (q("What does the man I started seeing do for a living?", "paramedic"),),
        ),
        Fact(
            "ivdd",
            8,
            "Tofu yelped jumping off the couch and now his back legs are wobbly. vet says IVDD, 6 weeks strict crate rest. poor guy",
            "Poor Tofu. Strict rest really matters with IVDD — carry him for toilet breaks and keep the crate somewhere he can see you.",
            (
                q(
                    "What did the vet diagnose in my corgi?",
                    "IVDD",
                    "multi_hop",
                    ("dog",),
                ),
            ),
        ),
        Fact(
            "move",
            9,
            "big move: got a 3 bedroom townhouse in Airdrie, so Ren can be near his dad and I'm only 30 min from the yard. moving june 15. how do I not lose my mind packing with a teenager",
            "Give him his own room to pack with his own labels and a deadline, pack one room a day, and keep a 'first night' box with sheets, chargers and the kettle.",
            (
                q(
                    "Which town do I live in now?",
                    "Airdrie",
                    "updated",
                    superseded=("home",),
                ),
            ),
        ),
        Fact(
            "darnell_ren",
            9,
            "Darnell finally met Ren. they talked hockey for 2 hours and ignored me completely lol. so he's officially my boyfriend now I guess",
            "That's a lovely sign — a shared obsession is the fastest way in with a teenager.",
            (
                q(
                    "What did my son and the guy I'm seeing bond over?",
                    "hockey",
                    "multi_hop",
                    ("son",),
                ),
                q(
                    "What is Darnell to me now?",
                    "boyfriend",
                    "updated",
                    superseded=("darnell",),
                ),
            ),
        ),
        Fact(
            "sait",
            10,
            "Ren got into the fall pre-apprenticeship program at SAIT!! he's over the moon. I might have cried in the Tim's drive thru",
            "Congratulations to Ren! Crying in a drive-thru is an approved parental response.",
            (
                q(
                    "Where will my son train for the trade he's chosen?",
                    "SAIT",
                    "multi_hop",
                    ("welder",),
                ),
            ),
        ),
        Fact(
            "mom_visit",
            10,
            "Mom is coming to Canada in september, first time in 10 years, Hiroshi's flying with her. how do I make the townhouse safe for her?",
            "Grab bars by the toilet and shower, a shower chair, night lights along the hallway, no loose rugs, and a sturdy rail on both sides of the stairs.",
            (
                q(
                    "How long has it been since my mother last visited Canada?",
                    "10 years",
                ),
                q(
                    "What did you suggest so my mom can get to the bathroom safely in the dark?",
                    "night lights",
                    "assistant",
                ),
            ),
        ),
        Fact(
            "tofu_walk",
            11,
            "Tofu is walking again!! wobbly but he chased a magpie today. vet says no jumping off furniture ever again so I bought ramps",
            "Go Tofu! Ramps by the couch and bed are exactly right.",
            (
                q(
                    "Has my dog recovered from his spine problem?",
                    "walking again",
                    "multi_hop",
                    ("ivdd",),
                ),
            ),
        ),
        Fact(
            "mom_arrived",
            11,
            "Mom landed yesterday. first thing she did was reorganise my whole kitchen. 10/10 would recommend",
            "Ha! Mothers' kitchen audits are universal.",
            (q("When did my mother arrive in Canada?", "@-1", "when"),),
        ),
    ),
    chatter=(
        (
            "how many hours can I drive in a day under canadian hours of service rules?",
            "South of 60°N: up to 13 hours of driving and 14 on duty in a day, with at least 10 hours off, 8 of them in a row.",
        ),
        (
            "what does k2tog mean in a knitting pattern",
            "Knit two together: put the needle through two stitches at once and knit them as one, a decrease.",
        ),
        (
            "give me a quick pre-trip inspection checklist",
            "Lights and signals, tyres and wheel nuts, air lines and brakes, coupling and fifth wheel, mirrors and wipers, fluid leaks, load secured, paperwork.",
        ),
        (
            "「お疲れ様」って英語でなんて言う？",
            "There's no exact match: 'good work today', 'thanks for your hard work' or just 'you must be tired' depending on the moment.",
        ),
        (
            "why do my ears pop going over Rogers Pass",
            "The air pressure drops as you climb; swallowing or yawning opens the tubes that equalise it.",
        ),
        (
            "explain the offside rule in hockey quickly",
            "A player can't cross the other team's blue line before the puck does; both skates over the line first means offside.",
        ),
        (
            "what's the difference between a toque and a beanie, or is it just canadian",
            "Same hat; 'toque' is the Canadian word, 'beanie' the US and British one.",
        ),
        (
            "best way to get diesel smell off my hands?",
            "Rub with dish soap and a spoon of sugar or coffee grounds, then lemon juice; gloves at the pump prevent most of it.",
        ),
    ),
)

# More questions about the facts above (paraphrases, details).
PERSONA = replace(
    PERSONA,
    extra=(
        ("custody", q("What town does my ex live in?", "Airdrie")),
        ("knitting", q("Which hockey team's colours is the hat in?", "Flames")),
    ),
)
