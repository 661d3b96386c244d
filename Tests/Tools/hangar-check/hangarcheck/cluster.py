"""The processes hangar-check drives: pilots-server instances and the PostgreSQL servers of
Scripts/with-postgres.sh (a primary and streaming standbys on loopback)."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import threading
import time
from dataclasses import dataclass
from typing import Optional
from urllib.parse import urlsplit


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


@dataclass
class PostgresNode:
    """One PostgreSQL server of the harness: its URL and data folder."""

    name: str
    url: str
    data: str

    @property
    def host_port(self) -> str:
        return urlsplit(self.url).netloc.rpartition("@")[2]


class Postgres:
    """The harness's servers, from the environment Scripts/with-postgres.sh exports."""

    def __init__(self, environment=os.environ):
        primary_url = environment.get("HANGAR_TEST_POSTGRES_PRIMARY_URL") or environment.get(
            "HANGAR_TEST_POSTGRES_URL")
        if not primary_url:
            raise SystemExit("hangar-check: run it under Scripts/with-postgres.sh --standbys 2 (no server URL)")
        self.ctl = environment.get("HANGAR_TEST_POSTGRES_CTL")
        self.primary = PostgresNode("primary", primary_url, environment.get("HANGAR_TEST_POSTGRES_PRIMARY_DATA", ""))
        self.standbys = []
        index = 1
        while f"HANGAR_TEST_POSTGRES_STANDBY_{index}_URL" in environment:
            self.standbys.append(PostgresNode(
                f"standby{index}", environment[f"HANGAR_TEST_POSTGRES_STANDBY_{index}_URL"],
                environment.get(f"HANGAR_TEST_POSTGRES_STANDBY_{index}_DATA", "")))
            index += 1
        self.promoted: Optional[PostgresNode] = None

    @property
    def writable(self) -> PostgresNode:
        """The server that is the primary now."""
        return self.promoted or self.primary

    def url_for_servers(self, failover: bool) -> str:
        """The store's URL: the primary, and with `failover` the synchronous standby too (libpq's host list)."""
        if not failover or not self.standbys:
            return self.primary.url
        parts = urlsplit(self.primary.url)
        credentials = parts.netloc.rpartition("@")[0]
        hosts = ",".join([self.primary.host_port, self.standbys[0].host_port])
        return parts._replace(netloc=f"{credentials}@{hosts}").geturl()

    def ctl_run(self, node: PostgresNode, *arguments: str, timeout: float = 90) -> None:
        if not self.ctl or not node.data:
            raise RuntimeError("the harness exported no pg_ctl or data folder (HANGAR_TEST_POSTGRES_CTL)")
        subprocess.run([self.ctl, "-D", node.data, *arguments], check=True, timeout=timeout,
                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)

    def restart_immediately(self) -> None:
        """`pg_ctl restart -m immediate` of the primary: no shutdown checkpoint, recovery from the WAL."""
        node = self.writable
        self.ctl_run(node, "restart", "-m", "immediate", "-w", "-t", "60", "-l",
                     os.path.join(node.data, "hangar-check.log"))

    def fail_over(self) -> PostgresNode:
        """The primary dies (stopped at once, never started again) and the synchronous standby is promoted."""
        if self.promoted or not self.standbys:
            raise RuntimeError("nothing to fail over to")
        self.ctl_run(self.primary, "stop", "-m", "immediate", "-w")
        self.ctl_run(self.standbys[0], "promote", "-w", "-t", "60")
        self.promoted = self.standbys[0]
        return self.promoted

    def query(self, node: PostgresNode, sql: str, timeout: float = 30) -> list:
        """Rows of `sql` on `node` (psql, tab-separated), as lists of text."""
        done = subprocess.run(["psql", node.url, "-X", "-At", "-F", "\t", "-v", "ON_ERROR_STOP=1", "-c", sql],
                              check=True, timeout=timeout, capture_output=True, text=True)
        return [line.split("\t") for line in done.stdout.splitlines() if line]


class Server:
    """One pilots-server process on a fixed port, which the nemesis kills, pauses and starts again."""

    def __init__(self, name: str, executable: str, arguments: list, log_folder: str, environment: dict):
        self.name = name
        self.port = free_port()
        self.executable = executable
        self.arguments = arguments
        self.log_path = os.path.join(log_folder, f"{name}.log")
        self.environment = environment
        self.process: Optional[subprocess.Popen] = None
        self.paused = False

    @property
    def base(self) -> str:
        return f"127.0.0.1:{self.port}"

    def start(self, timeout: float = 120) -> None:
        log = open(self.log_path, "ab")
        self.process = subprocess.Popen(
            [self.executable, *self.arguments, "--port", str(self.port)], stdout=subprocess.PIPE, stderr=log,
            env={**os.environ, **self.environment})
        log.close()
        deadline = time.monotonic() + timeout
        assert self.process.stdout is not None
        while time.monotonic() < deadline:
            line = self.process.stdout.readline()
            if not line:
                raise RuntimeError(f"{self.name} exited before listening (see {self.log_path})")
            if line.startswith(b"listening on "):
                threading.Thread(target=self._drain, args=(self.process.stdout,), daemon=True).start()
                return
        raise RuntimeError(f"{self.name} did not listen within {timeout} s")

    @staticmethod
    def _drain(stream) -> None:
        for _ in stream:
            pass

    def kill(self) -> None:
        if self.process and self.process.poll() is None:
            self.process.send_signal(signal.SIGKILL)
            self.process.wait()
        self.paused = False

    def pause(self) -> None:
        if self.process and self.process.poll() is None:
            self.process.send_signal(signal.SIGSTOP)
            self.paused = True

    def resume(self) -> None:
        if self.process and self.process.poll() is None and self.paused:
            self.process.send_signal(signal.SIGCONT)
        self.paused = False

    @property
    def running(self) -> bool:
        return self.process is not None and self.process.poll() is None

    def stop(self) -> None:
        if not self.process or self.process.poll() is not None:
            return
        self.resume()
        self.process.send_signal(signal.SIGTERM)
        try:
            self.process.wait(timeout=20)
        except subprocess.TimeoutExpired:
            self.kill()
