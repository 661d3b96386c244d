#!/usr/bin/env python3
"""hangar-check: a consistency checker for Hangar on PostgreSQL with replicas, in the manner of Jepsen's Elle.

Run under the harness, with pilots-server built:

    Scripts/with-postgres.sh --standbys 2 --delay 500 \\
        python3 Tests/Tools/hangar-check/hangar_check.py --server .build/debug/pilots-server --out .build/hangar-check

It starts pilots-server instances on the primary (reads on the standbys), runs clients doing a list-append
workload over HTTP while it kills and pauses servers, restarts PostgreSQL immediately and promotes a standby,
records the history (history.jsonl), checks it, prints one line per check and, last,
`hangar-check: N passed, M failed`. With --expect-caught CHECK (a build with a planted fault), it succeeds only
when that check fails.
"""

from __future__ import annotations

import argparse
import os
import plistlib
import random
import sys
import threading
import time
from collections import Counter

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from hangarcheck import checks  # noqa: E402
from hangarcheck.cluster import Postgres, Server  # noqa: E402
from hangarcheck.history import History  # noqa: E402
from hangarcheck.nemesis import Nemesis  # noqa: E402
from hangarcheck.workload import COLLECTION, EXPECTED_STATUSES, Client  # noqa: E402

FAULTS = ("kill", "pause", "restart", "promote")


def arguments() -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="hangar-check", description=__doc__.split("\n\n")[0])
    parser.add_argument("--server", required=True, help="the pilots-server executable")
    parser.add_argument("--out", required=True, help="a folder for the history, the verdict and the logs")
    parser.add_argument("--servers", type=int, default=2, help="pilots-server instances (default 2)")
    parser.add_argument("--clients", type=int, default=8, help="clients; half echo tokens (default 8)")
    parser.add_argument("--keys", type=int, default=6, help="documents appended to (default 6)")
    parser.add_argument("--duration", type=float, default=60, help="seconds of workload (default 60)")
    parser.add_argument("--faults", default="kill,pause,restart,promote",
                        help=f"comma-separated, of {', '.join(FAULTS)}; 'none' for none")
    parser.add_argument("--fault-every", type=float, default=3.0, help="seconds between faults, on average (3)")
    parser.add_argument("--client-timeout", type=float, default=2.0,
                        help="seconds a client waits for an answer before sending again (default 2)")
    parser.add_argument("--seed", type=int, default=None, help="the random seed (default: a fresh one, printed)")
    parser.add_argument("--server-env", action="append", default=[], metavar="NAME=VALUE",
                        help="an environment variable for the servers (a planted fault's switch)")
    parser.add_argument("--expect-caught", metavar="CHECK", help="succeed only if CHECK fails (planted faults)")
    options = parser.parse_args()
    faults = [] if options.faults == "none" else options.faults.split(",")
    unknown = [fault for fault in faults if fault not in FAULTS]
    if unknown:
        parser.error(f"unknown faults {unknown}: use {', '.join(FAULTS)}")
    options.fault_list = faults
    return options


def final_state(postgres: Postgres, schema: str) -> checks.Final:
    """The documents and feeds as PostgreSQL holds them, read directly (psql), once numbering has settled."""
    primary = postgres.writable
    for _ in range(200):
        if postgres.query(primary, f"SELECT count(*) FROM {schema}.pending_changes")[0][0] == "0":
            break
        time.sleep(0.1)
    documents = {}
    for key, revision, body in postgres.query(
            primary, f"SELECT key, revision, encode(body, 'hex') FROM {schema}.documents "
                     f"WHERE collection = '{COLLECTION}'"):
        envelope = plistlib.loads(bytes.fromhex(body))
        values = [plane["registrationNumber"] for plane in envelope.get("airplanes", [])]
        documents[key] = (int(revision), values)
    feed_sql = f"SELECT sequence, collection, key, revision, kind FROM {schema}.changes ORDER BY sequence"

    def rows(node) -> list:
        return [(int(s), c, k, int(r), kind) for s, c, k, r, kind in postgres.query(node, feed_sql)]

    pruned = int(postgres.query(primary, f"SELECT pruned_through FROM {schema}.change_counter")[0][0])
    replicas = {}
    for standby in postgres.standbys:
        if standby is postgres.promoted:
            continue
        try:
            replicas[standby.name] = (rows(standby), postgres.promoted is None)
        except Exception as error:  # a standby that cannot be read is a finding, not a crash
            replicas[standby.name] = ([(0, "unreadable", str(error), 0, "")], True)
    return checks.Final(documents=documents, feed=rows(primary), pruned_through=pruned, replica_feeds=replicas)


