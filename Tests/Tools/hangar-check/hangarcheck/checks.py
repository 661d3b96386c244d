"""The checks hangar-check runs on a history, the final documents and the change feeds."""

from __future__ import annotations

from collections import Counter, defaultdict
from dataclasses import dataclass, field

import networkx


@dataclass
class Final:
    """What the store holds after the run: each document's revision and list, and its change feeds."""

    documents: dict  # key -> (revision, [values])
    feed: list  # the primary's changes: (sequence, collection, key, revision, kind), by sequence
    pruned_through: int = 0
    replica_feeds: dict = field(default_factory=dict)  # name -> (rows, on the primary's timeline?)


@dataclass
class Result:
    name: str
    problems: list
    summary: str

    @property
    def passed(self) -> bool:
        return not self.problems

    def lines(self, limit: int = 8) -> list:
        head = f"{'ok  ' if self.passed else 'FAIL'} {self.name}: {self.summary}"
        return [head] + [f"       {problem}" for problem in self.problems[:limit]] + (
            [f"       ... and {len(self.problems) - limit} more"] if len(self.problems) > limit else [])


def run_all(ops: list, final: Final, collection: str = "pilots") -> list:
    return [
        appends_present_once(ops, final),
        revisions_one_value_each(ops, final),
        no_dependency_cycles(ops, final),
        session_guarantees(ops),
        feed_exactly_once(final, collection),
        feed_prefix_on_replicas(final),
    ]


def _appends(ops: list) -> list:
    return [op for op in ops if op.f == "append"]


def appends_present_once(ops: list, final: Final) -> Result:
    """Every acknowledged append present exactly once, every failed one absent, an unknown one at most once, and
    no value that nobody appended."""
    problems = []
    counts = {key: Counter(values) for key, (_, values) in final.documents.items()}
    attempted = defaultdict(set)
    tally = Counter()
    for op in _appends(ops):
        attempted[op.key].add(op.value)
        found = counts.get(op.key, Counter())[op.value]
        tally[op.outcome] += 1
        if op.outcome == "ok" and found != 1:
            kind = "lost update" if found == 0 else "duplicate"
            problems.append(f"{kind}: {op.key} <- {op.value} acknowledged (revision {op.revision}) "
                            f"but present {found} times")
        elif op.outcome == "fail" and found != 0:
            problems.append(f"{op.key} <- {op.value} reported failed but present {found} times")
        elif op.outcome == "unknown" and found > 1:
            problems.append(f"duplicate: {op.key} <- {op.value} (outcome unknown) present {found} times")
    for key, values in counts.items():
        for value, count in values.items():
            if value not in attempted[key]:
                problems.append(f"{key} holds {value!r}, which no client appended")
    return Result("appends", problems,
                  f"{tally['ok']} acknowledged, {tally['fail']} failed, {tally['unknown']} unknown appends against "
                  f"{len(final.documents)} documents")


def revisions_one_value_each(ops: list, final: Final) -> Result:
    """Revisions of a document are strictly increasing with one value each: revision r is the final list's first r
    values, every acknowledged append's value is at its revision's place, and every read saw one of them."""
    problems = []
    seen = 0
    for op in ops:
        if op.outcome != "ok":
            continue
        revision, values = final.documents.get(op.key, (0, []))
        if op.f == "append":
            seen += 1
            position = op.revision - 1 if op.revision else -1
            if not 0 <= position < len(values) or values[position] != op.value:
                problems.append(f"{op.key}: append of {op.value} answered revision {op.revision}, but that "
                                f"revision holds {values[position] if 0 <= position < len(values) else 'nothing'}")
        else:
            seen += 1
            observed = op.observed or []
            if op.revision != len(observed):
                problems.append(f"{op.key}: a read saw revision {op.revision} with {len(observed)} values")
            elif observed != values[:len(observed)]:
                problems.append(f"{op.key}: a read saw revision {op.revision} as {observed[-3:]}..., not the "
                                f"final order's {values[max(0, len(observed) - 3):len(observed)]}")
    for key, (revision, values) in final.documents.items():
        if revision != len(values):
            problems.append(f"{key}: stored at revision {revision} with {len(values)} values")
    per_key = defaultdict(Counter)
    for op in _appends(ops):
        if op.outcome == "ok":
            per_key[op.key][op.revision] += 1
    for key, revisions in per_key.items():
        for revision, count in revisions.items():
            if count > 1:
                problems.append(f"{key}: {count} acknowledged appends answered revision {revision}")
    return Result("revisions", problems, f"{seen} answers agree with one version order per document")


