"""How many tokens a provider reads in a text: the unit of `memory.max_tokens`.

No provider's tokenizer ships for offline use with memtap's dependencies, and each provider
has its own, so the count is an estimate made to hold for all of them on the texts people
send. ASCII text is four characters a token, as it always was: OpenAI's o200k and cl100k
read LoCoMo's English turns at 0.86-0.90 of that, German, Spanish, French and Portuguese
turns at 0.94-1.16. Any other character is counted by its UTF-8 bytes, three bytes a token:
four characters a token made a Chinese, Japanese or Korean message cost 2.6-4.5 times what
the budget counted (a CJK character is three bytes and about one token), Cyrillic, Greek,
Arabic, Hebrew and Hindi 2-4 times, emoji 1.6-2.6 times; by bytes, o200k reads 0.37-1.02 of
the count in every script measured (docs/memory.md#the-token-budget)."""

from __future__ import annotations


def estimate_tokens(text: str) -> int:
    """Tokens of `text`: ASCII characters at four a token, other UTF-8 bytes at three."""
    if text.isascii():
        return max(1, (len(text) + 3) // 4)
    ascii_chars = len(text.encode("ascii", "ignore"))
    other_bytes = len(text.encode("utf-8", "surrogatepass")) - ascii_chars
    return max(1, (3 * ascii_chars + 4 * other_bytes + 11) // 12)


def chars_within(text: str, tokens: int) -> int:
    """About how many characters of `text` make `tokens` tokens, at the text's own density
    (four a token for ASCII): a cap in characters that means the same budget in any script."""
    if text.isascii():
        return tokens * 4
    return max(1, tokens * len(text) // estimate_tokens(text))
