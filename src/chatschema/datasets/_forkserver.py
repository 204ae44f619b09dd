"""Imported first by the fork server of the worker pool: it ends with its parent.

The fork server imports the work modules before serving, and only then notices that
its parent has gone. On Linux it asks for the parent-death signal as soon as it
imports this module, and ends at once if its parent has already gone. In any other
process that imports this module, nothing happens.
"""

from __future__ import annotations

import contextlib
import os
import select
import signal
import sys
from types import FrameType

__all__: list[str] = []

_PR_SET_PDEATHSIG = 1


def _fork_server_frame() -> FrameType | None:
    """The frame of ``multiprocessing.forkserver.main`` importing this, if it is."""
    from multiprocessing import forkserver

    frame: FrameType | None = sys._getframe(1)
    while frame is not None:
        if frame.f_code is forkserver.main.__code__:
            return frame
        frame = frame.f_back
    return None


def _end_with_parent() -> None:
    if not sys.platform.startswith("linux"):
        return
    frame = _fork_server_frame()
    if frame is None:
        return
    import ctypes

    # Without prctl the server still ends, once it has imported the work.
    with contextlib.suppress(OSError, AttributeError):
        ctypes.CDLL(None, use_errno=True).prctl(_PR_SET_PDEATHSIG, int(signal.SIGKILL))
    alive = frame.f_locals.get("alive_r")
    if isinstance(alive, int):
        # The parent holds the pipe's other end: readable means it has ended.
        with contextlib.suppress(OSError, ValueError):
            if select.select([alive], [], [], 0)[0]:
                os._exit(0)


_end_with_parent()
