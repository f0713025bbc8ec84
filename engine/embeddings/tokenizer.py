"""The WordPiece tokenizer of all-MiniLM-L6-v2 (bert-base-uncased vocabulary), shipped as data.

`data/tokenizer.json` is the model's own tokenizer file, byte for byte (source, licence and
sha256 in `data/README.md`). That file pads every input to 128 tokens and truncates there;
both are replaced here: no padding (callers pad each length-sorted batch to its longest
text, so short memories cost a few tokens, not 128) and truncation at `max_length`.
"""

from __future__ import annotations

from pathlib import Path

from tokenizers import Tokenizer

DATA_DIR = Path(__file__).parent / "assets"
PACKAGED_TOKENIZER = DATA_DIR / "tokenizer.json"
PACKAGED_TOKENIZER_SHA256 = (
    "be50c3628f2bf5bb5e3a7f17b1f74611b2561a3a27eeab05e5aa30f411572037"
)
DEFAULT_MAX_LENGTH = 256


def load_tokenizer(
    path: str | Path | None = None, max_length: int = DEFAULT_MAX_LENGTH
) -> Tokenizer:
    """A tokenizer that truncates at `max_length` and never pads.

    `path` may be a `tokenizer.json` or a WordPiece `vocab.txt` (uncased BERT pipeline).
    Blocking (file I/O): call it off the event loop."""
    file = Path(path) if path is not None else PACKAGED_TOKENIZER
    tokenizer = (
        _from_vocab(file) if file.suffix == ".txt" else Tokenizer.from_file(str(file))
    )
    tokenizer.no_padding()
    tokenizer.enable_truncation(max_length=max_length)
    return tokenizer


def _from_vocab(vocab_file: Path) -> Tokenizer:
    # Same pipeline as the packaged tokenizer.json, for models that ship only a vocab.txt.
    from tokenizers import decoders, models, normalizers, pre_tokenizers, processors

    tokenizer = Tokenizer(
        models.WordPiece.from_file(str(vocab_file), unk_token="[UNK]")
    )
    tokenizer.normalizer = normalizers.BertNormalizer(
        lowercase=True, clean_text=True, handle_chinese_chars=True
    )
    tokenizer.pre_tokenizer = pre_tokenizers.BertPreTokenizer()
    cls_id, sep_id = tokenizer.token_to_id("[CLS]"), tokenizer.token_to_id("[SEP]")
    if cls_id is None or sep_id is None:
        raise ValueError(f"{vocab_file}: vocabulary has no [CLS]/[SEP] tokens")
    tokenizer.post_processor = processors.TemplateProcessing(
        single="[CLS] $A [SEP]",
        pair="[CLS] $A [SEP] $B:1 [SEP]:1",
        special_tokens=[("[CLS]", cls_id), ("[SEP]", sep_id)],
    )
    tokenizer.decoder = decoders.WordPiece()
    return tokenizer
