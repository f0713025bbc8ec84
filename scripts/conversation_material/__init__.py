"""Hand-written material for the conversation recall set (scripts/make_conversations.py).

One module per persona (`PERSONA`: who, when the sessions happen, the facts they mention in
passing with the questions about them) and `common.py` for the fact-free turns every person
has (task requests, follow-ups, small talk). The generator composes them into sessions; the
wording is written by hand, only the order, openers and times are drawn.
"""
