"""The budget's token count (`engine/text/tokens.py`) against what a provider's tokenizer
reads. The counts below were measured with OpenAI's o200k_base and cl100k_base on
2026-12-07 (research only: neither tokenizer ships for offline use with memtap's
dependencies); the estimate must never count fewer tokens than o200k reads, so a budget
holds in every script, and ASCII text keeps the four characters a token it always had."""

from __future__ import annotations

import pytest

from memtap.engine.text.tokens import chars_within, estimate_tokens

MEASURED = [
    # (text, o200k_base, cl100k_base)
    ("我是一名软件工程师，在北京的一家初创公司工作。", 15, 22),
    ("私は猫を二匹飼っていて、名前はミケとタマです。", 19, 27),
    ("저는 서울에서 간호사로 일하고 있어요.", 13, 19),
    ("Я работаю врачом в больнице в Москве уже пять лет.", 14, 25),
    ("أعمل مهندسة برمجيات في دبي منذ ثلاث سنوات.", 14, 32),
    ("मैं दिल्ली में एक सॉफ्टवेयर इंजीनियर के रूप में काम करता हूँ।", 18, 63),
    ("Haha 😂😂 that was so fun!! 🎉🎉 see you soon ❤️", 16, 22),
    ("Ich arbeite seit März als Tierärztin in einer Klinik in Hamburg.", 16, 18),
    ("I went to a LGBTQ support group yesterday and it was so powerful.", 14, 14),
]


@pytest.mark.parametrize(("text", "o200k", "cl100k"), MEASURED)
def test_the_estimate_holds_the_budget_in_every_script(
    text: str, o200k: int, cl100k: int
) -> None:
    estimate = estimate_tokens(text)
    # Never fewer than the provider reads: four characters a token gave the Chinese line
    # 6 tokens for o200k's 15, the Hindi one 16 for 18 (cl100k: 63).
    assert estimate >= o200k
    # Not wasteful either: within a quarter of the costlier of the two tokenizers.
    assert estimate <= 1.25 * max(o200k, cl100k) + 1


def test_ascii_text_is_four_characters_a_token_as_before() -> None:
    for n in (0, 1, 3, 4, 5, 99, 100, 101, 4000):
        assert estimate_tokens("a" * n) == max(1, (n + 3) // 4)
    assert chars_within("plain English", 60) == 240


def test_a_cap_in_characters_means_the_same_tokens_in_any_script() -> None:
    chinese = "我是一名软件工程师，在北京的一家初创公司工作。" * 10
    cap = chars_within(chinese, 60)
    assert 50 <= cap <= 70  # about a character a token, not 240 characters
    assert estimate_tokens(chinese[:cap]) <= 62
    russian = "Я работаю врачом в больнице в Москве уже пять лет. " * 10
    assert estimate_tokens(russian[: chars_within(russian, 60)]) <= 62
