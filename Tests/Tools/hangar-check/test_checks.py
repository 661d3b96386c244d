"""The checks on small histories made by hand: each one passes a correct history and names what a broken one
breaks. Run: python3 -m unittest discover -s Tests/Tools/hangar-check"""

import unittest

from hangarcheck import checks
from hangarcheck.history import Op, Token


def append(index, process, key, value, revision, start, end, outcome="ok", session=True):
    return Op(index=index, process=process, session=session, f="append", key=key, value=value, invoke=start,
              complete=end, outcome=outcome, revision=revision if outcome == "ok" else None)


def read(index, process, key, observed, start, end, session=True, sent=None, token=None):
    return Op(index=index, process=process, session=session, f="read", key=key, invoke=start, complete=end,
              outcome="ok", revision=len(observed), observed=list(observed), sent_token=sent, token=token)


def feed(*rows):
    return [(sequence, "pilots", key, revision, "save") for sequence, (key, revision) in enumerate(rows, 1)]


def failed(results):
    return sorted(result.name for result in results if not result.passed)


class ChecksTests(unittest.TestCase):
    def test_a_correct_history_passes_every_check(self):
        ops = [append(0, 0, "a", "x", 1, 0, 1), append(1, 1, "a", "y", 2, 2, 3), read(2, 0, "a", ["x", "y"], 4, 5)]
        final = checks.Final({"a": (2, ["x", "y"])}, feed(("a", 1), ("a", 2)),
                             replica_feeds={"standby1": (feed(("a", 1)), True)})
        self.assertEqual(failed(checks.run_all(ops, final)), [])

    def test_a_lost_update_and_a_duplicate_are_found(self):
        ops = [append(0, 0, "a", "x", 1, 0, 1), append(1, 1, "a", "y", 1, 0, 1)]
        lost = checks.appends_present_once(ops, checks.Final({"a": (1, ["y"])}, feed(("a", 1))))
        self.assertIn("lost update: a <- x", "\n".join(lost.problems))
        twice = checks.appends_present_once(ops[:1], checks.Final({"a": (2, ["x", "x"])}, []))
        self.assertIn("duplicate: a <- x", "\n".join(twice.problems))

    def test_a_failed_append_present_and_a_value_nobody_wrote_are_found(self):
        ops = [append(0, 0, "a", "x", None, 0, 1, outcome="fail")]
        result = checks.appends_present_once(ops, checks.Final({"a": (2, ["x", "z"])}, []))
        self.assertEqual(len(result.problems), 2)

    def test_a_stale_token_read_is_found(self):
        ops = [append(0, 0, "a", "x", 1, 0, 1), append(1, 0, "a", "y", 2, 2, 3),
               read(2, 0, "a", ["x"], 4, 5, sent=Token(9, 200), token=Token(8, 100))]
        result = checks.session_guarantees(ops)
        self.assertEqual(len(result.problems), 2)  # older than its token, and older than its own write

    def test_a_read_missing_an_earlier_write_in_real_time_is_a_cycle(self):
        # w1 (key a) completes before w2 (key b) starts; the session reads b after its own w2, then a without w1.
        ops = [append(0, 0, "a", "x", 1, 0, 1), append(1, 1, "b", "y", 1, 2, 3),
               read(2, 1, "b", ["y"], 4, 5), read(3, 1, "a", [], 6, 7)]
        final = checks.Final({"a": (1, ["x"]), "b": (1, ["y"])}, feed(("a", 1), ("b", 1)))
        result = checks.no_dependency_cycles(ops, final)
        self.assertEqual(len(result.problems), 1)
        self.assertTrue(result.problems[0].startswith("G-single"), result.problems[0])

    def test_without_tokens_the_same_reads_make_no_cycle(self):
        ops = [append(0, 0, "a", "x", 1, 0, 1), append(1, 1, "b", "y", 1, 2, 3),
               read(2, 2, "b", ["y"], 4, 5, session=False), read(3, 2, "a", [], 6, 7, session=False)]
        final = checks.Final({"a": (1, ["x"]), "b": (1, ["y"])}, feed(("a", 1), ("b", 1)))
        self.assertEqual(checks.no_dependency_cycles(ops, final).problems, [])

    def test_feed_gaps_doubles_and_missing_revisions_are_found(self):
        final = checks.Final({"a": (3, ["x", "y", "z"])},
                             [(1, "pilots", "a", 1, "save"), (3, "pilots", "a", 2, "save"),
                              (4, "pilots", "a", 2, "save")])
        problems = "\n".join(checks.feed_exactly_once(final, "pilots").problems)
        self.assertIn("jumps from 1 to 3", problems)
        self.assertIn("a@2 is in the feed 2 times", problems)
        self.assertIn("a@3 is committed but not in the feed", problems)

    def test_a_replica_feed_that_is_not_a_prefix_is_found(self):
        primary = feed(("a", 1), ("a", 2))
        final = checks.Final({"a": (2, ["x", "y"])}, primary,
                             replica_feeds={"standby1": ([primary[0], (2, "pilots", "b", 1, "save")], True),
                                            "standby2": ([(1, "pilots", "c", 1, "save")], False)})
        result = checks.feed_prefix_on_replicas(final)
        self.assertEqual(len(result.problems), 1)
        self.assertIn("standby1", result.problems[0])


if __name__ == "__main__":
    unittest.main()
