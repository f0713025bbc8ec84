"""Portuguese rules: the families and their negations, stored in Portuguese, third person."""

from __future__ import annotations

import re
from typing import Any

from memtap.engine.extraction.rules import Accept, Rule, rule

_B = r"(?:^|(?<=[\s,;:(\"'¿¡]))"
_STOP = re.compile(
    r"\s+(?:e\s+(?:eu|meu|minha|trabalho|moro|sou|tenho)|mas|porque|embora|onde|desde|h[aá]\s+\w+\s+anos|"
    r"no\s+ano\s+passado|na\s+semana\s+passada|no\s+m[eê]s\s+passado|ontem|agora|hoje)\b|[,;:(]|\s-\s",
    re.IGNORECASE,
)
_ROLE_STOP = re.compile(
    r"\s+(?:na|no|em|para|pra|de\s+[A-Z]|e|mas|desde|com|h[aá])\b|[,;:(]", re.IGNORECASE
)
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

_NAME_STOP = re.compile(
    r"\s+(?:y|e|et|und|and|pero|mas|mais|aber|from|aus|de\s+\d)\b|[,;.!(]",
    re.IGNORECASE,
)


# Spanish and Portuguese share verbs ("usamos", "uso"): a clause that reads as Spanish is not ours.
_FOREIGN = re.compile(
    r"\b(?:y|el|los|las|muy|también|pero|gracias)\b|ñ|ción\b|ciones\b",
    re.IGNORECASE,
)


def _ours(accept: Accept | None) -> Accept:
    def check(match: re.Match[str], obj: str) -> bool:
        if _FOREIGN.search(match.string):
            return False
        return accept is None or accept(match, obj)

    return check


def _r(
    family: str,
    rx: str,
    template: object,
    triggers: str,
    polarity: str = "positive",
    **options: Any,
) -> Rule:
    options.setdefault("stop", _STOP)
    options["accept"] = _ours(options.get("accept"))
    return rule("pt", family, _B + rx, template, triggers, polarity, **options)  # type: ignore[arg-type]


def _proper(match: re.Match[str], obj: str) -> bool:
    return obj[:1].isupper() or obj[:1].isdigit()


def _infinitive(match: re.Match[str], obj: str) -> bool:
    first = obj.split(maxsplit=1)[0].lower() if obj else ""
    return first.endswith(("ar", "er", "ir", "or")) and first not in {
        "saber",
        "perguntar",
        "entender",
        "ver",
        "confirmar",
        "fazer",
    }


def _diet_slot(obj: str) -> str | None:
    return "constraint.diet" if re.match(_DIET, obj, re.IGNORECASE) else None


_POSS = {
    "minha": "Sua {obj}",
    "meu": "Seu {obj}",
    "meus": "Seus {obj}",
    "minhas": "Suas {obj}",
    "": "Seu {obj}",
}

