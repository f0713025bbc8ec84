"""The words the engine's readers share across languages (data only): what makes a clause
a request, a hypothetical, fiction or reported speech, what joins two clauses, and who the
user is when they speak (the subject lexicon). A language's own words are in its pack
(`engine/languages/`); these are read whatever the language of the text.
"""

from __future__ import annotations

from memtap.engine.languages.pack import words

# Words without which a pattern below cannot match: a set lookup spares the regex on most
# clauses (extraction runs on every turn).
REQUEST_WORDS = words(
    "make translate translated translation summarize summarise sum rewrite write "
    "rephrase paraphrase reword proofread correct edit polish shorten expand continue "
    "complete improve simplify draft compose generate create make come give tell turn "
    "convert reformat respond reply answer critique grade spell tl dr tldr roleplay "
    "role pretend act say voice story poem song essay email letter tweet post bio "
    "speech traduce traducir traduzca traduza traduz traduzir resume resuma resumir "
    "reescribe reescreva escribe escreva redacta redija corrige corrija traduis "
    "traduisez traduire résume résumez réécris écris écrivez rédige rédigez übersetze "
    "übersetz übersetzen fasse schreib schreibe formuliere korrigiere verfasse"
)

HYPOTHETICAL_WORDS = words(
    "if suppose supposing imagine imagining let lets say pretend assume assuming "
    "hypothetically what world picture even unless si supongamos supón supon imagina "
    "imaginemos imagínate imaginate se suponha suponhamos e imaginons imaginez "
    "supposons et wenn falls angenommen stell nehmen gesetzt would could might d"
)

FICTION_WORDS = words(
    "story novel game scenario roleplay role play book script dream fiction fantasy "
    "poem song screenplay campaign simulation character pretend pretending act you "
    "example test exercise demo sample"
)

REPORTED_WORDS = words(
    "said says say told tells thinks believes claims claim claimed insists insisted "
    "mentioned wrote writes asked according apparently supposedly allegedly dijo dice "
    "dicen según disse diz dizem segundo falou dit disent selon sagte sagt meint laut "
    "gesagt behauptet"
)

JOINERS = words(
    "and but so plus also though although while whereas because since as cause y pero "
    "porque e mas et mais car und aber weil denn sondern"
)

SUBJECT = (
    r"(?:I|I'm|I've|I'd|I'll|my|we|we're|our|yo|mi|mis|eu|meu|minha|je|j'|mon|ma|mes|ich|mein|"
    r"meine|wir|unser|unsere|nosotros|nuestro|nuestra|nós|nosso|nossa|nous|notre)"
)

# Spanish and Portuguese drop the subject, so a new clause may start with its verb ("y soy de
# Valparaíso", "mas moro em São Paulo"): first-person forms of the verbs facts are stated
# with. (German "und wohne in Hamburg" shares the subject before it, which its rules read.)
FIRST_PERSON_VERB = (
    r"(?:soy|estoy|tengo|vivo|trabajo|uso|usamos|prefiero|nac[ií]|sou|estou|tenho|moro|"
    r"trabalho|prefiro|nasci)"
)


# -- what ends or empties an object (extraction/objects.py) ---------------------------
# An object made only of a pronoun (or a pronoun and an intensifier) says nothing by itself.
PRONOUNS = words(
    "it this that them those these one ones so him her they there here lo la los las "
    "le les isso isto ele ela eles elas ça cela ceci le la les es das dies ihn sie"
)

INTENSIFIERS = words("a lot so much too very really more when how way about better")

TIME_ENDS = words(
    "week weekend month quarter year summer winter spring fall autumn sprint days "
    "weeks months years yesterday today recently ago"
)

TRAILING_ENDS = words(
    "now being currently days nowadays anymore more longer moment lol haha too well "
    "tbh btw honestly thanks please ahora agora maintenant jetzt mehr plus ya já "
    "también também aussi auch"
)

END_WORDS = words(
    "because since as but so which when whenever if unless though although except and "
    "or porque pero mas parce car mais weil aber denn si wenn"
)


# -- choice domains (extraction/slots.py) ---------------------------------------------
# Mutually exclusive choices: a newer exclusive fact in the same domain supersedes the older.
CHOICE_DOMAINS: dict[str, tuple[str, ...]] = {
    "indentation": (
        "tabs",
        "tab",
        "spaces",
        "space indentation",
        "2 spaces",
        "4 spaces",
        "two spaces",
        "four spaces",
    ),
    "editor": (
        "vim",
        "neovim",
        "nvim",
        "emacs",
        "vscode",
        "vs code",
        "visual studio code",
        "sublime",
        "nano",
        "intellij",
        "pycharm",
        "zed",
        "helix",
        "cursor",
    ),
    "shell": ("bash", "zsh", "fish", "powershell"),
    "os": ("linux", "macos", "mac", "windows", "ubuntu", "debian", "arch", "fedora"),
    "language": (
        "python",
        "rust",
        "go",
        "golang",
        "java",
        "javascript",
        "typescript",
        "ruby",
        "kotlin",
        "swift",
        "php",
        "haskell",
        "elixir",
        "scala",
        "c++",
        "c#",
        "zig",
    ),
    "database": (
        "postgres",
        "postgresql",
        "mysql",
        "sqlite",
        "mongodb",
        "mongo",
        "redis",
        "mariadb",
        "dynamodb",
        "cassandra",
        "duckdb",
    ),
    "theme": ("dark mode", "light mode", "dark theme", "light theme"),
    "quotes": ("single quotes", "double quotes"),
    "package_manager": (
        "npm",
        "yarn",
        "pnpm",
        "pip",
        "poetry",
        "uv",
        "conda",
        "pipenv",
    ),
    "cloud": ("aws", "gcp", "azure", "google cloud"),
    "frontend": ("react", "vue", "svelte", "angular", "solid"),
    "units": ("metric", "imperial", "celsius", "fahrenheit"),
    "formatter": ("black", "ruff", "prettier", "yapf", "autopep8"),
}
