"""Rafael: a Brazilian live-sound engineer from Porto Alegre who moves to Lisbon; a cat, a baby."""

from __future__ import annotations

from dataclasses import replace

from scripts.conversation_material.types import WHEN, Fact, Persona, q

PERSONA = Persona(
    id="rafael",
    name="Rafael",
    start="2025-06-02",
    hour=21,
    gaps_days=(9, 20, 21, 97, 22, 28, 35, 49, 111, 35),
    facts=(
        Fact(
            "job",
            0,
            "tô com um estagiário novo e preciso explicar gain staging pra ele. I'm a freelance live sound guy, mostly doing monitors for bands here in Porto Alegre. Can you explain it so a 19 year old gets it?",
            "Think of it as a relay race: every stage (preamp, channel, bus, master) hands the signal on at a healthy level, clear of the noise floor and never clipping. Set the preamp so peaks sit around -18 dBFS, then mix with the faders near zero.",
            (
                q("What do I do for work?", "live sound"),
                q(
                    "Which city was I working in before I moved abroad?",
                    "Porto Alegre",
                    "previous",
                ),
            ),
        ),
        Fact(
            "home",
            0,
            "Our apartment in Cidade Baixa is an oven, 38 degrees today and the AC died. tips to sleep without melting??",
            "Freeze a hot-water bottle full of water and keep it at your feet, sleep on cotton sheets, put a bowl of ice in front of a fan, and take a lukewarm (not cold) shower right before bed.",
            (
                q(
                    "Which neighbourhood did we live in back in Brazil?",
                    "Cidade Baixa",
                    "previous",
                ),
                q(
                    "What did you suggest freezing to help me sleep in the heat?",
                    "hot-water bottle",
                    "assistant",
                ),
            ),
        ),
        Fact(
            "wife",
            0,
            "Minha esposa Carolina faz aniversário semana que vem e eu não faço ideia do que dar. Ela é designer gráfica e ama cerâmica. Ideias?",
            "Um workshop de torno de cerâmica pra vocês dois, uma peça de uma ceramista local que ela admire, ou um livro bonito de tipografia.",
            (
                q("What's my wife called?", "Carolina"),
                q("Which handmade craft is my wife into?", "cerâmica"),
            ),
        ),
        Fact(
            "surf",
            1,
            "Weekends I drive up to Torres to learn to surf. 36 years old and falling off a foam board all day lol. How do I pop up without my knee hitting the board?",
            "Practise the pop-up on the floor at home: hands under your chest, push up and bring the back foot through first, then the front foot between your hands. Ten a day.",
            (
                q(
                    "Which beach town did I first learn to surf at?",
                    "Torres",
                    "previous",
                ),
            ),
        ),
        Fact(
            "lactose",
            1,
            "So the gastro confirmed it, I'm lactose intolerant. A tragedy for someone who grew up on pão de queijo. What can I eat for breakfast that isn't sad?",
            "Tapioca with scrambled eggs and tomato, cuscuz with olive oil instead of butter, fruit with granola and oat milk. And lactose-free requeijão exists!",
            (
                q("Is there anything my stomach can't handle?", "lactose"),
                q(
                    "Which breakfast made from cassava starch did you suggest?",
                    "tapioca",
                    "assistant",
                ),
            ),
        ),
        Fact(
            "cat",
            1,
            "O Feijão derrubou meu Sennheiser HD 600 da mesa DE NOVO. Gato laranja, 4 anos, zero arrependimento. How do I cat-proof a desk?",
            "Give him his own spot on the desk (a cardboard box or small bed), hang the headphones on a hook under the desk, and put double-sided tape on the edges he jumps onto.",
            (q("What's our pet's name?", "Feijão"),),
        ),
        Fact(
            "hearing",
            1,
            "annual hearing test came back with a small notch at 4 kHz in my left ear. occupational hazard I guess, 12 years of stage wedges. what should I be doing?",
            "Get custom-moulded musician's earplugs with flat attenuation filters (ER-15 or ER-25) so the mix still sounds natural, keep wedge levels as low as the band allows, and retest every year.",
            (
                q("Which ear showed hearing loss?", "left"),
                q("When did I get my audiogram results?", WHEN, "when"),
                q(
                    "What kind of filters did you recommend for my ear protection?",
                    "flat attenuation",
                    "assistant",
                ),
            ),
        ),
        Fact(
            "mom",
            2,
            "Minha mãe tem diabetes tipo 2 e não larga o doce de leite de jeito nenhum. Como eu falo com ela sem virar briga?",
            "Comece perguntando como ela se sente, não pelo doce. Proponha trocas, não proibições: uma colher de doce de leite depois do almoço, junto com uma caminhada de 15 minutos. E vá a uma consulta com ela.",
            (
                q("Qual é o problema de saúde da minha mãe?", "diabetes"),
                q("Which sweet does my mother refuse to give up?", "doce de leite"),
                q(
                    "What did you suggest my mom pair her treat with?",
                    "caminhada",
                    "assistant",
                ),
            ),
        ),
        Fact(
            "car",
            2,
            "The Uno (2009, held together with prayers and silver tape) needs a new clutch, mechanic wants R$ 1.400. fix it or sell it?",
            "If the rest of the car is sound, a clutch is a normal wear part and 1,400 is a fair price; sell only if rust or the engine are also going.",
            (q("What car did I drive in Brazil?", "Uno", "previous"),),
        ),
        Fact(
            "offer",
            2,
            "Wild news: a studio in Lisbon, Estúdio Sete Colinas, offered me a job as mix engineer. Carolina is more excited than me. help me do a pros and cons list?",
            "Pros: steady salary, studio work is easier on your ears, Europe. Cons: leaving family, lower pay in absolute terms, starting over socially. Want to weigh them?",
            (
                q("Which studio wanted to hire me?", "Sete Colinas"),
                q("When did I first mention the offer from Portugal?", WHEN, "when"),
            ),
        ),
        Fact(
            "passport",
            3,
            "Carol has an Italian passport through her bisavô, so in theory she can just move and I come along as family? how does that work in Portugal",
            "As the spouse of an EU citizen you can apply for a residence card as a family member once you are there. Bring your marriage certificate, apostilled and translated if needed.",
            (
                q(
                    "Which EU passport does my wife hold?",
                    "Italian",
                    "multi_hop",
                    ("wife",),
                ),
                q(
                    "Which document did you say needs an apostille for my residence card?",
                    "marriage certificate",
                    "assistant",
                ),
            ),
        ),
        Fact(
            "accepted",
            3,
            "Aceitei a proposta!!! Começo no estúdio dia 1º de junho. Agora é vender tudo e encaixotar a vida.",
            "Parabéns, Rafael! Que passo enorme. Quer ajuda com uma lista de mudança por semanas?",
            (
                q("When did I say yes to the Lisbon job?", WHEN, "when"),
                q("Which month do I start at the new workplace?", "junho"),
            ),
        ),
        Fact(
            "farewell",
            3,
            "Already planning the goodbye churrasco for end of may, like 30 people. how much picanha do I buy without going broke?",
            "Plan 400–500 g of meat per adult in total, so 12–15 kg for 30; picanha can be a third of that, the rest linguiça, chicken hearts and fraldinha.",
            (q("How many people was I expecting at my going-away barbecue?", "30"),),
        ),
        Fact(
            "moved",
            4,
            "ok we're in Lisbon!! landed last tuesday. Renting a T1 in Arroios, 4th floor, no elevator. Feijão survived the flight but hates us now. Where do I buy a decent fan around here?",
            "Worten, Leroy Merlin or the Chinese bazaars in your area all sell fans; get one with oscillation.",
            (
                q(
                    "Which neighbourhood do we live in now?",
                    "Arroios",
                    "updated",
                    superseded=("home",),
                ),
                q(
                    "What city am I based in now?",
                    "Lisbon",
                    "updated",
                    superseded=("job",),
                ),
                q(
                    "How did the orange cat cope with the flight to Europe?",
                    "survived",
                    "multi_hop",
                    ("cat",),
                ),
            ),
        ),
        Fact(
            "ptpt",
            4,
            "Tô apanhando do português de Portugal. Pedi suco e me olharam torto, pedi um cafezinho e veio uma bica. Me dá uma lista de palavras que mudam?",
            "Suco → sumo, ônibus → autocarro, trem → comboio, celular → telemóvel, banheiro → casa de banho, cafezinho → bica.",
            (
                q(
                    "What's the Lisbon word for a bus, according to your list?",
                    "autocarro",
                    "assistant",
                ),
            ),
        ),
        Fact(
            "studio_work",
            5,
            "first month at Sete Colinas: turns out it's 80% podcasts and audiobooks, hardly any music. My boss Inês is lovely tho. how do I get a clean voice without squashing it?",
            "High-pass around 80 Hz, a gentle 3:1 compressor taking 3–4 dB, a de-esser, then a limiter only for peaks. Most of the 'clean' comes from the room and mic distance.",
            (
                q(
                    "What kind of audio do I mostly work on these days?",
                    "podcasts audiobooks",
                    "updated",
                    superseded=("job",),
                ),
                q("Who's my manager at the studio?", "Inês"),
            ),
        ),
        Fact(
            "car_sold",
            5,
            "Vendi o Uno pro meu primo antes de vir. Aqui eu vou pra todo lado de bicicleta, Lisboa tem ladeira demais mas tudo bem.",
            "Lisboa de bicicleta é treino de perna garantido! Uma elétrica resolve as ladeiras, se ficar pesado.",
            (
                q(
                    "How do I get around these days?",
                    "bicicleta",
                    "updated",
                    superseded=("car",),
                ),
            ),
        ),
        Fact(
            "pregnant",
            6,
            "CAROLINA TÁ GRÁVIDA. 12 semanas, a gente esperou passar o primeiro trimestre pra contar. Previsão pro começo de fevereiro. I'm freaking out in a good way, what do we even need to buy?",
            "Parabéns! Start small: a car seat, a place to sleep, some bodies and swaddles, nappies. Everything else can wait until you know what you actually use.",
            (
                q(
                    "How far along was my wife when I shared the news?",
                    "12 semanas",
                    "multi_hop",
                    ("wife",),
                ),
                q("When did I tell you we're expecting?", WHEN, "when"),
                q("When is the baby due?", "fevereiro"),
            ),
        ),
        Fact(
            "surf_new",
            7,
            "Going to Carcavelos before work on tuesdays and thursdays now, train from Cais do Sodré at 6:40. water is FREEZING compared to home. 4/3 wetsuit or 3/2?",
            "For Carcavelos in autumn a 4/3 is the safer bet; the Atlantic there sits around 16–18 °C. Add booties from December.",
            (
                q(
                    "Where do I surf now?",
                    "Carcavelos",
                    "updated",
                    superseded=("surf",),
                ),
                q("On which days do I go out before work?", "tuesdays thursdays"),
                q("Which wetsuit thickness did you recommend?", "4/3", "assistant"),
            ),
        ),
        Fact(
            "earplugs_made",
            7,
            "Finally got the custom moulded plugs made here, 180 euros, the studio paid half. mixes sound the same, just quieter. magic",
            "Great investment — your ears are your job.",
            (
                q(
                    "How much did the ear protection you recommended after my hearing test cost?",
                    "180",
                    "multi_hop",
                    ("hearing",),
                ),
            ),
        ),
        Fact(
            "names",
            8,
            "Se for menina vai ser Helena, se for menino Thiago. A Carol queria Benício, nem pensar kkkk. Descobrimos o sexo semana que vem.",
            "Helena e Thiago são lindos. Benício tem seus fãs, mas entendo!",
            (
                q("Which name did we choose if it's a girl?", "Helena"),
                q("Qual nome escolhemos se for menino?", "Thiago"),
            ),
        ),
        Fact(
            "mom_visit",
            8,
            "My mom is flying over from Brazil to help when the baby comes, lands 20 de janeiro and stays 2 months. Our T1 is tiny, where does she even sleep??",
            "A good sofa bed in the living room, or a folding guest bed you store upright; a room divider curtain gives her some privacy.",
            (
                q(
                    "On what date was my mother landing to help with the baby?",
                    "20 de janeiro",
                ),
            ),
        ),
        Fact(
            "born",
            9,
            "ELA NASCEU!!! Helena, 3,2 kg, ontem às 4 da manhã no Hospital de Santa Maria. Carol is a warrior. I haven't slept in 40 hours",
            "Parabéns, papai! Welcome to the world, Helena. Sleep when she sleeps — seriously.",
            (
                q("When was my daughter born?", "@-1", "when"),
                q("At which hospital was our baby delivered?", "Santa Maria"),
            ),
        ),
        Fact(
            "schedule",
            10,
            "Negotiated a 4-day week at the studio, so sextas-feiras are papai days now. Inês didn't even blink. Any ideas for outings with a 5 week old in Lisbon?",
            "Short walks in Jardim da Estrela, the Gulbenkian garden, and the riverside at Belém on a calm day; go early before it gets busy.",
            (
                q(
                    "Which weekday do I spend with my daughter instead of working?",
                    "sextas-feiras",
                ),
            ),
        ),
        Fact(
            "cat_crib",
            10,
            "o gato agora dorme debaixo do berço toda noite, tipo segurança. e a gente achando que ele ia ter ciúmes",
            "Que fofo! Gatos costumam se apegar a rotinas novas assim. Só mantenha ele fora do berço em si.",
            (),
        ),
    ),
    chatter=(
        (
            "what's the difference between a cardioid and a supercardioid mic for a loud stage?",
            "A supercardioid rejects more from the sides but picks up a little from directly behind, so put wedges at about 120–150° instead of straight behind it.",
        ),
        (
            "Como eu digo 'feedback loop' em português técnico?",
            "Normalmente 'microfonia' quando é no som ao vivo; 'realimentação' é o termo mais formal.",
        ),
        (
            "explain phase cancellation like I'm five",
            "Two waves pushing and pulling at the same time: if one pushes while the other pulls, they cancel and the sound gets thin or disappears.",
        ),
        (
            "Me ajuda a escrever uma mensagem de parabéns pro meu afilhado que faz 10 anos",
            "Feliz aniversário, campeão! 10 anos de muita bagunça e alegria. Que venham muitos mais — te amo!",
        ),
        (
            "give me a checklist for a festival changeover in 15 minutes",
            "Label everything, pre-patch on a rolling riser, line check in stage order, one person on comms, and a printed input list taped to the desk.",
        ),
        (
            "qual a diferença entre 'a gente' e 'nós'?",
            "Significam a mesma coisa; 'a gente' é mais coloquial e leva o verbo na terceira pessoa: 'a gente vai', 'nós vamos'.",
        ),
        (
            "what's a good reference track for checking low end on headphones?",
            "Something with clean, well-known bass: 'Teardrop' by Massive Attack or 'Royals' by Lorde are popular choices.",
        ),
        (
            "Traduz pra inglês: 'não adianta chorar pelo leite derramado'",
            "'No use crying over spilt milk.'",
        ),
        (
            "how loud is too loud in a studio control room for long sessions?",
            "Around 79–83 dB SPL at the listening position is the usual guideline; take breaks every hour.",
        ),
    ),
)

# More questions about the facts above (paraphrases, details, multi-hop).
PERSONA = replace(
    PERSONA,
    extra=(
        (
            "cat",
            q(
                "What's the name of the pet that guards my daughter's crib?",
                "Feijão",
                "multi_hop",
                ("cat_crib",),
            ),
        ),
        ("born", q("How much did Helena weigh when she arrived?", "3,2 kg")),
        ("wife", q("What is Carolina's profession?", "designer gráfica")),
    ),
)
