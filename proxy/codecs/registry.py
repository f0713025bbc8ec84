"""Which codec (if any) handles a request: by the upstream's configured format and the path.

Only `POST` to a known generation endpoint gets memory; everything else (model lists, file
uploads, `count_tokens`, batches...) is a pure pass-through, signalled by `None`.
"""

from __future__ import annotations

from functools import lru_cache

from memtap.config.schema import ApiFormat as UpstreamFormat
from memtap.proxy.codecs.anthropic import AnthropicCodec
from memtap.proxy.codecs.base import Codec
from memtap.proxy.codecs.gemini import GeminiCodec
from memtap.proxy.codecs.openai_chat import OpenAIChatCodec
from memtap.proxy.codecs.openai_responses import OpenAIResponsesCodec

OPENAI_CHAT = OpenAIChatCodec()
OPENAI_RESPONSES = OpenAIResponsesCodec()
ANTHROPIC = AnthropicCodec()
GEMINI = GeminiCodec()

_BY_FORMAT: dict[str, tuple[Codec, ...]] = {
    "openai": (OPENAI_CHAT, OPENAI_RESPONSES),
    "anthropic": (ANTHROPIC,),
    "gemini": (GEMINI,),
    "auto": (OPENAI_CHAT, OPENAI_RESPONSES, ANTHROPIC, GEMINI),
}


def detect(format: UpstreamFormat | str, method: str, path: str) -> Codec | None:
    """The codec for `method path` (the upstream path, without query) on an upstream of
    `format`; None = pass the request through without memory."""
    if method.upper() != "POST":
        return None
    return _codec_for_path(format, path)


@lru_cache(maxsize=1024)
def _codec_for_path(format: str, path: str) -> Codec | None:
    # Every request to a memory endpoint asks, memory on or off (the request log), and
    # an upstream's paths are few: the codecs' patterns run once per path.
    for codec in _BY_FORMAT.get(format, ()):
        if codec.matches("POST", path):
            return codec
    return None
