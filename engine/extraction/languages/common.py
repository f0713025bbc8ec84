"""Pieces of regular expressions shared by the English rule modules."""

from __future__ import annotations

START = r"(?:^|(?<=[\s,;:(\"'¿¡]))"
I = START + r"I\s+"
I_ANY = START + r"I(?:\s+|(?='))"
"""`I` followed by a space or a contraction ("I'm", "I'd"): for verbs listed with their "'m"."""
I_OR_WE = START + r"(?:I|we)\s+"
IM = START + r"I(?:'m|\s+am|'ve\s+been|\s+have\s+been)\s+"
WE = START + r"we\s+"
ADV = (
    r"(?:(?:really|truly|definitely|much|now|still|actually|generally|personally|also|just|"
    r"strongly|do|would|currently|recently|finally|mostly|mainly|primarily|originally|"
    r"already|officially|both|all|only)\s+)*"
)
PLEASE = (
    r"^(?:(?:please|pls|plz|also|and|so|ok|okay|oh|hey|btw|from\s+now\s+on|going\s+forward|"
    r"in\s+(?:the\s+)?future|by\s+default|for\s+(?:all\s+)?future\s+(?:answers|replies|chats)|"
    r"one\s+more\s+thing|remember(?:\s+to)?|always|kindly)[,:!\s]+)*"
)
