"""Portuguese: the words memtap reads in Portuguese (data only; the rule shapes are
`engine/extraction/shapes.py`). Facts are stored in Portuguese, third person."""

from __future__ import annotations

from memtap.engine.languages.pack import (
    DateWords,
    LanguagePack,
    NamedRelatives,
    periods,
    words,
)
from memtap.engine.languages.pack import Example as E
from memtap.engine.languages.pack import Phrase as P

_ROLES = (
    r"(?:engenheir[oa]|desenvolvedor(?:a)?|programador(?:a)?|professor(?:a)?|m[eé]dic[oa]|"
    r"enfermeir[oa]|designer|advogad[oa]|estudante|jornalista|contador(?:a)?|arquitet[oa]|cientista|"
    r"analista|gerente|diretor(?:a)?|consultor(?:a)?|pesquisador(?:a)?|cozinheir[oa]|chef|"
    r"escritor(?:a)?|tradutor(?:a)?|piloto|fot[oó]graf[oa]|psic[oó]log[oa]|veterin[aá]ri[oa]|"
    r"dentista|farmac[eê]utic[oa]|eletricista|garçom|garçonete|vendedor(?:a)?|aposentad[oa]|"
    r"freelancer|aut[oô]nom[oa]|fundador(?:a)?|empreendedor(?:a)?)"
)
_REL = (
    r"(?:esposa|esposo|marido|mulher|namorada|namorado|filho|filha|filhos|filhas|m[aã]e|pai|pais|"
    r"irm[aã]o|irm[aã]|irm[aã]os|irm[aã]s|av[oóô]|av[oó]s|tia|tio|primo|prima|cachorro|cachorra|"
    r"cachorros|c[aã]o|gato|gata|gatos|papagaio|coelho|cachorrinho|gatinho|pet)"
)
_REL_T = (
    "esposa esposo marido mulher namorada namorado filho filha filhos filhas mãe mae pai pais "
    "irmão irmao irmã irma irmãos irmaos irmãs irmas avó avô avo avos avós tia tio primo prima "
    "cachorro cachorra cachorros cão cao gato gata gatos papagaio coelho cachorrinho gatinho pet"
)
_DIET = r"(?:vegetarian[oa]|vegan[oa]|pescetarian[oa]|flexitarian[oa])"
_LANG = r"(?:portugu[eê]s|ingl[eê]s|espanhol|franc[eê]s|alem[aã]o|italiano)"
_LANG_T = (
    "português portugues inglês ingles espanhol francês frances alemão alemao italiano"
)
_POSS = {
    "minha": "Sua {obj}",
    "meu": "Seu {obj}",
    "meus": "Seus {obj}",
    "minhas": "Suas {obj}",
    "": "Seu {obj}",
}

DATES = DateWords(
    days={
        "hoje": 0,
        "hoje de manhã": 0,
        "hoje à noite": 0,
        "ontem": -1,
        "anteontem": -2,
        "antes de ontem": -2,
        "amanhã": 1,
        "depois de amanhã": 2,
    },
    periods=periods(
        {
            -1: {
                "week": ("a semana passada", "semana passada"),
                "weekend": ("o fim de semana passado", "fim de semana passado"),
                "month": ("o mês passado", "mês passado"),
                "year": ("o ano passado", "ano passado"),
            },
            0: {
                "week": ("esta semana", "nesta semana"),
                "weekend": ("este fim de semana", "neste fim de semana"),
                "month": ("este mês", "neste mês"),
                "year": ("este ano", "neste ano"),
            },
            1: {
                "week": ("a próxima semana", "próxima semana", "semana que vem"),
                "weekend": ("o próximo fim de semana", "próximo fim de semana"),
                "month": ("o próximo mês", "próximo mês", "mês que vem"),
                "year": ("o próximo ano", "próximo ano", "ano que vem"),
            },
        }
    ),
    numbers={
        "um": 1,
        "uma": 1,
        "dois": 2,
        "duas": 2,
        "três": 3,
        "tres": 3,
        "quatro": 4,
        "cinco": 5,
        "seis": 6,
        "sete": 7,
        "oito": 8,
        "nove": 9,
        "dez": 10,
    },
    units={
        "dia": "day",
        "dias": "day",
        "semana": "week",
        "semanas": "week",
        "mês": "month",
        "mes": "month",
        "meses": "month",
        "ano": "year",
        "anos": "year",
    },
    ago=(r"h[áa]\s+{n}\s+{unit}", r"{n}\s+{unit}\s+atr[áa]s"),
    ahead=(r"(?:daqui\s+a|dentro\s+de|em)\s+{n}\s+{unit}",),
    weekdays={
        "segunda-feira": 0,
        "segunda": 0,
        "terça-feira": 1,
        "terça": 1,
        "quarta-feira": 2,
        "quarta": 2,
        "quinta-feira": 3,
        "quinta": 3,
        "sexta-feira": 4,
        "sexta": 4,
        "sábado": 5,
        "domingo": 6,
    },
    weekday_frames=(
        (r"(?:n[ao]\s+)?{wd}\s+passad[ao]", -1),
        (r"(?:n[ao]\s+)?próxim[ao]\s+{wd}", 1),
        (r"(?:n[ao]\s+)?{wd}\s+que\s+vem", 1),
        (r"n[ao]\s+{wd}", 0),
    ),
    future=r"\b(?:vou|vais|vai|vamos|vão)\b|\b\w+(?:rei|rás|rá|remos|rão)\b",
)