def _realtime_edges(ops: list) -> list:
    """Real-time order among acknowledged appends (writes are linearizable at the primary), transitively reduced:
    an edge from each write on the frontier of those completed before another began."""
    events = []
    for op in ops:
        events.append((op.invoke, 1, op))
        events.append((op.complete, 0, op))
    events.sort(key=lambda event: (event[0], event[1]))
    frontier: set = set()
    before: dict = {}
    edges = []
    for _, kind, op in events:
        if kind == 1:
            before[op.index] = set(frontier)
            edges.extend((previous, op.index) for previous in frontier)
        else:
            frontier -= before.get(op.index, set())
            frontier.add(op.index)
    return edges


def _dependency_graph(ops: list, final: Final) -> networkx.DiGraph:
    graph = networkx.DiGraph()

    def add(a: int, b: int, kind: str) -> None:
        if a == b:
            return
        if graph.has_edge(a, b):
            graph[a][b]["kinds"].add(kind)
        else:
            graph.add_edge(a, b, kinds={kind})

    writer = {}
    for op in _appends(ops):
        if op.outcome in ("ok", "unknown"):
            writer[(op.key, op.value)] = op.index
    order = {key: [writer.get((key, value)) for value in values] for key, (_, values) in final.documents.items()}
    for key, writers in order.items():
        for a, b in zip(writers, writers[1:]):
            if a is not None and b is not None:
                add(a, b, "ww")
    for op in ops:
        if op.f != "read" or op.outcome != "ok":
            continue
        writers = order.get(op.key, [])
        seen = len(op.observed or [])
        if seen and seen <= len(writers) and writers[seen - 1] is not None:
            add(writers[seen - 1], op.index, "wr")
        if seen < len(writers) and writers[seen] is not None:
            add(op.index, writers[seen], "rw")
    by_process = defaultdict(list)
    for op in ops:
        if op.outcome == "ok" and (op.session or op.f == "append"):
            by_process[op.process].append(op)
    for process_ops in by_process.values():
        process_ops.sort(key=lambda op: op.invoke)
        for a, b in zip(process_ops, process_ops[1:]):
            add(a.index, b.index, "process")
    writes = [op for op in _appends(ops) if op.outcome == "ok"]
    for a, b in _realtime_edges(writes):
        add(a, b, "realtime")
    return graph


def _classify(kinds: list) -> str:
    """Elle's names: G0 (write cycles), G1c (with write-read), G-single (one anti-dependency), G2 (several)."""
    data = [k for k in kinds if k in ("ww", "wr", "rw")]
    anti = sum(1 for k in data if k == "rw")
    name = "G0" if all(k == "ww" for k in data) else "G1c" if anti == 0 else "G-single" if anti == 1 else "G2"
    extra = sorted({k for k in kinds if k in ("process", "realtime")})
    return name + ("-" + "-".join(extra) if extra else "")


def no_dependency_cycles(ops: list, final: Final) -> Result:
    """No cycle among write-write, write-read and read-write dependencies, with the real-time order of writes and
    the session order of token clients (Elle's G0, G1c, G-single, G2 on documents)."""
    graph = _dependency_graph(ops, final)
    problems = []
    by_index = {op.index: op for op in ops}
    for component in networkx.strongly_connected_components(graph):
        if len(component) < 2:
            continue
        cycle = networkx.find_cycle(graph.subgraph(component))
        kinds = [sorted(graph[a][b]["kinds"])[0] for a, b in cycle]
        steps = " -> ".join(
            f"{by_index[a].f}({by_index[a].key},{by_index[a].value or by_index[a].revision})[{kind}]"
            for (a, _), kind in zip(cycle, kinds))
        problems.append(f"{_classify(kinds)}: {steps}")
    return Result("cycles", problems,
                  f"{graph.number_of_nodes()} operations, {graph.number_of_edges()} dependency edges")


