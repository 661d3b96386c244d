"""The faults: servers killed (SIGKILL) and paused (SIGSTOP), PostgreSQL restarted immediately, a standby
promoted after the primary dies."""

from __future__ import annotations

import random
import threading
import time


class Nemesis(threading.Thread):
    """Injects one fault every few seconds until `stop` is set; the promotion (if asked) happens once, midway."""

    def __init__(self, faults: list, servers: list, postgres, duration: float, seed: int, log, every: float = 3.0):
        super().__init__(daemon=True, name="nemesis")
        self.faults, self.servers, self.postgres, self.duration = faults, servers, postgres, duration
        self.every = every
        self.random, self.log = random.Random(seed), log
        self.stop = threading.Event()
        self.done: list = []
        self.errors: list = []

    def run(self) -> None:
        started = time.monotonic()
        promote_at = self.duration * self.random.uniform(0.4, 0.6) if "promote" in self.faults else None
        others = [fault for fault in self.faults if fault != "promote"]
        while not self.stop.wait(self.random.uniform(0.5 * self.every, 1.5 * self.every)):
            elapsed = time.monotonic() - started
            if promote_at is not None and elapsed >= promote_at:
                promote_at = None
                self.inject("promote")
            elif others:
                self.inject(self.random.choice(others))

    def inject(self, fault: str) -> None:
        self.log(f"nemesis: {fault}")
        try:
            if fault == "kill":
                server = self.random.choice(self.servers)
                server.kill()
                time.sleep(self.random.uniform(0.3, 1.5))
                server.start()
            elif fault == "pause":
                server = self.random.choice(self.servers)
                server.pause()
                # Often longer than a client's timeout: the client sends again elsewhere while this one holds the
                # request, which it may have committed without answering.
                time.sleep(self.random.uniform(0.5, 3.0))
                server.resume()
            elif fault == "restart":
                self.postgres.restart_immediately()
            elif fault == "promote":
                node = self.postgres.fail_over()
                self.log(f"nemesis: {node.name} promoted; the old primary stays down")
            self.done.append(fault)
        except Exception as error:  # a fault that could not be injected is reported, never hidden
            self.errors.append(f"{fault}: {error}")

    def heal(self) -> None:
        """Ends the faults: every server running and answering."""
        self.stop.set()
        self.join(timeout=120)
        for server in self.servers:
            server.resume()
            if not server.running:
                server.start()