RULES: tuple[Rule, ...] = (
    # identity
    _r(
        "identity",
        r"(?:(?:eu\s+)?me\s+chamo|meu\s+nome\s+[eé])\s+(?P<obj>.+)",
        "Chama-se {obj}",
        "chamo nome",
        slot="identity.name",
        accept=_proper,
        stop=_NAME_STOP,
    ),
    _r(
        "identity",
        r"(?:me\s+chame|pode\s+me\s+chamar)\s+de\s+(?P<obj>.+)",
        "Quer ser chamado de {obj}",
        "chame chamar",
        slot="identity.address_as",
    ),
    _r(
        "identity",
        r"sou\s+(?:de|do|da)\s+(?P<obj>.+)",
        "É de {obj}",
        "sou",
        slot="identity.origin",
        accept=_proper,
    ),
    _r(
        "identity",
        r"tenho\s+(?P<obj>\d{1,3})\s+anos",
        "Tem {obj} anos",
        "anos",
        slot="identity.age",
    ),
    # location
    _r(
        "location",
        r"(?:n[aã]o\s+moro\s+mais|j[aá]\s+n[aã]o\s+moro|n[aã]o\s+vivo\s+mais)\s+(?P<prep>em|no|na|nos|nas)\s+(?P<obj>.+)",
        "Não mora mais {prep} {obj}",
        "moro vivo",
        "negative",
        slot="location.home",
    ),
    _r(
        "location",
        r"(?:eu\s+)?(?:moro|vivo|resido|estou\s+morando)\s+(?:sozinh[oa]\s+|com\s+(?:minha|meu|meus|minhas)\s+[\wà-ú]+\s+)?(?P<prep>em|no|na|nos|nas)\s+(?P<obj>.+)",
        "Mora {prep} {obj}",
        "moro vivo resido morando",
        slot="location.home",
    ),
    _r(
        "location",
        r"(?:me\s+mudei|mudei-me|acabei\s+de\s+me\s+mudar)\s+(?P<prep>para|pra|pro)\s+(?P<obj>.+)",
        "Mudou-se {prep} {obj}",
        "mudei mudar",
        slot="location.home",
    ),
    # work
    _r(
        "work",
        r"(?:n[aã]o\s+trabalho\s+mais|j[aá]\s+n[aã]o\s+trabalho)\s+(?P<prep>na|no|em|para|pra)\s+(?P<obj>.+)",
        "Não trabalha mais {prep} {obj}",
        "trabalho",
        "negative",
        slot="work.employer",
        group="employer",
    ),
    _r(
        "work",
        r"(?:trabalho|estou\s+trabalhando)\s+(?P<prep>na|no|em|para|pra|numa|num)\s+(?P<obj>.+)",
        "Trabalha {prep} {obj}",
        "trabalho trabalhando",
        slot="work.employer",
        group="employer",
        accept=lambda m, o: _proper(m, o) or m.group("prep").lower() in ("numa", "num"),
    ),
    _r(
        "work",
        r"trabalho\s+(?P<prep>com|em|na\s+área\s+de)\s+(?P<obj>[a-zà-ú].+)",
        "Trabalha {prep} {obj}",
        "trabalho",
        group="field",
        accept=lambda m, o: o[:1].islower(),
    ),
    _r(
        "work",
        r"trabalho\s+como\s+(?P<obj>.+)",
        "Trabalha como {obj}",
        "trabalho",
        slot="work.role",
        group="role",
        stop=_ROLE_STOP,
    ),
    _r(
        "work",
        r"sou\s+(?:um\s+|uma\s+)?(?P<obj>"
        + _ROLES
        + r"(?:\s+(?:de|do|da)\s+[\w-]+)?)\b",
        "É {obj}",
        "sou",
        slot="work.role",
        group="role",
        stop=_ROLE_STOP,
    ),
    _r(
        "work",
        r"sou\s+(?:um\s+|uma\s+)?"
        + _ROLES
        + r".{0,30}?\s+(?P<prep>na|no|em)\s+(?P<obj>[A-Z].+)",
        "Trabalha {prep} {obj}",
        "sou",
        slot="work.employer",
        group="employer",
        accept=_proper,
    ),
    _r(
        "work",
        r"comecei\s+(?:a\s+trabalhar\s+)?(?P<prep>na|no|em)\s+(?P<obj>.+)",
        "Trabalha {prep} {obj}",
        "comecei",
        slot="work.employer",
        group="employer",
        accept=_proper,
    ),
    # family and pets
    _r(
        "family",
        r"(?P<verb>minha|meu|meus|minhas)\s+(?P<obj>"
        + _REL
        + r"\b(?:\s+[A-Z]\w+)?\s+(?:[eé]|s[aã]o|est[aá]|est[aã]o|trabalha|trabalham|mora|moram|tem|t[eê]m|se\s+chama|chama-se|estuda|vai|v[aã]o|nasceu|faz|joga|gosta)\b.+)",
        _POSS,
        _REL_T,
    ),
    _r(
        "family",
        r"tenho\s+(?P<obj>(?:um|uma|dois|duas|tr[eê]s|quatro|\d+)\s+(?:\w+\s+)?"
        + _REL
        + r"\b.*)",
        "Tem {obj}",
        _REL_T,
    ),
    _r(
        "family",
        r"(?:sou|estou)\s+(?P<obj>casad[oa]|solteir[oa]|divorciad[oa]|vi[uú]v[oa]|noiv[oa])",
        "É {obj}",
        "casado casada solteiro solteira divorciado divorciada viúvo viúva viuvo viuva noivo noiva",
        slot="family.relationship",
        group="relationship",
    ),
    # constraints
    _r(
        "constraint",
        r"sou\s+(?P<adj>al[eé]rgic[oa])\s+(?P<prep>a|ao|à|aos|às)\s+(?P<obj>.+)",
        "É {adj} {prep} {obj}",
        "alérgico alérgica alergico alergica",
        group="allergy",
    ),
    _r(
        "constraint",
        r"tenho\s+alergia\s+(?P<prep>a|ao|à|aos|às|de)\s+(?P<obj>.+)",
        "Tem alergia {prep} {obj}",
        "alergia",
        group="allergy",
    ),
    _r(
        "constraint",
        r"(?:n[aã]o\s+sou\s+mais|j[aá]\s+n[aã]o\s+sou)\s+(?P<obj>" + _DIET + r")",
        "Não é mais {obj}",
        "vegetariano vegetariana vegano vegana pescetariano pescetariana",
        "negative",
        slot="constraint.diet",
        group="diet",
    ),
    _r(
        "constraint",
        r"sou\s+(?P<obj>"
        + _DIET
        + r"|cel[ií]ac[oa]|diab[eé]tic[oa]|intolerante\s+(?:à|a)\s+lactose|intolerante\s+ao\s+gl[uú]ten|dalt[oô]nic[oa]|ceg[oa]|surd[oa])",
        "É {obj}",
        "vegetariano vegetariana vegano vegana pescetariano pescetariana celíaco celíaca celiaco celiaca diabético diabética diabetico diabetica intolerante daltônico daltonico cego cega surdo surda",
        slot=_diet_slot,
        group="diet",
    ),
    _r(
        "constraint",
        r"(?:eu\s+)?(?:n[aã]o|nunca)\s+(?P<verb>como|posso\s+comer|bebo|tomo)\s+(?P<obj>.+)",
        {
            "como": "Não come {obj}",
            "posso comer": "Não pode comer {obj}",
            "bebo": "Não bebe {obj}",
            "tomo": "Não toma {obj}",
            "": "Não come {obj}",
        },
        "como comer bebo tomo",
        "negative",
        group="food",
    ),
    _r(
        "constraint",
        r"(?:meu\s+or[çc]amento\s+[eé]|tenho\s+um\s+or[çc]amento)\s+(?:de\s+)?(?P<obj>.+)",
        "Seu orçamento é de {obj}",
        "orçamento orcamento",
        slot="constraint.budget",
    ),
    _r(
        "constraint",
        r"(?:estou|estamos)\s+(?:pres[oa]s?|limitad[oa]s?|travad[oa]s?)\s+(?:no|na|ao|à|em|com)\s+(?P<obj>.+)",
        "Está preso a {obj}",
        "preso presa presos limitado limitada limitados travado travada travados",
        group="platform",
    ),
    _r(
        "constraint",
        r"n[aã]o\s+(?:posso|podemos)\s+(?P<verb>atualizar|usar|instalar)\s+(?:o\s+|a\s+)?(?P<obj>.+)",
        {
            "atualizar": "Não pode atualizar {obj}",
            "instalar": "Não pode instalar {obj}",
            "": "Não pode usar {obj}",
        },
        "atualizar usar instalar",
        "negative",
        group="platform",
    ),
    # standing instructions
    _r(
        "instruction",
        r"(?:por\s+favor,?\s+)?(?:sempre\s+)?(?:me\s+)?(?:responda|responde|fale|escreva|respondam|fale\s+comigo|fala\s+comigo|converse\s+comigo)(?:-me)?\s+(?:sempre\s+)?em\s+(?P<obj>"
        + _LANG
        + r")",
        "Quer respostas em {obj}",
        _LANG_T,
        slot="instruction.language",
        group="instruction",
    ),
    _r(
        "instruction",
        r"n[aã]o\s+(?:me\s+)?(?:responda|fale|escreva)\s+(?:mais\s+)?em\s+(?P<obj>"
        + _LANG
        + r")",
        "Não quer respostas em {obj}",
        _LANG_T,
        "negative",
        slot="instruction.language",
        group="instruction",
    ),
    _r(
        "instruction",
        r"(?:por\s+favor,?\s+)?(?:nunca\s+|n[aã]o\s+)(?:use|usa|coloque|inclua|adicione|ponha)\s+(?P<obj>.+)",
        "Não quer {obj}",
        "use usa coloque inclua adicione ponha",
        "negative",
        group="instruction",
    ),
    _r(
        "instruction",
        r"^(?:por\s+favor,?\s+)?sem\s+(?P<obj>emojis?|emoticons|jarg[aã]o|enrola[çc][aã]o|rodeios)",
        "Não quer {obj}",
        "sem",
        "negative",
        group="instruction",
    ),
    _r(
        "instruction",
        r"(?:por\s+favor,?\s+)?(?:sempre\s+)?seja\s+(?P<obj>breve|conciso|concisa|direto|direta|formal|claro|clara)",
        "Quer que o assistente seja {obj}",
        "seja",
        group="instruction",
        slot=lambda o: (
            "instruction.length"
            if o.startswith(("breve", "conci"))
            else "instruction.tone"
        ),
    ),
    _r(
        "constraint",
        r"tenho\s+(?P<obj>doen[çc]a\s+cel[ií]aca|diabetes|asma|tdah|epilepsia|enxaqueca|intoler[aâ]ncia\s+.+)",
        "Tem {obj}",
        "doença doenca diabetes asma tdah epilepsia enxaqueca intolerância intolerancia",
        group="health",
    ),
    _r(
        "family",
        r"sou\s+(?P<obj>(?:pai|m[aã]e|av[oóô])\s+de\s+.+)",
        "É {obj}",
        "pai mãe mae avó avô avo",
        group="parent",
    ),
    _r(
        "work",
        r"trabalho\s+(?P<obj>de\s+casa|remoto|remotamente|em\s+home\s+office|à\s+noite|meio\s+período|por\s+conta\s+própria)",
        "Trabalha {obj}",
        "trabalho",
        group="field",
    ),
    # stack and projects
    _r(
        "stack",
        r"(?:eu\s+)?n[aã]o\s+(?:uso|utilizo|usamos|utilizamos)\s+(?P<obj>.+)",
        "Não usa {obj}",
        "uso utilizo usamos utilizamos",
        "negative",
        choice=True,
    ),
    _r(
        "stack",
        r"(?P<verb>usamos|utilizamos|trabalhamos\s+com)\s+(?P<obj>.+)",
        "Usam {obj}",
        "usamos utilizamos trabalhamos",
        choice=True,
    ),
    _r(
        "stack",
        r"(?:eu\s+)?(?:uso|utilizo|programo\s+em)\s+(?P<obj>.+)",
        "Usa {obj}",
        "uso utilizo programo",
        choice=True,
    ),
    _r(
        "stack",
        r"noss[oa]\s+(?P<what>backend|frontend|stack|servidor|projeto|produto|banco\s+de\s+dados|aplica[çc][aã]o|app|infraestrutura)\s+(?P<verb>[eé]|est[aá]\s+(?:feit[oa]|escrit[oa])|usa|roda)\s+(?P<obj>.+)",
        "Seu {what} {verb} {obj}",
        "backend frontend stack servidor projeto produto banco aplicação aplicacao app infraestrutura",
    ),
    _r(
        "stack",
        r"estou\s+(?P<verb>construindo|desenvolvendo|criando|fazendo|trabalhando\s+em|trabalhando\s+num|trabalhando\s+numa)\s+(?P<obj>(?:um|uma|meu|minha|o|a)?\s*.+)",
        "Está {verb} {obj}",
        "construindo desenvolvendo criando fazendo trabalhando",
        group="project",
    ),
    # goals and plans
    _r(
        "goal",
        r"(?:eu\s+)?quero\s+(?P<obj>.+)",
        "Quer {obj}",
        "quero",
        accept=_infinitive,
    ),
    _r(
        "goal",
        r"(?P<verb>pretendo|planejo|planeio|espero|vou)\s+(?P<obj>.+)",
        {"espero": "Espera {obj}", "vou": "Vai {obj}", "": "Pretende {obj}"},
        "pretendo planejo planeio espero vou",
        accept=_infinitive,
    ),
    _r(
        "goal",
        r"meu\s+(?P<what>objetivo|sonho|plano)\s+[eé]\s+(?P<obj>.+)",
        "Seu {what} é {obj}",
        "objetivo sonho plano",
    ),
    _r(
        "goal",
        r"estou\s+(?P<verb>aprendendo|estudando|economizando\s+para|me\s+preparando\s+para)\s+(?P<obj>.+)",
        "Está {verb} {obj}",
        "aprendendo estudando economizando preparando",
    ),
    # notable events
    _r(
        "event", r"acabei\s+de\s+(?P<obj>(?!me\s+mudar).+)", "Acabou de {obj}", "acabei"
    ),
    _r(
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
    ),
    # preferences
    _r(
        "preference",
        r"(?:eu\s+)?n[aã]o\s+gosto\s+(?P<obj>d[eoa]s?\s+.+)",
        "Não gosta {obj}",
        "gosto",
        "negative",
        group="choice",
    ),
    _r(
        "preference",
        r"(?:eu\s+)?(?P<verb>odeio|detesto)\s+(?P<obj>.+)",
        {"odeio": "Odeia {obj}", "": "Detesta {obj}"},
        "odeio detesto",
        "negative",
        group="choice",
    ),
    _r(
        "preference",
        r"(?:eu\s+)?gosto\s+(?P<obj>d[eoa]s?\s+.+)",
        "Gosta {obj}",
        "gosto",
        group="choice",
    ),
    _r(
        "preference",
        r"(?:eu\s+)?(?P<verb>adoro|amo)\s+(?P<obj>.+)",
        {"adoro": "Adora {obj}", "": "Ama {obj}"},
        "adoro amo",
        group="choice",
    ),
    _r(
        "preference",
        r"(?:eu\s+)?prefiro\s+(?P<obj>.+)",
        "Prefere {obj}",
        "prefiro",
        group="choice",
        choice=True,
    ),
)
