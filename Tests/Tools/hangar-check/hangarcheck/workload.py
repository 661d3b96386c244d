"""The clients: a list-append workload over HTTP on pilot documents (each append adds an airplane with a unique
registration number), and reads, with and without the session's newest Hangar-Token."""

from __future__ import annotations

import http.client
import json
import random
import threading
import time
import uuid
from collections import Counter
from typing import Optional

from .history import History, Op, Token

COLLECTION = "pilots"
# What an answer may be under faults: a definite answer of the API, or the server unreachable for a moment.
EXPECTED_STATUSES = {200, 201, 404, 412, 503}


class Answer:
    def __init__(self, status: int, headers: dict, body: bytes, server: str):
        self.status, self.headers, self.body, self.server = status, headers, body, server

    @property
    def token(self) -> Optional[Token]:
        return Token.parse(self.headers.get("hangar-token"))

    @property
    def revision(self) -> Optional[int]:
        tag = self.headers.get("etag", "").strip('"')
        return int(tag) if tag.isdigit() else None


class Unreachable(Exception):
    """No answer: refused, reset, or no answer within the timeout (the request may or may not have run)."""


def document(key: str, values: list) -> bytes:
    airplanes = [{"class": "Airplane", "model": "hangar-check", "registrationNumber": value, "airframeHours": 0}
                 for value in values]
    return json.dumps({"majorVersion": 2, "minorVersion": 0, "name": f"check {key}", "airplanes": airplanes},
                      separators=(",", ":")).encode()


def values_of(body: bytes) -> list:
    return [plane["registrationNumber"] for plane in json.loads(body).get("airplanes", [])]


class Client(threading.Thread):
    """One client process of the history: appends and reads on random documents until `stop` is set."""

    def __init__(self, process: int, session: bool, servers: list, keys: list, history: History,
                 stop: threading.Event, seed: int, statuses: Counter, timeout: float = 3.0):
        super().__init__(daemon=True, name=f"client{process}")
        self.process, self.session, self.servers, self.keys = process, session, servers, keys
        self.history, self.stop, self.random = history, stop, random.Random(seed)
        self.statuses, self.timeout = statuses, timeout
        self.newest: Optional[Token] = None
        self.appended = 0
        self.errors: list = []

    def run(self) -> None:
        while not self.stop.is_set():
            key = self.random.choice(self.keys)
            if self.random.random() < 0.6:
                self.append(key)
            else:
                self.read(key)

    # One request to a random server (another one when it is refused).
    def request(self, method: str, key: str, body: Optional[bytes] = None, headers: Optional[dict] = None,
                server=None, op: Optional[Op] = None) -> Answer:
        server = server or self.random.choice(self.servers)
        connection = http.client.HTTPConnection(server.base, timeout=self.timeout)
        try:
            connection.request(method, f"/{COLLECTION}/{key}", body=body, headers=headers or {})
            response = connection.getresponse()
            payload = response.read()
            answer = Answer(response.status, {k.lower(): v for k, v in response.getheaders()}, payload, server.name)
        except (OSError, http.client.HTTPException) as error:
            self.statuses[type(error).__name__] += 1
            if op is not None:
                op.trace.append(f"{method} {server.name} {type(error).__name__}")
            raise Unreachable(f"{server.name}: {type(error).__name__}") from error
        finally:
            connection.close()
        self.statuses[answer.status] += 1
        if op is not None:
            op.trace.append(f"{method} {server.name} {answer.status} r{answer.revision} t{answer.token}")
        if answer.status >= 500 and answer.status != 503:
            self.errors.append(f"{method} /{COLLECTION}/{key}: HTTP {answer.status} {answer.body[:300]!r}")
        if self.session and answer.token:
            self.newest = answer.token.newest(self.newest)
        return answer

    def token_headers(self) -> dict:
        headers = {"Accept": "application/json"}
        if self.session and self.newest:
            headers["Hangar-Token"] = str(self.newest)
        return headers

    def read(self, key: str) -> None:
        op = self.history.begin(self.process, self.session, "read", key)
        headers = self.token_headers()
        op.sent_token = Token.parse(headers.get("Hangar-Token"))
        try:
            answer = self.request("GET", key, headers=headers, op=op)
        except Unreachable as error:
            self.history.end(op, "fail", error=str(error))
            return
        if answer.status == 200:
            self.history.end(op, "ok", revision=answer.revision, observed=values_of(answer.body),
                             token=answer.token, server=answer.server, attempts=1)
        elif answer.status == 404:
            self.history.end(op, "ok", revision=0, observed=[], token=answer.token, server=answer.server, attempts=1)
        else:
            self.history.end(op, "fail", error=f"HTTP {answer.status}", server=answer.server)

    def append(self, key: str) -> None:
        self.appended += 1
        value = f"p{self.process}-{self.appended}"
        op = self.history.begin(self.process, self.session, "append", key, value)
        op.sent_token = self.newest if self.session else None
        deadline = time.monotonic() + 40
        while time.monotonic() < deadline:
            try:
                current = self.request("GET", key, headers=self.token_headers(), op=op)
            except Unreachable:
                time.sleep(0.05)
                continue
            if current.status not in (200, 404):
                time.sleep(0.05)
                continue
            values = values_of(current.body) if current.status == 200 else []
            headers = {"Content-Type": "application/json", "Idempotency-Key": str(uuid.uuid4())}
            if current.status == 200:
                headers["If-Match"] = f'"{current.revision}"'
            else:
                headers["If-None-Match"] = "*"
            op.attempts += 1
            answer = self.put_until_known(key, document(key, values + [value]), headers, deadline, op)
            if answer is None:
                self.history.end(op, "unknown", error="no definite answer before the deadline")
                return
            if answer.status in (200, 201):
                self.history.end(op, "ok", revision=answer.revision, token=answer.token, server=answer.server)
                return
            if answer.status != 412:
                self.history.end(op, "fail", error=f"HTTP {answer.status}: {answer.body[:200]!r}",
                                 server=answer.server)
                return
            time.sleep(self.random.uniform(0, 0.02))  # someone else appended first: read again
        self.history.end(op, "fail", error="every attempt met a newer revision")

    def put_until_known(self, key: str, body: bytes, headers: dict, deadline: float, op: Op) -> Optional[Answer]:
        """The same PUT (same Idempotency-Key) until a definite answer: a retry after a lost answer is safe."""
        while time.monotonic() < deadline:
            try:
                answer = self.request("PUT", key, body=body, headers=headers, op=op)
            except Unreachable:
                time.sleep(0.05)
                continue
            if answer.status == 503:
                time.sleep(0.05)
                continue
            return answer
        return None