NAMED = NamedRelatives(
    possessive=r"(?:meu|minha|nosso|nossa)",
    called=r"se\s+chama|chamad[oa]",
    words={
        "esposa": "wife",
        "marido": "husband",
        "mulher": "wife",
        "namorado": "boyfriend",
        "namorada": "girlfriend",
        "filho": "son",
        "filha": "daughter",
        "mãe": "mother",
        "pai": "father",
        "irmão": "brother",
        "irmã": "sister",
        "avó": "grandmother",
        "avô": "grandfather",
        "cachorro": "dog",
        "cachorra": "dog",
        "cão": "dog",
        "gato": "cat",
        "gata": "cat",
    },
    examples=(
        E(
            "Minha esposa Carolina é professora.",
            "Their wife (esposa) is called Carolina",
        ),
    ),
)


# The words that name a fact's family (the net: engine/extraction/self_statement.py).
FAMILY_WORDS = {
    "habit": (
        r"sempre|geralmente|normalmente|cada|tod[oa]s?\s+(?:os|as)?\s*\w+|fins\s+de\s+semana"
    ),
    "constraint": (
        r"al[ée]rgic\w*|alergia|gl[úu]ten|or[çc]amento|port[áa]til|doen[çc]a"
    ),
    "family": (
        r"esposa|marido|mulher|namorad[oa]|filh[oa]s?|cachorr\w*|gat[oa]s?|m[ãa]e|pai|"
        r"irm[ãa]o?s?|casad[oa]"
    ),
    "work": (
        r"trabalho|emprego|empresa|engenheir\w*|desenvolvedor\w*|professor\w*|m[ée]dic[oa]|"
        r"estudante|aposentad[oa]"
    ),
    "location": (r"moro|mud[ée]|mudei|estou\s+em"),
    "identity": (r"chamo|anos|nasci"),
    "instruction": (r"respostas"),
    "goal": (r"quero|objetivo|aprendendo|estudando|preparando|economizando"),
    "stack": (r"usamos"),
    "decision": (r"decidimos|escolhemos|escolhi|desisti"),
    "preference": (r"curto|adoro|amo|odeio|gosto|favorit[oa]"),
    "event": (r"acabei\s+de|casei|formad[oa]"),
}


