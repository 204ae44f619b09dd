"""Bulk calls run with the cyclic garbage collector paused.

Reading, decoding or encoding a long history allocates hundreds of thousands of
container objects (models, their ``__dict__``, lists, dicts) and no reference
cycles. Every 700 allocations the collector starts a pass, and the older
generations' passes walk the whole growing heap: on a 10,000-message history that
was 40% of a parse. Reference counting frees everything these calls drop, so
they run with the collector paused and resume it when they return; the collector
then runs once, at its next threshold, over what the call kept.

The pause only touches a collector that was enabled, and nested calls leave it to
the outermost. :func:`gc.disable` is process-wide: a thread that enables or
disables the collector while such a call runs in another thread may find its
setting undone when the call returns.
"""

from __future__ import annotations

import functools
import gc
from collections.abc import Callable
from typing import ParamSpec, TypeVar

__all__ = ["collector_paused"]

_P = ParamSpec("_P")
_R = TypeVar("_R")


def collector_paused(function: Callable[_P, _R]) -> Callable[_P, _R]:
    """Run ``function`` with the cyclic garbage collector paused (see the module)."""

    @functools.wraps(function)
    def wrapper(*args: _P.args, **kwargs: _P.kwargs) -> _R:
        if not gc.isenabled():
            return function(*args, **kwargs)
        gc.disable()
        try:
            return function(*args, **kwargs)
        finally:
            gc.enable()

    return wrapper
