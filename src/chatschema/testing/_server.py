"""A local server for tests: any ASGI application on 127.0.0.1, uvicorn underneath."""

from __future__ import annotations

import asyncio
import socket
import threading
import time
from types import TracebackType
from typing import Any

import uvicorn

__all__ = ["HOST", "LocalServer"]

HOST = "127.0.0.1"
"""The address the server listens on (the loopback interface only)."""


class LocalServer:
    """An ASGI application served by uvicorn on 127.0.0.1, for tests and examples.

    ``with LocalServer(app) as server:`` serves it in a background thread;
    ``async with`` in the running event loop. Either returns once the server
    accepts connections, on a port the OS picks (:attr:`url`), and stops it (and
    waits for it) on exit. :class:`FakeProvider` serves with one; so can an
    application under test, a gateway (``LocalServer(create_app(...))``) included.

    Args:
        app: the ASGI application.
        name: what the server is called in errors and its thread's name.
    """

    def __init__(self, app: Any, *, name: str = "LocalServer") -> None:
        self.app = app
        self.name = name
        self._port: int | None = None
        self._server: uvicorn.Server | None = None
        self._thread: threading.Thread | None = None
        self._task: asyncio.Task[None] | None = None

    @property
    def url(self) -> str:
        """The base URL, ``http://127.0.0.1:<port>`` (while serving).

        Raises:
            RuntimeError: when the server is not running.
        """
        if self._port is None:
            raise RuntimeError(
                f"{self.name} is not serving: use `with {self.name}(...) as server:` "
                "(or `async with`), or its ASGI app"
            )
        return f"http://{HOST}:{self._port}"

    @property
    def running(self) -> bool:
        """Whether the server is serving."""
        return self._port is not None

    def _new_server(self) -> tuple[uvicorn.Server, socket.socket]:
        if self._server is not None:
            raise RuntimeError(f"this {self.name} is already serving")
        # IPPROTO_TCP named: asyncio then sets TCP_NODELAY on each connection; without
        # it a body written after its headers waits for the client's delayed ACK (40 ms)
        sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM, socket.IPPROTO_TCP)
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind((HOST, 0))
        config = uvicorn.Config(
            self.app,
            log_config=None,
            log_level="warning",
            access_log=False,
            lifespan="auto",
            timeout_graceful_shutdown=2,
        )
        self._server = uvicorn.Server(config)
        return self._server, sock

    def __enter__(self) -> LocalServer:
        """Serve in a background thread; returns once it accepts connections."""
        server, sock = self._new_server()
        thread = threading.Thread(
            target=server.run, kwargs={"sockets": [sock]}, name=self.name, daemon=True
        )
        self._thread = thread
        thread.start()
        deadline = time.monotonic() + 10
        while not server.started:
            if not thread.is_alive() or time.monotonic() > deadline:
                self._stop_thread()
                sock.close()
                raise RuntimeError(f"{self.name}: the server did not start")
            time.sleep(0.002)
        self._port = sock.getsockname()[1]
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        value: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        """Stop the server and wait for its thread to end."""
        self._stop_thread()

    def _stop_thread(self) -> None:
        server, thread = self._server, self._thread
        self._port = None
        if server is not None:
            server.should_exit = True
        if thread is not None:
            thread.join(timeout=10)
            if thread.is_alive():  # pragma: no cover - a stuck connection
                server.force_exit = True  # type: ignore[union-attr]
                thread.join(timeout=5)
        self._server = self._thread = None

    async def __aenter__(self) -> LocalServer:
        """Serve in the running event loop; returns once it accepts connections."""
        server, sock = self._new_server()
        self._task = asyncio.create_task(server.serve(sockets=[sock]))
        deadline = time.monotonic() + 10
        while not server.started:
            if self._task.done() or time.monotonic() > deadline:
                await self._stop_task()
                sock.close()
                raise RuntimeError(f"{self.name}: the server did not start")
            await asyncio.sleep(0.002)
        self._port = sock.getsockname()[1]
        return self

    async def __aexit__(
        self,
        kind: type[BaseException] | None,
        value: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        """Stop the server and wait for it to end."""
        await self._stop_task()

    async def _stop_task(self) -> None:
        server, task = self._server, self._task
        self._port = None
        if server is not None:
            server.should_exit = True
        if task is not None:
            try:
                await asyncio.wait_for(asyncio.shield(task), 10)
            except asyncio.TimeoutError:  # pragma: no cover - a stuck connection
                server.force_exit = True  # type: ignore[union-attr]
                await task
        self._server = self._task = None
