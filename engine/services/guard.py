"""The fail-open contract at the engine's edge: whatever leaves a public method of the
`Engine` is an `EngineError` (driver errors translated), and an error saying the local
file is gone starts its reopen."""

from __future__ import annotations

import functools
from collections.abc import AsyncIterator, Callable, Coroutine
from typing import Any, Concatenate, ParamSpec, Protocol, TypeVar

from memtap.engine.api import EngineError
from memtap.engine.services.recovery import LocalFileRecovery
from memtap.engine.store_errors import StoreTimeout

P = ParamSpec("P")
R = TypeVar("R")
T = TypeVar("T")


class Guarded(Protocol):
    @property
    def recovery(self) -> LocalFileRecovery: ...


G = TypeVar("G", bound=Guarded)


def guarded(
    fn: Callable[Concatenate[G, P], Coroutine[Any, Any, R]],
) -> Callable[Concatenate[G, P], Coroutine[Any, Any, R]]:
    """Anything but an EngineError leaving the method becomes one."""

    @functools.wraps(fn)
    async def wrapper(owner: G, /, *args: P.args, **kwargs: P.kwargs) -> R:
        try:
            return await fn(owner, *args, **kwargs)
        except EngineError as exc:
            owner.recovery.noticed(exc)
            raise
        except TimeoutError as exc:
            raise StoreTimeout("memory store timed out") from exc
        except Exception as exc:
            raise EngineError(f"{type(exc).__name__}: {exc}") from exc

    return wrapper


async def guarded_iter(items: AsyncIterator[T]) -> AsyncIterator[T]:
    """An export's stream, with the same promise: only EngineErrors come out of it."""
    try:
        async for item in items:
            yield item
    except EngineError:
        raise
    except Exception as exc:
        raise EngineError(f"{type(exc).__name__}: {exc}") from exc
