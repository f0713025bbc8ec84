"""Distinct everyday chat questions for the cost bench (`bench_memory.py --cost-questions
everyday`): 15-30 words each, none repeated in a run, so the query-embedding cache never hits
and the model reads messages as long as real ones (the templated "Tell me about a and b"
message is ~14 tokens and reuses one shape). Built from an opening (often a statement about
the speaker, as people write), a question and sometimes a closing clause."""

from __future__ import annotations

import random
from collections.abc import Iterator

OPENINGS = [
    "",
    "",
    "",
    "Quick question.",
    "Hey, hope you're well.",
    "I'm trying to get organised this week.",
    "My sister asked me this yesterday and I had no idea.",
    "I work from home most days now.",
    "We just moved to a smaller flat in the city.",
    "I've been vegetarian for about two years.",
    "My partner and I are planning a trip in the spring.",
    "I started running again last month.",
    "Our kids are seven and ten.",
    "I'm on a tight budget this month.",
    "I have a job interview on Thursday.",
    "I keep forgetting things lately.",
    "Since I switched teams at work,",
    "My doctor told me to cut down on sugar.",
    "I bought a used car last week.",
    "I'm learning Spanish in the evenings.",
    "We're hosting my parents for dinner on Saturday.",
    "I just adopted a rescue dog.",
    "I'm not much of a cook, honestly.",
    "The weather here has been awful.",
    "I usually cycle to the office.",
    "I'm writing a report for my manager.",
    "Our washing machine broke this morning.",
    "I'm allergic to peanuts, so keep that in mind.",
    "I have about an hour free tonight.",
    "Thanks for the help earlier.",
]

