"""What in a message is the user speaking: everything else is removed before clauses are read.

Not the user speaking: memtap's own injected block, fenced and indented code, inline code,
block quotes (`> …`), quotations of three words or more, pasted emails and letters (headers,
"Dear …" up to the sign-off, "On … wrote:" replies), pasted logs and stack traces, shell
sessions, chat transcripts ("Alice: … / Bob: …"), and anything after a line that introduces
pasted material ("Here is the email:").
"""

from __future__ import annotations

import re

from memtap.engine.memory_block import CLOSE, OPEN
from memtap.engine.text import lexicon

MAX_INPUT_CHARS = 64 * 1024

# Case-insensitive on purpose: a block a client re-cased is still memtap's, never the user's.
_BLOCK = re.compile(
    re.escape(OPEN) + r".*?(?:" + re.escape(CLOSE) + r"|\Z)", re.DOTALL | re.IGNORECASE
)
_FENCE = re.compile(r"(?:```|~~~).*?(?:```|~~~|\Z)", re.DOTALL)
_INLINE_CODE = re.compile(r"`[^`\n]*`")
_QUOTE_CHARS = str.maketrans(
    {"’": "'", "‘": "'", "ʼ": "'", "＇": "'", "“": '"', "”": '"', "„": '"'}
)
_QUOTATION = re.compile(
    r'"[^"\n]{0,400}?"|«[^»\n]{0,400}?»|(?<![\w])\'(?:[^\'\n]|\'(?=[a-z]))+?\'(?![\w])'
)
_WORDS = re.compile(r"\w+")
_BLOCK_QUOTE = re.compile(r"^\s*>")
_INDENTED = re.compile(r"^(?: {4,}|\t)\S")
_LOG = re.compile(
    r"^\s*(?:\[?\d{4}-\d{2}-\d{2}[ T]\d{2}:\d{2}|\[?\d{2}:\d{2}:\d{2}\]?\s|\[?(?:INFO|WARN|WARNING|ERROR|"
    r"DEBUG|TRACE|FATAL|CRITICAL)\]?[\s:]|Traceback \(most recent call last\)|at [\w$.<>]+\(|"
    r"File \"[^\"]+\", line \d+|\w+(?:\.\w+)*(?:Error|Exception)(?::|$)|[$#] |>>> |\.\.\. |"
    r"[\w.-]+@[\w.-]+:[~/]|PS [A-Z]:\\|npm (?:ERR|WARN)|E\d{4}\b|\d+ passed|FAILED )",
)
_HEADER = re.compile(lexicon.MAIL_HEADER, re.IGNORECASE)
_REPLY = re.compile(lexicon.REPLY, re.IGNORECASE)
_GREETING = re.compile(lexicon.GREETING, re.IGNORECASE)
_SIGNOFF = re.compile(lexicon.SIGNOFF, re.IGNORECASE)
_SPEAKER = re.compile(r"^\s*\[?(?P<who>[A-Z][\w .'-]{0,23})\]?:\s+\S")
_PAYLOAD_INTRO = re.compile(lexicon.PAYLOAD_INTRO, re.IGNORECASE)


def strip_injected(text: str) -> str:
    """Remove memtap's own memory block (defensive: codecs already strip it)."""
    return _BLOCK.sub(" ", text) if OPEN.lower() in text.lower() else text


_MANUSCRIPT = re.compile(lexicon.MANUSCRIPT, re.IGNORECASE | re.MULTILINE)
# Spaces and tabs after a word (indentation, which marks pasted code, is left alone).
_SPACE_RUN = re.compile(r"(?<=\S)[ \t]{2,}")


def user_speech(text: str) -> str:
    """The parts of `text` in which the user speaks for themselves, lines kept apart."""
    text = strip_injected(text).translate(_QUOTE_CHARS)
    if len(text) > MAX_INPUT_CHARS:
        text = text[-MAX_INPUT_CHARS:]  # the tail is the most recent part of the turn
    heading = _MANUSCRIPT.search(text)
    if heading is not None:
        # "Chapter 1. I was born…": from there on, a story
        text = text[: heading.start()]
    if "  " in text or "\t" in text:
        # long runs of spaces cost the clause splitters time that grows with their square
        text = _SPACE_RUN.sub(" ", text)
    if "```" in text or "~~~" in text:
        text = _FENCE.sub("\n", text)
    if "`" in text:
        text = _INLINE_CODE.sub(" ", text)
    if '"' in text or "'" in text or "«" in text:
        text = _QUOTATION.sub(_drop_long_quotation, text)
    if (
        "\n" not in text
        and ":" not in text
        and not text.lstrip().startswith((">", "[", "$", "#"))
    ):
        return (
            text if not _LOG.match(text) else ""
        )  # one plain line: nothing pasted to find
    return "\n".join(_spoken_lines(text.split("\n")))


def _drop_long_quotation(m: re.Match[str]) -> str:
    # A quoted word or two is part of what the user says ("I use "black""); a quoted
    # sentence is somebody's text.
    return " " if len(_WORDS.findall(m.group(0))) >= 3 else m.group(0)


def _spoken_lines(lines: list[str]) -> list[str]:
    kept: list[str] = []
    speakers = _speakers(lines)
    in_letter = False
    headers = sum(1 for line in lines if _HEADER.match(line))
    for index, line in enumerate(lines):
        if _REPLY.match(line) or (headers >= 2 and _HEADER.match(line)):
            break  # a quoted reply or a pasted email: the rest is not the user's
        if in_letter:
            if _SIGNOFF.match(line):
                in_letter = False
            continue
        if _GREETING.match(line) and _has_signoff(lines, index):
            in_letter = True
            continue
        if (
            _BLOCK_QUOTE.match(line)
            or _INDENTED.match(line)
            or _LOG.match(line)
            or (speakers and _is_speaker_line(line, speakers))
        ):
            continue
        if _PAYLOAD_INTRO.search(line) and index + 1 < len(lines):
            kept.append(line.rsplit(":", 1)[0])
            break  # "Here is the email:" - what follows is pasted, not said
        kept.append(line)
    return kept


def _has_signoff(lines: list[str], start: int) -> bool:
    return any(_SIGNOFF.match(line) for line in lines[start + 1 :])


def _speakers(lines: list[str]) -> frozenset[str]:
    """Names that open two or more lines, when there are at least two: a pasted transcript."""
    counts: dict[str, int] = {}
    for line in lines:
        m = _SPEAKER.match(line)
        if m and m.group("who").strip().lower() not in lexicon.LABELS:
            who = m.group("who").strip()
            counts[who] = counts.get(who, 0) + 1
    if len(counts) >= 2:
        return frozenset(counts)
    return frozenset()


def _is_speaker_line(line: str, speakers: frozenset[str]) -> bool:
    m = _SPEAKER.match(line)
    return m is not None and m.group("who").strip() in speakers
