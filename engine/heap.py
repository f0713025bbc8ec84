"""Return freed heap to the OS after the few large one-off allocations (an ONNX model load, a
vector cache load).

Why: glibc keeps freed memory in the arena of the thread that freed it. Building an
onnxruntime session folds the int8 weights into float32 and pre-packs them, and the
intermediate copies (~60 MB) stayed resident in the loading thread's arena, which no other
thread reuses: measured here, RSS after loading the packaged MiniLM went from 226 MB to
167 MB with a trim. Elsewhere than glibc this does nothing.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import functools
from collections.abc import Callable


@functools.cache
def _malloc_trim() -> Callable[[int], int] | None:
    name = ctypes.util.find_library("c")
    if name is None:
        return None
    try:
        trim: Callable[[int], int] = ctypes.CDLL(name).malloc_trim
    except (OSError, AttributeError):  # not glibc (musl, macOS)
        return None
    return trim


def release_freed_heap() -> bool:
    """Trim every malloc arena; returns whether the platform supports it."""
    trim = _malloc_trim()
    if trim is None:
        return False
    trim(0)
    return True