QUESTIONS = [
    "what's a good way to cook salmon so it doesn't dry out in the oven?",
    "how long should I let bread dough rise before baking it?",
    "can you suggest a few cheap dinners I can make in twenty minutes?",
    "what should I pack for a three day hiking trip in the mountains?",
    "how do I get a red wine stain out of a cotton shirt?",
    "is it better to rent or buy a house when interest rates are high?",
    "what are some good exercises for lower back pain?",
    "how can I fall asleep faster when my mind keeps racing at night?",
    "what's the difference between a Roth IRA and a traditional one?",
    "how do I politely decline a wedding invitation from a coworker?",
    "which houseplants are hard to kill and safe for cats?",
    "how often should I change the oil in a ten year old car?",
    "what's a reasonable weekly budget for groceries for a family of four?",
    "can you explain how compound interest works with a simple example?",
    "what are some fun things to do in Lisbon for a couple of days?",
    "how do I start a vegetable garden on a small balcony?",
    "what's the best way to learn to touch type as an adult?",
    "how should I prepare for a salary negotiation with my boss?",
    "what do I need to know before adopting a second cat?",
    "how can I make my morning routine less chaotic?",
    "what are good birthday gift ideas for a dad who has everything?",
    "how do I write a short and friendly complaint email to my landlord?",
    "why does my sourdough starter smell like nail polish remover?",
    "what's a good beginner strength training plan for three days a week?",
    "how do I keep my laptop battery healthy over the years?",
    "can you recommend a few novels similar to The Remains of the Day?",
    "how do I clean a cast iron pan without ruining the seasoning?",
    "what should I look for when buying a second hand bicycle?",
    "how can I help my kid with maths homework without doing it for them?",
    "what's a healthy breakfast that keeps me full until lunch?",
    "how do I set up a simple monthly budget in a spreadsheet?",
    "what are the signs that a tire needs replacing?",
    "how do I get rid of fruit flies in the kitchen?",
    "is it safe to leave rice out overnight and eat it the next day?",
    "how can I be more productive in the afternoons when I feel sleepy?",
    "what are some board games that work well with just two players?",
    "how do I make a good first impression on a new team?",
    "what should I ask at the end of a job interview?",
    "how do I fix a dripping kitchen tap myself?",
    "what's the easiest way to meal prep lunches for the whole week?",
    "how much water should I really be drinking every day?",
    "what's a good stretching routine after a long run?",
    "how do I remove a stripped screw from a piece of furniture?",
    "can you help me plan a relaxed weekend in the countryside?",
    "how do I explain a gap in my CV to an employer?",
    "what are some tips for taking better photos with my phone?",
    "how can I reduce my electricity bill during the winter?",
    "what's the best way to store fresh herbs so they last longer?",
    "how do I start journaling if I've never done it before?",
    "what are some good podcasts about history for long drives?",
    "how do I teach my dog to stop pulling on the lead?",
    "what should I do if my flight gets cancelled at the last minute?",
    "how do I make a vegetable curry that isn't too spicy for kids?",
    "what's a sensible way to pay off two credit cards at once?",
    "how can I stop procrastinating on a big project at work?",
    "what should I know before running my first half marathon?",
    "how do I choose a good mattress without trying dozens of them?",
    "what's the best way to remember names when meeting lots of people?",
    "how do I make cold brew coffee at home without special equipment?",
    "what are some easy ways to make a small bedroom feel bigger?",
    "how should I store winter clothes over the summer?",
    "what's a good way to say no to extra work without sounding lazy?",
    "how do I know if my houseplant is getting too much water?",
    "can you suggest a kid friendly day trip near a big city?",
    "what are the pros and cons of an electric car for short commutes?",
    "how do I keep track of all my passwords safely?",
    "what's a nice dessert I can make the day before a dinner party?",
    "how do I prepare for a long flight with a toddler?",
    "what are good questions to ask when viewing a flat to rent?",
    "how can I improve my posture when I sit at a desk all day?",
    "what's the right way to thaw frozen chicken safely?",
    "how do I give constructive feedback to a colleague who is often late?",
    "what are some cheap ways to stay warm at home in January?",
    "how do I get my toddler to eat more vegetables?",
    "what's the best order to visit Rome, Florence and Venice by train?",
    "how can I make my Spanish practice stick when I only have ten minutes a day?",
    "what should I put in a basic first aid kit for the car?",
    "how do I stop my glasses from fogging up when I wear a mask?",
    "what's a simple way to start investing a small amount each month?",
    "how do I make pancakes fluffy instead of flat?",
    "what are polite ways to remind a friend they owe me money?",
    "how do I clean the inside of a microwave quickly?",
    "what's a good routine for a dog that stays alone during work hours?",
    "how can I tell if eggs are still fresh?",
    "what should I consider before switching to a four day work week?",
    "how do I write a thank you note after an interview?",
    "what are good snacks to bring on a long bike ride?",
    "how do I unclog a bathroom sink without harsh chemicals?",
    "what's a fair way to split chores with a flatmate?",
    "how do I plan a surprise party without the person finding out?",
    "what's the best way to learn to swim as an adult?",
    "how do I stop my phone from distracting me while I study?",
    "what are some vegetarian sources of iron I can add to meals?",
    "how do I keep cut flowers fresh for more than a few days?",
    "what should I check before signing a gym membership contract?",
    "how do I make a weekly reading habit stick?",
    "what's an easy soup I can freeze in portions?",
    "how can I make a long drive with kids less stressful?",
    "what should I do with an old laptop before I give it away?",
    "how do I calm down before giving a presentation?",
]

CLOSINGS = [
    "",
    "",
    "",
    "",
    "Thanks!",
    "Keep it short please.",
    "A few bullet points would be great.",
    "I'd rather not spend much money on it.",
    "Ideally something I can do this weekend.",
    "What would you do in my place?",
    "Any tips are welcome.",
    "I've read mixed advice online.",
    "Please explain it simply.",
    "I'm a complete beginner at this.",
    "My friend swears by a different approach though.",
    "Is there anything I should avoid?",
]


def everyday_questions(seed: int = 11, low: int = 15, high: int = 30) -> Iterator[str]:
    """Distinct questions of `low`..`high` words, in a random order, never the same twice
    (a few thousand before the combinations run out; then it starts over with a number)."""
    rng = random.Random(seed)
    combos = [
        (o, q, c)
        for o in range(len(OPENINGS))
        for q in range(len(QUESTIONS))
        for c in range(len(CLOSINGS))
    ]
    rng.shuffle(combos)
    seen: set[str] = set()
    lap = 0
    while True:
        for o, q, c in combos:
            question = QUESTIONS[q]
            opening = OPENINGS[o]
            if opening and not opening.endswith(","):
                question = question[0].upper() + question[1:]
            text = " ".join(p for p in (opening, question, CLOSINGS[c]) if p)
            if lap:
                text = f"{text} ({lap})"
            if not low <= len(text.split()) <= high or text in seen:
                continue
            seen.add(text)
            yield text
        lap += 1
