#!/usr/bin/env python3
"""Unit checks of client_report.py's intervals and "ahead" rule, against testdata/client-sample.json
(a synthetic client-bench run whose rows have known outcomes). Standard library only; run by
bench/run.sh --self-check, or alone: python3 bench/report/test_client_report.py"""
import json
import math
import os
import shutil
import sys
import tempfile
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import client_report as cr  # noqa: E402

SAMPLE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "testdata", "client-sample.json")


def write_json(path, doc):
    with open(path, "w") as f:
        json.dump(doc, f)


class Intervals(unittest.TestCase):
    def test_t_quantiles(self):
        self.assertEqual(cr.t95(2), 4.303)
        self.assertEqual(cr.t95(14), 2.145)
        self.assertEqual(cr.t95(35), 2.042)  # between entries: the smaller degrees of freedom
        self.assertEqual(cr.t95(10_000), 1.980)

    def test_three_forks_use_the_fork_means(self):
        s = cr.Score([[9, 11], [12, 12], [13, 15]])  # fork means 10, 12, 14: sd 2
        self.assertEqual((s.basis, s.forks, s.n), ("forks", 3, 6))
        self.assertAlmostEqual(s.mean, 12)
        self.assertAlmostEqual(s.half, 4.303 * 2 / math.sqrt(3))
        # the spread inside a fork does not narrow or widen it
        self.assertAlmostEqual(cr.Score([[10, 10], [12, 12], [14, 14]]).half, s.half)

    def test_fewer_forks_pool_the_iterations(self):
        s = cr.Score([[10, 12, 14]])
        self.assertEqual((s.basis, s.forks), ("iterations", 1))
        self.assertAlmostEqual(s.half, 4.303 * 2 / math.sqrt(3))
        s = cr.Score([[10, 12], [14, 16]])
        self.assertEqual(s.basis, "iterations")
        self.assertAlmostEqual(s.half, 3.182 * math.sqrt(20 / 3) / 2)

    def test_one_value_has_no_interval(self):
        s = cr.Score([[10]])
        self.assertIsNone(s.half)
        self.assertEqual(cr.position(s, cr.Score([[1, 1.1], [1, 1.1], [1, 1.1]])), "overlap")


class AheadRule(unittest.TestCase):
    @staticmethod
    def score(mean, half):
        s = cr.Score([[mean - 1, mean + 1]])
        s.mean, s.half = mean, half
        return s

    def test_position(self):
        self.assertEqual(cr.position(self.score(100, 10), self.score(50, 10)), "above")
        self.assertEqual(cr.position(self.score(50, 10), self.score(100, 10)), "below")
        self.assertEqual(cr.position(self.score(100, 10), self.score(85, 10)), "overlap")
        self.assertEqual(cr.position(self.score(100, 10), self.score(80, 10)), "overlap")  # touching is not apart

    def test_sample_rows(self):
        cells, _ = cr.load(SAMPLE)
        key = lambda mode, method, size, proto: ("NO_COPY", mode, method, size, proto, "false")
        self.assertEqual(cr.verdict(cells, key("oneCaller", "GET", 1, "H1")), "ahead")
        self.assertEqual(cr.verdict(cells, key("oneCaller", "GET", 1, "H2")), "overlap")
        self.assertEqual(cr.verdict_cell(cells, key("oneCaller", "GET", 1, "H2")), "≈ Jetty")
        self.assertEqual(cr.verdict(cells, key("inFlight64", "POST", 8192, "H1")), "behind")
        self.assertEqual(cr.verdict_cell(cells, key("inFlight64", "POST", 8192, "H1")), "behind Jetty")
        c = cr.counts(cells)
        self.assertEqual((c["ahead"], c["overlap"], c["behind"], c["total"]), (1, 1, 1, 3))
        self.assertEqual((c["small_h2_met"], c["small_h2"]), (1, 1))
        self.assertEqual(cr.copying_counts(cells), (1, 1))

    def test_generated_text(self):
        cells, meta = cr.load(SAMPLE)
        text = cr.generated(cells, meta, SAMPLE, None)
        self.assertIn("| GET | 1 B | 1.1 | no | 100 ± 5 | 200 ± 25 | 300 ± 25 | 3.00 | 1.50 | **ahead** |", text)
        self.assertIn("on **1 of 3** rows of the main table", text)
        self.assertIn("3 forks: 2 degrees of freedom, t = 4.30", text)
        self.assertIn("| 64 in flight | 8 KiB | 1.1 | no | 80 ± 5 | 150 ± 12 | 1.88 | **ahead** | 0.80 | 0.50 |", text)
        self.assertNotIn("too narrow", text)


class Formats(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.mkdtemp()

    def tearDown(self):
        shutil.rmtree(self.dir)

    def test_a_file_without_format_2_is_refused(self):
        path = os.path.join(self.dir, "client-old.json")
        shutil.copy(SAMPLE, path)
        with self.assertRaises(cr.OldFormat):
            cr.load(path)  # no .meta.json
        write_json(os.path.join(self.dir, "client-old.meta.json"), {"run_id": "client-old", "quick": False})
        with self.assertRaisesRegex(cr.OldFormat, "git show"):
            cr.load(path)

    def test_few_forks_are_flagged(self):
        runs = cr.read_json(SAMPLE)
        for r in runs:
            r["primaryMetric"]["rawData"] = r["primaryMetric"]["rawData"][:1]
        path = os.path.join(self.dir, "client-onefork.json")
        write_json(path, runs)
        shutil.copy(SAMPLE.replace(".json", ".meta.json"), path.replace(".json", ".meta.json"))
        cells, meta = cr.load(path)
        self.assertIn("too narrow", cr.generated(cells, meta, path, None))


if __name__ == "__main__":
    unittest.main()
