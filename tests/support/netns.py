"""Remote clients for real: a network namespace and a veth pair made by the test itself.

`RemoteHost` is another "machine" reachable from this one: this host gets `host_ip` on its
end of the pair, the namespace gets `remote_ip`, both in a private /30 that exists only inside
this sandbox. `connect()` opens a TCP connection *from* the namespace (the socket is created
there with setns(2) in a short-lived thread; the namespace of a socket is fixed at creation),
so memtap sees a peer address that is not loopback, exactly as it would from another machine.

Needs root and `ip` (iproute2); `remote_host()` raises `Unavailable` with the reason otherwise.
"""

from __future__ import annotations

import asyncio
import ctypes
import os
import shutil
import socket
import subprocess
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass

import pytest

from memtap.config.holder import ConfigHolder
from memtap.config.schema import Config
from memtap.proxy.server import RunningServer, start_server

_CLONE_NEWNET = 0x40000000


class Unavailable(Exception):
    """Network namespaces cannot be made here (the reason is the message)."""


@dataclass(frozen=True, slots=True)
class RemoteHost:
    namespace: str
    host_ip: str
    """This host's address on the link (memtap listens here)."""
    remote_ip: str
    """The namespace's address: the peer memtap sees."""

    def socket(self) -> socket.socket:
        """A TCP socket that lives in the namespace (blocking creation, in a thread)."""
        made: list[socket.socket] = []
        failed: list[BaseException] = []

        def create() -> None:
            libc = ctypes.CDLL(None, use_errno=True)
            own = os.open("/proc/thread-self/ns/net", os.O_RDONLY)
            target = os.open(f"/run/netns/{self.namespace}", os.O_RDONLY)
            try:
                if libc.setns(target, _CLONE_NEWNET) != 0:
                    raise OSError(ctypes.get_errno(), "setns into the test namespace")
                try:
                    made.append(socket.socket(socket.AF_INET, socket.SOCK_STREAM))
                finally:
                    libc.setns(own, _CLONE_NEWNET)
            except BaseException as exc:  # noqa: BLE001 - handed to the caller
                failed.append(exc)
            finally:
                os.close(own)
                os.close(target)

        thread = threading.Thread(
            target=create
        )  # its own thread: never a pool worker's
        thread.start()
        thread.join()
        if failed:
            raise failed[0]
        return made[0]

    async def connect(
        self, port: int, host: str | None = None
    ) -> tuple[asyncio.StreamReader, asyncio.StreamWriter]:
        sock = self.socket()
        sock.setblocking(False)
        try:
            await asyncio.get_running_loop().sock_connect(
                sock, (host or self.host_ip, port)
            )
        except BaseException:
            sock.close()
            raise
        return await asyncio.open_connection(sock=sock)

    async def exchange(self, port: int, data: bytes, timeout: float = 10.0) -> bytes:
        """Send `data` from the namespace to `host_ip:port`; everything until the server closes."""
        reader, writer = await self.connect(port)
        try:
            writer.write(data)
            await writer.drain()
            return await asyncio.wait_for(reader.read(), timeout)
        finally:
            writer.close()


def _ip(*args: str) -> None:
    result = subprocess.run(
        ["ip", *args], capture_output=True, text=True, timeout=10, check=False
    )
    if result.returncode != 0:
        raise Unavailable(f"`ip {' '.join(args)}` failed: {result.stderr.strip()}")


@contextmanager
def remote_host() -> Iterator[RemoteHost]:
    """Make the namespace and the link; remove both afterwards (removing the namespace
    removes its end of the pair, and with it this host's end)."""
    if os.geteuid() != 0:
        raise Unavailable("network namespaces need root")
    if shutil.which("ip") is None:
        raise Unavailable("iproute2 (`ip`) is not installed")
    tag = os.getpid() % 10000
    namespace = f"memtap-t{tag}"
    here, there = f"mth{tag}", f"mtr{tag}"
    # A /30 per process from 10.213.0.0/16, so parallel runs never share a link.
    base = (os.getpid() % 16000) * 4
    host_ip = f"10.213.{base // 256}.{base % 256 + 1}"
    remote_ip = f"10.213.{base // 256}.{base % 256 + 2}"
    subprocess.run(["ip", "netns", "del", namespace], capture_output=True, check=False)
    _ip("netns", "add", namespace)
    try:
        _ip("link", "add", here, "type", "veth", "peer", "name", there)
        _ip("link", "set", there, "netns", namespace)
        _ip("addr", "add", f"{host_ip}/30", "dev", here)
        _ip("link", "set", here, "up")
        _ip("-n", namespace, "addr", "add", f"{remote_ip}/30", "dev", there)
        _ip("-n", namespace, "link", "set", there, "up")
        _ip("-n", namespace, "link", "set", "lo", "up")
        yield RemoteHost(namespace, host_ip, remote_ip)
    finally:
        subprocess.run(
            ["ip", "netns", "del", namespace], capture_output=True, check=False
        )
        subprocess.run(["ip", "link", "del", here], capture_output=True, check=False)


@contextmanager
def remote_or_skip() -> Iterator[RemoteHost]:
    """`remote_host()` for a test module's fixture: its tests are skipped, with the reason,
    where network namespaces cannot be made."""
    try:
        with remote_host() as made:
            yield made
    except Unavailable as exc:
        pytest.skip(f"no network namespace for a remote client: {exc}")


class AllInterfaces:
    """memtap servers on 0.0.0.0 (reachable from the namespace and from loopback), stopped
    together when the test ends."""

    def __init__(self) -> None:
        self.started: list[RunningServer] = []

    async def start(self, config: Config) -> RunningServer:
        running = await start_server(
            ConfigHolder(config), listen=("0.0.0.0", 0), watch_config=False
        )
        self.started.append(running)
        return running

    async def stop(self) -> None:
        for running in self.started:
            await running.stop()