def session_guarantees(ops: list) -> Result:
    """For clients that echo the newest token: read your writes, monotonic reads, and answers never older than
    the token sent."""
    problems = []
    checked = 0
    by_process = defaultdict(list)
    for op in ops:
        if op.session and op.outcome == "ok":
            by_process[op.process].append(op)
    for process, process_ops in by_process.items():
        process_ops.sort(key=lambda op: op.invoke)
        floor = defaultdict(int)  # key -> the newest revision this session wrote or read
        for op in process_ops:
            if op.sent_token and op.token and not op.token.covers(op.sent_token):
                problems.append(f"process {process}: sent token {op.sent_token}, answered as of {op.token}")
            if op.f == "append":
                floor[op.key] = max(floor[op.key], op.revision or 0)
                continue
            checked += 1
            if (op.revision or 0) < floor[op.key]:
                problems.append(f"stale read: process {process} read {op.key} at revision {op.revision} after "
                                f"seeing revision {floor[op.key]} (token {op.sent_token})")
            floor[op.key] = max(floor[op.key], op.revision or 0)
    return Result("sessions", problems, f"{checked} token reads in {len(by_process)} sessions: read-your-writes, "
                                        "monotonic reads, never older than the token")


def feed_exactly_once(final: Final, collection: str) -> Result:
    """The change feed has each committed revision exactly once, numbered without gaps, per-document order equal
    to revision order."""
    problems = []
    sequences = [row[0] for row in final.feed]
    for a, b in zip(sequences, sequences[1:]):
        if b != a + 1:
            problems.append(f"the feed jumps from {a} to {b}" if b > a else f"the feed repeats or goes back: {a}, {b}")
    if sequences and sequences[0] != final.pruned_through + 1:
        problems.append(f"the feed starts at {sequences[0]}, after pruning through {final.pruned_through}")
    mine = [row for row in final.feed if row[1] == collection]
    counts = Counter((row[2], row[3]) for row in mine)
    for (key, revision), count in counts.items():
        if count > 1:
            problems.append(f"{key}@{revision} is in the feed {count} times")
    last = {}
    for _, _, key, revision, _ in mine:
        if revision <= last.get(key, 0):
            problems.append(f"{key}: revision {revision} follows {last[key]} in the feed")
        last[key] = revision
    for key, (revision, _) in final.documents.items():
        for number in range(1, revision + 1):
            if (key, number) not in counts:
                problems.append(f"{key}@{number} is committed but not in the feed")
        if last.get(key, 0) > revision:
            problems.append(f"{key}: the feed has revision {last[key]}, the document is at {revision}")
    return Result("feed", problems, f"{len(mine)} changes of {collection}, sequences "
                                    f"{sequences[0] if sequences else '-'}…{sequences[-1] if sequences else '-'}")


def feed_prefix_on_replicas(final: Final) -> Result:
    """Every replica following the primary's timeline holds a prefix of the primary's feed."""
    problems = []
    notes = []
    primary = {row[0]: row for row in final.feed}
    for name, (rows, current) in sorted(final.replica_feeds.items()):
        if not current:
            notes.append(f"{name}: on an old timeline, not used, not checked")
            continue
        last = max((row[0] for row in rows), default=final.pruned_through)
        notes.append(f"{name}: through {last}")
        for row in rows:
            if primary.get(row[0]) != row:
                problems.append(f"{name}: change {row[0]} is {row[1:]}, the primary's is "
                                f"{primary.get(row[0], (None,))[1:] or 'missing'}")
        missing = [s for s in primary if s <= last and s not in {row[0] for row in rows}]
        if missing:
            problems.append(f"{name}: missing {len(missing)} changes below its last ({missing[:5]})")
    return Result("replica feeds", problems, "; ".join(notes) or "no replicas")