PACK = LanguagePack(
    code="pt",
    family_words=FAMILY_WORDS,
    passing=words("em no na"),
    empty_words=words("muito demais nada"),
    clause_ends=r"porque|mas\s+(?=\w)",
    name_ends=r"e|mas|de\s+\d",
    scope_words=r"para",
    universal_scopes=r"tudo|todos?\s+\w+|todas?\s+\w+|qualquer\s+\w+",
    i_am=r"sou|somos",
    mail_headers=r"De|Para|Assunto|Enviada",
    reply_lines=r"Em .{5,120} escreveu:",
    comma_stops=r"eu|obrigad[oa]",
    busy=r"estou|t[ôo]",
    deictic_objects=r"isso|isto",
    chapters=r"cap[íi]tulo",
    book_parts=r"pr[óo]logo|ep[íi]logo",
    tale_openings=r"era\s+uma\s+vez",
    stop=(
        r"\s+(?:e\s+(?:eu|meu|minha|trabalho|moro|sou|tenho)|mas|porque|embora|onde|desde|h[aá]\s+\w+\s+anos|"
        r"no\s+ano\s+passado|na\s+semana\s+passada|no\s+m[eê]s\s+passado|ontem|agora|hoje)\b|[,;:(]|\s-\s"
    ),
    role_stop=r"\s+(?:na|no|em|para|pra|de\s+[A-Z]|e|mas|desde|com|h[aá])\b|[,;:(]",
    roles=_ROLES,
    relatives=_REL,
    relative_triggers=_REL_T,
    diets=_DIET,
    languages=_LANG,
    language_triggers=_LANG_T,
    foreign=r"\b(?:y|el|los|las|muy|también|pero|gracias)\b|ñ|ción\b|ciones\b",
    goal_verb_endings=("ar", "er", "ir", "or"),
    not_goals=words("saber perguntar entender ver confirmar fazer"),
    brief_words=("breve", "conci"),
    indefinite_preps=frozenset(["numa", "num"]),
    subjects=r"eu|meu|minha|nós|nosso|nossa",
    first_person_verbs=r"sou|estou|tenho|moro|trabalho|prefiro|nasci",
    first_person_endings=("o",),
    negators=frozenset(["não", "nao", "nunca", "jamais", "nem"]),
    negations=r"não|nao|jamais",
    aversions=r"desisti|odeio",
    common=words(
        "eu meu minha o os as um uma e de do da em no na com pra para é sou estou tô que se muito não"
    ),
    fillers=words("e mas bom oi sim"),
    trailing=("agora", "já", "também"),
    joiners=frozenset(["e"]),
    now=r"agora|hoje\s+em\s+dia|atualmente|em\s+vez\s+disso",
    clause_joiners=words("e mas porque"),
    question_tail=(
        r"(?:voc[eê]|vc)\s+(?:pode|poderia|sabe|conhece|recomenda)|(?:me\s+)?(?:ajuda|indica|recomenda)|"
        r"(?:pode|podes|poderia|consegue)\s|o\s+que|como|onde|qual"
    ),
    hypothetical_leads=r"e|agora",
    hypothetical=r"se|suponha|suponhamos|imaginemos|e\s+se",
    hypothetical_words=words("se suponha suponhamos imaginemos e"),
    reported=r"disse|diz\s+que|dizem\s+que|segundo|falou\s+que",
    reported_words=words("disse diz dizem segundo falou"),
    request_prefix=r"pode|podes|você\s+pode",
    request=r"traduza|traduz|traduzir|resuma|reescreva|escreva|redija|corrija",
    request_words=words(
        "traduza traduz traduzir resuma reescreva escreva redija corrija"
    ),
    please=r"por\s+favor",
    bans=r"sem",
    order_negations=r"nunca|jamais",
    speaker=r"eu",
    material=r"isto|isso",
    creative=r"história|conto",
    request_standing=r"sempre",
    order_standing=r"sempre|a\s+partir\s+de\s+agora|daqui\s+pra\s+frente",
    answer_words=r"respostas?|sugir\w*",
    about_this=r"isso|isto|essa|esse",
    greetings=r"Prezad[oa]s?|Car[oa]s?|Olá|Ol[aá]",
    signoffs=r"Atenciosamente|Abraços|Um\s+abraço|Obrigad[oa]",
    payload_words=r"mensagem",
    labels=words("nota obs"),
    pronouns=words("isso isto ele ela eles elas"),
    second_person=r"tu|te|você|vocês|teu|tua",
    end_words=words("mas porque"),
    third_person={
        "meu": "seu",
        "minha": "sua",
        "meus": "seus",
        "minhas": "suas",
        "nosso": "seu",
        "nossa": "sua",
    },
    self_subjects=r"eu|a\s+gente|n[óo]s",
    self_verbs=(
        r"sou|estou|t[ôo]|tenho|moro|trabalho|prefiro|odeio|curto|adoro|jogo|vou|fa[çc]o|estudo|"
        r"temos|moramos|trabalhamos|n[ãa]o\s+(?:curto|gosto)|gosto|amo"
    ),
    possessives=r"meu|minha",
    i_after_and=r"eu",
    frequency=r"tod[oa]s?\s+(?:os\s+|as\s+)?\w+|cada\s+\w+|aos\s+\w+s",
    not_about_user=(
        r"tu|te|você|voce|vc|isso|isto|essa|esse|disso|disto|nisso|nisto|daquilo|diz|disse|"
        r"erro|código|codigo|arquivo|pergunta|obrigad[oa]|desculpa|ajuda|hoje|agora|ideia|"
        r"reuni[ãa]o|prova|acho"
    ),
    consequences=r"porque|ent[ãa]o",
    named_relatives=NAMED,
    dates=DATES,
    first_person=(("é ", ("Sou ",)), ("tem ", ("Tenho ",))),
    phrases=(
        # identity
        P(
            "name",
            r"(?:(?:eu\s+)?me\s+chamo|meu\s+nome\s+[eé])\s+(?P<obj>.+)",
            "Chama-se {obj}",
            "chamo nome",
            examples=(E("Meu nome é Ana.", "Chama-se Ana"),),
        ),
        P(
            "address_as",
            r"(?:me\s+chame|pode\s+me\s+chamar)\s+de\s+(?P<obj>.+)",
            "Quer ser chamado de {obj}",
            "chame chamar",
            examples=(E("Pode me chamar de Zé.", "Quer ser chamado de Zé"),),
        ),
        P(
            "origin",
            r"sou\s+(?:de|do|da)\s+(?P<obj>.+)",
            "É de {obj}",
            "sou",
            examples=(E("Sou de Recife, mas moro em São Paulo.", "É de Recife"),),
        ),
        P(
            "age",
            r"tenho\s+(?P<obj>\d{1,3})\s+anos",
            "Tem {obj} anos",
            "anos",
            examples=(E("Tenho 40 anos e sou contador.", "Tem 40 anos"),),
        ),
        # location
        P(
            "home_left",
            r"(?:n[aã]o\s+moro\s+mais|j[aá]\s+n[aã]o\s+moro|n[aã]o\s+vivo\s+mais)\s+(?P<prep>em|no|na|nos|nas)\s+(?P<obj>.+)",
            "Não mora mais {prep} {obj}",
            "moro vivo",
            examples=(E("Não moro mais no Porto.", "Não mora mais no Porto"),),
        ),
        P(
            "home",
            r"(?:eu\s+)?(?:moro|vivo|resido|estou\s+morando)\s+(?:sozinh[oa]\s+|com\s+(?:minha|meu|meus|minhas)\s+[\wà-ú]+\s+)?(?P<prep>em|no|na|nos|nas)\s+(?P<obj>.+)",
            "Mora {prep} {obj}",
            "moro vivo resido morando",
            examples=(E("Moro em Lisboa.", "Mora em Lisboa"),),
        ),
        P(
            "home",
            r"(?:me\s+mudei|mudei-me|acabei\s+de\s+me\s+mudar)\s+(?P<prep>para|pra|pro)\s+(?P<obj>.+)",
            "Mudou-se {prep} {obj}",
            "mudei mudar",
            examples=(E("Me mudei para o Porto.", "Mudou-se para o Porto"),),
        ),
        # work
        P(
            "employer_left",
            r"(?:n[aã]o\s+trabalho\s+mais|j[aá]\s+n[aã]o\s+trabalho)\s+(?P<prep>na|no|em|para|pra)\s+(?P<obj>.+)",
            "Não trabalha mais {prep} {obj}",
            "trabalho",
            examples=(
                E("Não trabalho mais na Petrobras.", "Não trabalha mais na Petrobras"),
            ),
        ),
        P(
            "employer_or_indefinite",
            r"(?:trabalho|estou\s+trabalhando)\s+(?P<prep>na|no|em|para|pra|numa|num)\s+(?P<obj>.+)",
            "Trabalha {prep} {obj}",
            "trabalho trabalhando",
            examples=(E("Trabalho na Feedzai.", "Trabalha na Feedzai"),),
        ),
        P(
            "field_common",
            r"trabalho\s+(?P<prep>com|em|na\s+área\s+de)\s+(?P<obj>[a-zà-ú].+)",
            "Trabalha {prep} {obj}",
            "trabalho",
            examples=(
                E("Trabalho com marketing digital.", "Trabalha com marketing digital"),
            ),
        ),
        P(
            "role",
            r"trabalho\s+como\s+(?P<obj>.+)",
            "Trabalha como {obj}",
            "trabalho",
            examples=(
                E("Trabalho como designer gráfico.", "Trabalha como designer gráfico"),
            ),
        ),
        P(
            "role",
            r"sou\s+(?:um\s+|uma\s+)?(?P<obj>"
            + _ROLES
            + r"(?:\s+(?:de|do|da)\s+[\w-]+)?)\b",
            "É {obj}",
            "sou",
            examples=(E("Sou enfermeiro.", "É enfermeiro"),),
        ),
        P(
            "employer",
            r"sou\s+(?:um\s+|uma\s+)?"
            + _ROLES
            + r".{0,30}?\s+(?P<prep>na|no|em)\s+(?P<obj>[A-Z].+)",
            "Trabalha {prep} {obj}",
            "sou",
            examples=(
                E("Sou engenheiro de software no Nubank.", "Trabalha no Nubank"),
            ),
        ),
        P(
            "employer",
            r"comecei\s+(?:a\s+trabalhar\s+)?(?P<prep>na|no|em)\s+(?P<obj>.+)",
            "Trabalha {prep} {obj}",
            "comecei",
            examples=(E("Comecei a trabalhar na Embraer.", "Trabalha na Embraer"),),
        ),
        # family and pets
        P(
            "relative",
            r"(?P<verb>minha|meu|meus|minhas)\s+(?P<obj>"
            + _REL
            + r"\b(?:\s+[A-Z]\w+)?\s+(?:[eé]|s[aã]o|est[aá]|est[aã]o|trabalha|trabalham|mora|moram|tem|t[eê]m|se\s+chama|chama-se|estuda|vai|v[aã]o|nasceu|faz|joga|gosta)\b.+)",
            _POSS,
            _REL_T,
            examples=(E("Meu marido é médico.", "Seu marido é médico"),),
        ),
        P(
            "relative",
            r"tenho\s+(?P<obj>(?:um|uma|dois|duas|tr[eê]s|quatro|\d+)\s+(?:\w+\s+)?"
            + _REL
            + r"\b.*)",
            "Tem {obj}",
            _REL_T,
            examples=(E("Tenho dois filhos pequenos.", "Tem dois filhos pequenos"),),
        ),
        P(
            "relationship",
            r"(?:sou|estou)\s+(?P<obj>casad[oa]|solteir[oa]|divorciad[oa]|vi[uú]v[oa]|noiv[oa])",
            "É {obj}",
            "casado casada solteiro solteira divorciado divorciada viúvo viúva viuvo viuva noivo noiva",
            examples=(E("Sou casado e tenho uma filha.", "É casado"),),
        ),
        # constraints
        P(
            "allergy",
            r"sou\s+(?P<adj>al[eé]rgic[oa])\s+(?P<prep>a|ao|à|aos|às)\s+(?P<obj>.+)",
            "É {adj} {prep} {obj}",
            "alérgico alérgica alergico alergica",
            examples=(E("Sou alérgica a amendoim.", "É alérgica a amendoim"),),
        ),
        P(
            "allergy",
            r"tenho\s+alergia\s+(?P<prep>a|ao|à|aos|às|de)\s+(?P<obj>.+)",
            "Tem alergia {prep} {obj}",
            "alergia",
            examples=(E("Tenho alergia a camarão.", "Tem alergia a camarão"),),
        ),
        P(
            "diet_left",
            r"(?:n[aã]o\s+sou\s+mais|j[aá]\s+n[aã]o\s+sou)\s+(?P<obj>" + _DIET + r")",
            "Não é mais {obj}",
            "vegetariano vegetariana vegano vegana pescetariano pescetariana",
            examples=(E("Não sou mais vegetariano.", "Não é mais vegetariano"),),
        ),
        P(
            "diet",
            r"sou\s+(?P<obj>"
            + _DIET
            + r"|cel[ií]ac[oa]|diab[eé]tic[oa]|intolerante\s+(?:à|a)\s+lactose|intolerante\s+ao\s+gl[uú]ten|dalt[oô]nic[oa]|ceg[oa]|surd[oa])",
            "É {obj}",
            "vegetariano vegetariana vegano vegana pescetariano pescetariana celíaco celíaca celiaco celiaca diabético diabética diabetico diabetica intolerante daltônico daltonico cego cega surdo surda",
            examples=(E("Sou vegano.", "É vegano"),),
        ),
        P(
            "food_refused",
            r"(?:eu\s+)?(?:n[aã]o|nunca)\s+(?P<verb>como|posso\s+comer|bebo|tomo)\s+(?P<obj>.+)",
            {
                "como": "Não come {obj}",
                "posso comer": "Não pode comer {obj}",
                "bebo": "Não bebe {obj}",
                "tomo": "Não toma {obj}",
                "": "Não come {obj}",
            },
            "como comer bebo tomo",
            examples=(E("Não bebo álcool.", "Não bebe álcool"),),
        ),
        P(
            "budget",
            r"(?:meu\s+or[çc]amento\s+[eé]|tenho\s+um\s+or[çc]amento)\s+(?:de\s+)?(?P<obj>.+)",
            "Seu orçamento é de {obj}",
            "orçamento orcamento",
            examples=(
                E("Meu orçamento é de 3 mil reais.", "Seu orçamento é de 3 mil reais"),
            ),
        ),
        P(
            "platform",
            r"(?:estou|estamos)\s+(?:pres[oa]s?|limitad[oa]s?|travad[oa]s?)\s+(?:no|na|ao|à|em|com)\s+(?P<obj>.+)",
            "Está preso a {obj}",
            "preso presa presos limitado limitada limitados travado travada travados",
            examples=(E("Estou preso no Windows.", "Está preso a Windows"),),
        ),
        P(
            "platform_refused",
            r"n[aã]o\s+(?:posso|podemos)\s+(?P<verb>atualizar|usar|instalar)\s+(?:o\s+|a\s+)?(?P<obj>.+)",
            {
                "atualizar": "Não pode atualizar {obj}",
                "instalar": "Não pode instalar {obj}",
                "": "Não pode usar {obj}",
            },
            "atualizar usar instalar",
            examples=(E("Não posso atualizar o Java.", "Não pode atualizar Java"),),
        ),
        # standing instructions
        P(
            "reply_language",
            r"(?:por\s+favor,?\s+)?(?:sempre\s+)?(?:me\s+)?(?:responda|responde|fale|escreva|respondam|fale\s+comigo|fala\s+comigo|converse\s+comigo)(?:-me)?\s+(?:sempre\s+)?em\s+(?P<obj>"
            + _LANG
            + r")",
            "Quer respostas em {obj}",
            _LANG_T,
            examples=(
                E("Responda sempre em português.", "Quer respostas em português"),
            ),
        ),
        P(
            "reply_language_refused",
            r"n[aã]o\s+(?:me\s+)?(?:responda|fale|escreva)\s+(?:mais\s+)?em\s+(?P<obj>"
            + _LANG
            + r")",
            "Não quer respostas em {obj}",
            _LANG_T,
            examples=(
                E("Não me responda mais em inglês.", "Não quer respostas em inglês"),
            ),
        ),
        P(
            "ban",
            r"(?:por\s+favor,?\s+)?(?:nunca\s+|n[aã]o\s+)(?:use|usa|coloque|inclua|adicione|ponha)\s+(?P<obj>.+)",
            "Não quer {obj}",
            "use usa coloque inclua adicione ponha",
            examples=(E("Não usa redes sociais", "Não quer redes sociais"),),
        ),
        P(
            "ban",
            r"^(?:por\s+favor,?\s+)?sem\s+(?P<obj>emojis?|emoticons|jarg[aã]o|enrola[çc][aã]o|rodeios)",
            "Não quer {obj}",
            "sem",
            examples=(E("Sem emojis, por favor.", "Não quer emojis"),),
        ),
        P(
            "style",
            r"(?:por\s+favor,?\s+)?(?:sempre\s+)?seja\s+(?P<obj>breve|conciso|concisa|direto|direta|formal|claro|clara)",
            "Quer que o assistente seja {obj}",
            "seja",
            examples=(E("Seja breve.", "Quer que o assistente seja breve"),),
        ),
        P(
            "health",
            r"tenho\s+(?P<obj>doen[çc]a\s+cel[ií]aca|diabetes|asma|tdah|epilepsia|enxaqueca|intoler[aâ]ncia\s+.+)",
            "Tem {obj}",
            "doença doenca diabetes asma tdah epilepsia enxaqueca intolerância intolerancia",
            examples=(
                E(
                    "tenho intolerância a frutose, então cuidado com fruta nas receitas",
                    "Tem intolerância a frutose",
                ),
            ),
        ),
        P(
            "parent",
            r"sou\s+(?P<obj>(?:pai|m[aã]e|av[oóô])\s+de\s+.+)",
            "É {obj}",
            "pai mãe mae avó avô avo",
            examples=(E("Sou pai de duas meninas.", "É pai de duas meninas"),),
        ),
        P(
            "field",
            r"trabalho\s+(?P<obj>de\s+casa|remoto|remotamente|em\s+home\s+office|à\s+noite|meio\s+período|por\s+conta\s+própria)",
            "Trabalha {obj}",
            "trabalho",
            examples=(E("Trabalho de casa.", "Trabalha de casa"),),
        ),
        # stack and projects
        P(
            "stack_refused",
            r"(?:eu\s+)?n[aã]o\s+(?:uso|utilizo|usamos|utilizamos)\s+(?P<obj>.+)",
            "Não usa {obj}",
            "uso utilizo usamos utilizamos",
            examples=(E("Não uso redes sociais.", "Não usa redes sociais"),),
        ),
        P(
            "stack_choice",
            r"(?P<verb>usamos|utilizamos|trabalhamos\s+com)\s+(?P<obj>.+)",
            "Usam {obj}",
            "usamos utilizamos trabalhamos",
            examples=(E("Usamos React e Node.", "Usam React e Node"),),
        ),
        P(
            "stack_choice",
            r"(?:eu\s+)?(?:uso|utilizo|programo\s+em)\s+(?P<obj>.+)",
            "Usa {obj}",
            "uso utilizo programo",
            examples=(E("Eu uso o Linux em casa.", "Usa o Linux em casa"),),
        ),
        P(
            "stack",
            r"noss[oa]\s+(?P<what>backend|frontend|stack|servidor|projeto|produto|banco\s+de\s+dados|aplica[çc][aã]o|app|infraestrutura)\s+(?P<verb>[eé]|est[aá]\s+(?:feit[oa]|escrit[oa])|usa|roda)\s+(?P<obj>.+)",
            "Seu {what} {verb} {obj}",
            "backend frontend stack servidor projeto produto banco aplicação aplicacao app infraestrutura",
            examples=(E("Nosso backend é em Go.", "Seu backend é em Go"),),
        ),
        P(
            "project",
            r"estou\s+(?P<verb>construindo|desenvolvendo|criando|fazendo|trabalhando\s+em|trabalhando\s+num|trabalhando\s+numa)\s+(?P<obj>(?:um|uma|meu|minha|o|a)?\s*.+)",
            "Está {verb} {obj}",
            "construindo desenvolvendo criando fazendo trabalhando",
            examples=(
                E(
                    "Estou desenvolvendo um app de receitas.",
                    "Está desenvolvendo um app de receitas",
                ),
            ),
        ),
        # goals and plans
        P(
            "goal_verb",
            r"(?:eu\s+)?quero\s+(?P<obj>.+)",
            "Quer {obj}",
            "quero",
            examples=(E("Quero morar no Canadá.", "Quer morar no Canadá"),),
        ),
        P(
            "goal_verb",
            r"(?P<verb>pretendo|planejo|planeio|espero|vou)\s+(?P<obj>.+)",
            {"espero": "Espera {obj}", "vou": "Vai {obj}", "": "Pretende {obj}"},
            "pretendo planejo planeio espero vou",
            examples=(E("Pretendo aprender alemão.", "Pretende aprender alemão"),),
        ),
        P(
            "goal",
            r"meu\s+(?P<what>objetivo|sonho|plano)\s+[eé]\s+(?P<obj>.+)",
            "Seu {what} é {obj}",
            "objetivo sonho plano",
            examples=(
                E(
                    "Meu objetivo é correr uma maratona.",
                    "Seu objetivo é correr uma maratona",
                ),
            ),
        ),
        P(
            "goal",
            r"estou\s+(?P<verb>aprendendo|estudando|economizando\s+para|me\s+preparando\s+para)\s+(?P<obj>.+)",
            "Está {verb} {obj}",
            "aprendendo estudando economizando preparando",
            examples=(E("Estou aprendendo inglês.", "Está aprendendo inglês"),),
        ),
        # notable events
        P(
            "event",
            r"acabei\s+de\s+(?P<obj>(?!me\s+mudar).+)",
            "Acabou de {obj}",
            "acabei",
            examples=(E("Acabei de voltar do Japão.", "Acabou de voltar do Japão"),),
        ),
        P(
            "event",
            r"(?P<verb>me\s+casei|casei|me\s+formei|me\s+aposentei|voltei\s+(?:de|do|da)|comecei\s+(?:a\s+trabalhar\s+)?(?:na|no|em)|tive\s+um\s+beb[eê])\b\s*(?P<obj>.*)",
            {
                "me casei": "Casou-se {obj}",
                "casei": "Casou-se {obj}",
                "me formei": "Formou-se {obj}",
                "me aposentei": "Aposentou-se {obj}",
                "voltei de": "Voltou de {obj}",
                "voltei do": "Voltou do {obj}",
                "voltei da": "Voltou da {obj}",
                "tive um bebê": "Teve um bebê {obj}",
                "tive um bebe": "Teve um bebê {obj}",
                "": "Começou em {obj}",
            },
            "casei formei aposentei voltei comecei tive",
            examples=(
                E(
                    "Me formei em engenharia civil mês passado!! Como monto um currículo decente?",
                    "Formou-se em engenharia civil mês passado",
                ),
            ),
        ),
        # preferences
        P(
            "dislike",
            r"(?:eu\s+)?n[aã]o\s+gosto\s+(?P<obj>d[eoa]s?\s+.+)",
            "Não gosta {obj}",
            "gosto",
            examples=(E("Não gosto de café.", "Não gosta de café"),),
        ),
        P(
            "dislike",
            r"(?:eu\s+)?(?P<verb>odeio|detesto)\s+(?P<obj>.+)",
            {"odeio": "Odeia {obj}", "": "Detesta {obj}"},
            "odeio detesto",
            examples=(E("Odeio coentro.", "Odeia coentro"),),
        ),
        P(
            "like",
            r"(?:eu\s+)?gosto\s+(?P<obj>d[eoa]s?\s+.+)",
            "Gosta {obj}",
            "gosto",
            examples=(E("Gosto de correr de manhã.", "Gosta de correr de manhã"),),
        ),
        P(
            "like",
            r"(?:eu\s+)?(?P<verb>adoro|amo)\s+(?P<obj>.+)",
            {"adoro": "Adora {obj}", "": "Ama {obj}"},
            "adoro amo",
            examples=(
                E(
                    "Adoro ficção científica, me indica uns livros menos conhecidos?",
                    "Adora ficção científica",
                ),
            ),
        ),
        P(
            "prefer",
            r"(?:eu\s+)?prefiro\s+(?P<obj>.+)",
            "Prefere {obj}",
            "prefiro",
            examples=(E("Prefiro respostas curtas.", "Prefere respostas curtas"),),
        ),
    ),
)
