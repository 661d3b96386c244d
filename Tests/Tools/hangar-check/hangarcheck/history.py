"""The history hangar-check records: one operation per client call, written as Elle-style events."""

from __future__ import annotations

import json
import threading
import time
from dataclasses import dataclass, field
from typing import Optional


@dataclass(frozen=True, order=True)
class Token:
    """A Hangar-Token: the change sequence and, on PostgreSQL, the WAL position (SEQUENCE@HIGH/LOW)."""

    sequence: int
    wal: Optional[int] = None

    @staticmethod
    def parse(text: Optional[str]) -> Optional["Token"]:
        if not text:
            return None
        sequence, _, position = text.partition("@")
        if not sequence.isdigit():
            raise ValueError(f"not a Hangar-Token: {text!r}")
        wal = None
        if position:
            high, slash, low = position.partition("/")
            if not slash:
                raise ValueError(f"not a Hangar-Token: {text!r}")
            wal = (int(high, 16) << 32) | int(low, 16)
        return Token(int(sequence), wal)

    def covers(self, other: "Token") -> bool:
        """Whether a state as of this token includes everything `other` does (CommitToken.covers)."""
        if self.wal is not None and other.wal is not None:
            return self.wal >= other.wal
        return self.sequence >= other.sequence

    def newest(self, other: Optional["Token"]) -> "Token":
        if other is None:
            return self
        return other if other.covers(self) and not self.covers(other) else self

    def __str__(self) -> str:
        if self.wal is None:
            return str(self.sequence)
        return f"{self.sequence}@{self.wal >> 32:X}/{self.wal & 0xFFFFFFFF:X}"


@dataclass
class Op:
    """One client operation: an append of `value` to document `key`, or a read of it.

    `outcome` is "ok", "fail" (known not to have taken effect) or "unknown" (may have); times are seconds
    since the run started, on one monotonic clock.
    """

    index: int
    process: int
    session: bool  # whether the client echoes the newest token it saw
    f: str  # "append" or "read"
    key: str
    value: Optional[str] = None
    invoke: float = 0.0
    complete: Optional[float] = None
    outcome: Optional[str] = None
    sent_token: Optional[Token] = None
    token: Optional[Token] = None  # the answer's token
    revision: Optional[int] = None  # the append's new revision, or the revision read (0: no document)
    observed: Optional[list] = None  # a read's list of values
    server: Optional[str] = None
    attempts: int = 0
    error: Optional[str] = None
    trace: list = field(default_factory=list)  # each request: method, server, status, revision, token

    def events(self) -> list:
        invoke = {"type": "invoke", "index": self.index, "process": self.process, "f": self.f, "key": self.key,
                  "time": round(self.invoke, 6), "session": self.session}
        if self.value is not None:
            invoke["value"] = self.value
        if self.sent_token is not None:
            invoke["token"] = str(self.sent_token)
        if self.outcome is None:
            return [invoke]
        done = {"type": self.outcome, "index": self.index, "process": self.process, "f": self.f, "key": self.key,
                "time": round(self.complete or 0.0, 6), "attempts": self.attempts}
        for name in ("value", "revision", "observed", "server", "error", "trace"):
            if getattr(self, name) is not None:
                done[name] = getattr(self, name)
        if self.token is not None:
            done["token"] = str(self.token)
            done["sequence"] = self.token.sequence
        return [invoke, done]


@dataclass
class History:
    """Every operation of a run, in invocation order, and the clock they are timed on."""

    started: float = field(default_factory=time.monotonic)
    ops: list = field(default_factory=list)
    _lock: threading.Lock = field(default_factory=threading.Lock)

    def now(self) -> float:
        return time.monotonic() - self.started

    def begin(self, process: int, session: bool, f: str, key: str, value: Optional[str] = None) -> Op:
        with self._lock:
            op = Op(index=len(self.ops), process=process, session=session, f=f, key=key, value=value,
                    invoke=self.now())
            self.ops.append(op)
            return op

    def end(self, op: Op, outcome: str, **fields) -> None:
        for name, value in fields.items():
            setattr(op, name, value)
        op.outcome = outcome
        op.complete = self.now()

    def write(self, path: str) -> None:
        """Writes the events as JSON lines, ordered by time (an invoke before its completion)."""
        events = [event for op in self.ops for event in op.events()]
        events.sort(key=lambda event: (event["time"], event["type"] != "invoke"))
        with open(path, "w", encoding="utf-8") as out:
            for event in events:
                out.write(json.dumps(event, sort_keys=True) + "\n")