def answers_check(statuses: Counter, clients: list, nemesis: Nemesis) -> checks.Result:
    """Every answer is one the API documents (a 500 is a bug), and every planned fault was injected."""
    unexpected = {status: count for status, count in statuses.items()
                  if isinstance(status, int) and status not in EXPECTED_STATUSES}
    problems = [f"HTTP {status} answered {count} times" for status, count in sorted(unexpected.items())]
    problems += [error for client in clients for error in client.errors]
    problems += [f"a fault could not be injected: {error}" for error in nemesis.errors]
    summary = ", ".join(f"{status}: {count}" for status, count in sorted(statuses.items(), key=str))
    return checks.Result("answers", problems, f"{summary}; faults {dict(Counter(nemesis.done))}")


def main() -> int:
    options = arguments()
    os.makedirs(options.out, exist_ok=True)
    seed = options.seed if options.seed is not None else random.randrange(1 << 32)
    log_path = os.path.join(options.out, "run.log")
    log_file = open(log_path, "w", encoding="utf-8")
    lock = threading.Lock()

    def log(line: str) -> None:
        with lock:
            log_file.write(f"{time.strftime('%H:%M:%S')} {line}\n")
            log_file.flush()

    postgres = Postgres()
    if "promote" in options.fault_list and not postgres.standbys:
        print("hangar-check: the promote fault needs standbys (Scripts/with-postgres.sh --standbys 2)")
        return 2
    schema = f"hangar_check_{seed}"
    server_arguments = ["--url", postgres.url_for_servers("promote" in options.fault_list), "--schema", schema,
                        "--log-level", "warning", "--max-body-size", str(8 << 20)]
    for standby in postgres.standbys:
        server_arguments += ["--replica-url", standby.url]
    environment = dict(item.split("=", 1) for item in options.server_env)
    servers = [Server(f"server{i + 1}", options.server, server_arguments, options.out, environment)
               for i in range(options.servers)]
    print(f"hangar-check: seed {seed}, {options.servers} servers, {options.clients} clients, {options.keys} "
          f"documents, {options.duration:.0f} s, faults {','.join(options.fault_list) or 'none'}")
    for server in servers:
        server.start()
    history = History()
    stop = threading.Event()
    statuses: Counter = Counter()
    keys = [f"doc{i}" for i in range(options.keys)]
    clients = [Client(i, i % 2 == 0, servers, keys, history, stop, seed + i, statuses, options.client_timeout)
               for i in range(options.clients)]
    nemesis = Nemesis(options.fault_list, servers, postgres, options.duration, seed, log, options.fault_every)
    try:
        for client in clients:
            client.start()
        nemesis.start()
        time.sleep(options.duration)
        nemesis.heal()
        stop.set()
        for client in clients:
            client.join(timeout=90)
        final = final_state(postgres, schema)
    finally:
        for server in servers:
            server.stop()
    history.write(os.path.join(options.out, "history.jsonl"))
    results = [answers_check(statuses, clients, nemesis)] + checks.run_all(history.ops, final)
    lines = [line for result in results for line in result.lines()]
    failed = [result.name for result in results if not result.passed]
    lines.append(f"hangar-check: {len(results) - len(failed)} passed, {len(failed)} failed")
    with open(os.path.join(options.out, "verdict.txt"), "w", encoding="utf-8") as verdict:
        verdict.write("\n".join(lines) + "\n")
    print("\n".join(lines))
    if options.expect_caught:
        caught = options.expect_caught in failed
        print(f"hangar-check: the planted fault was {'caught' if caught else 'NOT caught'} by "
              f"'{options.expect_caught}'")
        return 0 if caught else 1
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
