#!/usr/bin/env python3
"""Unit checks of glance.py: the target verdicts (met / met on the mean / not met), the rows it
renders from small synthetic results files, the pending client line, the client headline from
testdata/client-sample.json (the synthetic run test_client_report.py uses), and that the block is
written once and then checked. Standard library only; run by bench/run.sh --self-check, or alone:
python3 bench/report/test_glance.py"""
import contextlib
import io
import json
import math
import os
import shutil
import sys
import tempfile
import unittest

sys.dont_write_bytecode = True
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import glance as g  # noqa: E402

TESTDATA = os.path.join(os.path.dirname(os.path.abspath(__file__)), "testdata")
CLIENT_SAMPLE = os.path.join(TESTDATA, "client-sample.json")


def write_json(path, doc):
    with open(path, "w") as f:
        json.dump(doc, f)


def read(path):
    with open(path) as f:
        return f.read()


class Verdicts(unittest.TestCase):
    F = g.Figure

    def test_at_least(self):
        self.assertEqual(g.at_least(self.F(100, 5), self.F(100, 5), 0.8), g.MET)        # 95 >= 0.8 x 105
        self.assertEqual(g.at_least(self.F(100, 30), self.F(100, 5), 0.8), g.MET_ON_MEAN)  # 70 < 84, 100 >= 80
        self.assertEqual(g.at_least(self.F(50, 1), self.F(100, 1), 0.8), g.NOT_MET)
        self.assertEqual(g.at_least(self.F(80, 0), self.F(100, 0), 0.8), g.MET)          # reaching the target meets it

    def test_at_most(self):
        self.assertEqual(g.at_most(self.F(50, 5), self.F(20, 1), 3), g.MET)              # 55 <= 57
        self.assertEqual(g.at_most(self.F(55, 10), self.F(20, 1), 3), g.MET_ON_MEAN)     # 65 > 57, 55 <= 60
        self.assertEqual(g.at_most(self.F(90, 10), self.F(20, 1), 3), g.NOT_MET)

    def test_below_is_strict(self):
        self.assertEqual(g.below(self.F(3, 1), 5), g.MET)
        self.assertEqual(g.below(self.F(3.25, 3.4), 5), g.MET_ON_MEAN)
        self.assertEqual(g.below(self.F(4, 1), 5), g.MET_ON_MEAN)                        # upper end on the limit
        self.assertEqual(g.below(self.F(62, 190), 5), g.NOT_MET)

    def test_none_of(self):
        self.assertEqual(g.none_of(self.F(0, 0)), g.MET)
        self.assertEqual(g.none_of(self.F(0.5, 0.4)), g.NOT_MET)

    def test_without_an_interval_at_best_the_mean(self):
        one_round = g.Figure.over([3.0])
        self.assertTrue(math.isnan(one_round.half))
        self.assertEqual(g.below(one_round, 5), g.MET_ON_MEAN)
        self.assertEqual(g.at_least(self.F(200, 1), one_round, 1), g.MET_ON_MEAN)
        self.assertEqual(g.fmt(one_round, 1), "3.0 ± ?")

    def test_interval_is_the_bench_scripts_own(self):
        f = g.Figure.over([10, 12, 14])  # sd 2, t(2) = 4.303
        self.assertAlmostEqual(f.mean, 12)
        self.assertAlmostEqual(f.half, 4.303 * 2 / math.sqrt(3))


def replicated_runs():
    """1 node: PUT 100 (spread) vs GET 100; CPU 20 per request. 3 nodes: PUT CPU 50 (2.5x, met),
    GET CPU 100 (5x, not met); p99 at 5,000/s: PUT 1 ms (met), GET 4-8 ms (not met); a 2,500/s
    run with a large p99 that must not count."""
    runs, fixed = [], []
    for rnd, (put_rps, jitter) in enumerate([(90, 1), (110, -1)], 1):
        runs += [{"round": rnd, "config": "1node", "scenario": "put", "rps": put_rps, "cpu_us_per_request": 20},
                 {"round": rnd, "config": "1node", "scenario": "get", "rps": 100, "cpu_us_per_request": 20},
                 {"round": rnd, "config": "3n-h2", "scenario": "put", "rps": 30, "cpu_us_per_request": 50},
                 {"round": rnd, "config": "3n-h2", "scenario": "get", "rps": 40, "cpu_us_per_request": 100}]
        fixed += [{"round": rnd, "config": "3n-h2", "scenario": "put", "rate": 5000, "p99_ms": 1.0},
                  {"round": rnd, "config": "3n-h2", "scenario": "get", "rate": 5000, "p99_ms": 6.0 + 2 * jitter},
                  {"round": rnd, "config": "3n-h2", "scenario": "put", "rate": 2500, "p99_ms": 900.0}]
    meta = {"command": "./ringkv bench --replicated-path --rounds 2", "server_cpus": "0", "load_cpus": "1",
            "constant_rates": [2500, 5000]}
    return {"meta": meta, "runs": runs, "constant_rate_runs": fixed}


def h2_runs():
    runs = []
    for rnd in (1, 2):
        runs += [{"round": rnd, "scenario": "get-h2c", "rps": 120}, {"round": rnd, "scenario": "get-h1", "rps": 100},
                 {"round": rnd, "scenario": "status-h2c", "rps": 50}, {"round": rnd, "scenario": "nginx-h2c", "rps": 100}]
    return {"meta": {"command": "./ringkv bench --h2 --rounds 2", "server_cpus": "0", "load_cpus": "1"}, "runs": runs}


def cold_runs():
    def overall(p99, shed=0):
        return {"requests": 1000, "status_503": shed, "p99_ms": p99}
    runs = []
    for rnd in (1, 2):
        runs.append({"round": rnd, "config": "default", "ready_s": 20.0, "overall": overall(7.0),
                     "per_second": [overall(8.0)], "steady": overall(1.0)})
        runs.append({"round": rnd, "config": "cold", "ready_s": 4.0, "overall": overall(150.0, 10),
                     "per_second": [overall(190.0)]})
    meta = {"command": "./ringkv bench --cold-start --rounds 2", "server_cpus": "0,1", "load_cpus": "0,1",
            "duration_s": 10, "rate": 1000, "nodes": 3, "steady_after_s": 30, "shared_session": True}
    return {"meta": meta, "runs": runs}


class Rendering(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.mkdtemp()
        self.results = os.path.join(self.dir, "results")
        os.makedirs(self.results)
        os.makedirs(os.path.join(self.dir, "docs"))
        self.doc = os.path.join(self.dir, "docs", "benchmarks.md")
        with open(self.doc, "w") as f:
            f.write("# Benchmarks\n\nintro stays\n\n## Running the store benchmark\n\nbody stays\n\n## Later\n")
        write_json(os.path.join(self.results, "replicated-path-x.json"), replicated_runs())
        write_json(os.path.join(self.results, "h2-compare-x.json"), h2_runs())
        write_json(os.path.join(self.results, "cold-start-x.json"), cold_runs())
        self.current = os.path.join(self.results, "current.json")
        self.name_current(None)

    def tearDown(self):
        shutil.rmtree(self.dir)

    def name_current(self, client, **changes):
        current = {"replicated_path": "replicated-path-x.json", "h2_one_node": "h2-compare-x.json",
                   "cold_start": "cold-start-x.json", "http_client": client}
        current.update(changes)
        write_json(self.current, current)

    def row(self, text, starts):
        found = [line for line in text.splitlines() if line.startswith("| " + starts)]
        self.assertEqual(len(found), 1, (starts, text))
        return found[0]

    def test_rows_and_verdicts(self):
        text = g.render(self.current, self.doc)
        link = "[replicated-path-x](../results/replicated-path-x.json)"
        self.assertIn("| 1 node, PUT: req/s · server CPU µs/request | 100 ± 127 · 20.0 ± 0.0 | its own GETs: PUT 1.00× "
                      "their req/s | PUT ≥ 0.8× GET (16): met on the mean | " + link + " |", text)
        self.assertIn("1 node: 2.50× the CPU per request | CPU ≤ 3× 1 node (16): **met** |",
                      self.row(text, "3 nodes, h2c between nodes, PUT"))
        self.assertIn("1 node: 5.00× the CPU per request | CPU ≤ 3× 1 node (16): not met |",
                      self.row(text, "3 nodes, h2c between nodes, GET"))
        self.assertIn("| 1.00 ± 0.00 ms | — | < 5 ms (16): **met** |", self.row(text, "3 nodes, h2c, p99 at a constant 5,000 PUT"))
        self.assertIn("| 6.00 ± 25.41 ms | — | < 5 ms (16): not met |", self.row(text, "3 nodes, h2c, p99 at a constant 5,000 GET"))
        self.assertIn("(h2c 1.20×) | ≥ 1× HTTP/1.1 (16): **met** |", self.row(text, "1 node, GET over h2c"))
        self.assertIn("(ours 0.50×) | ≥ 0.7× nginx (16): not met |", self.row(text, "1 node, `/v0/status`"))
        ready = self.row(text, "cold start, 3 new nodes in one session, as `./ringkv up` starts them (AOT")
        self.assertIn("| 20.0 ± 0.0 s | a cold JVM (neither): 4.0 ± 0.0 s | — |", ready)
        first = "cold start, 3 new nodes in one session, as `./ringkv up` starts them: first 10 s at 1,000 PUT/s"
        self.assertIn("| 0.00 ± 0.00 % | the same nodes 40 s after the load began: 0.00 ± 0.00 % | no `503` (19): **met** |",
                      self.row(text, first + ": `503`"))
        self.assertIn("| 7.0 ± 0.0 ms · 8.0 ± 0.0 ms | the same nodes 40 s after the load began: 1.0 ± 0.0 ms; "
                      "a cold JVM: 150.0 ± 0.0 ms | < 10 ms (19): **met** |", self.row(text, first + ": p99"))
        self.assertIn("`./ringkv bench --replicated-path --rounds 2`; `./ringkv bench --h2 --rounds 2`; "
                      "`./ringkv bench --cold-start --rounds 2`; then name", text)
        self.assertIn("The machine: 2 cores (the runs name CPUs 0, 1 for nodes and load), shared", text)

    def test_constant_rate_rows_from_their_own_run(self):
        """replicated_path_constant_rate: the p99 rows (and only they) come from that file."""
        other = replicated_runs()
        other["meta"]["command"] = "./ringkv bench --replicated-path --configs 3n-h2 --rounds 10"
        for run in other["constant_rate_runs"]:
            run["p99_ms"] = 2.0
        write_json(os.path.join(self.results, "replicated-path-y.json"), other)
        self.name_current(None, replicated_path_constant_rate="replicated-path-y.json")
        text = g.render(self.current, self.doc)
        link_y = "[replicated-path-y](../results/replicated-path-y.json)"
        self.assertIn("| 2.00 ± 0.00 ms | — | < 5 ms (16): **met** | " + link_y + " |",
                      self.row(text, "3 nodes, h2c, p99 at a constant 5,000 GET"))
        self.assertIn("[replicated-path-x]", self.row(text, "3 nodes, h2c between nodes, PUT"))
        self.assertIn("`./ringkv bench --replicated-path --configs 3n-h2 --rounds 10`", text)
        self.name_current(None, replicated_path_constant_rate="replicated-path-gone.json")
        with self.assertRaises(SystemExit):
            g.render(self.current, self.doc)

    def test_cold_start_runs_of_other_kinds_get_rows_of_their_own(self):
        """cold_start_sessions and cold_start_restart: rows named after what each run measured; a
        first second over the limit fails the p99 target even when the whole span is under it."""
        sessions = cold_runs()
        sessions["meta"].update(shared_session=False, command="./ringkv bench --cold-start --rounds 6")
        for run in sessions["runs"]:
            run["per_second"] = [{"requests": 100, "status_503": 0, "p99_ms": 30.0 + run["round"]}]
        restart = cold_runs()
        restart["meta"].update(shared_session=False, restart_after_s=20, command="./ringkv bench --cold-start --restart 20")
        write_json(os.path.join(self.results, "cold-start-s.json"), sessions)
        write_json(os.path.join(self.results, "cold-start-r.json"), restart)
        self.name_current(None, cold_start_sessions="cold-start-s.json", cold_start_restart="cold-start-r.json")
        text = g.render(self.current, self.doc)
        self.assertIn("| 7.0 ± 0.0 ms · 31.5 ± 6.4 ms |", self.row(text, "cold start, 3 new nodes a session each: first 10 s"
                                                                         " at 1,000 PUT/s: p99"))
        self.assertIn("< 10 ms (19): not met | [cold-start-s]",
                      self.row(text, "cold start, 3 new nodes a session each: first 10 s at 1,000 PUT/s: p99"))
        restarted = "rolling restart, 1 of 3 nodes restarted beside warm ones, a session each"
        self.assertIn("| 20.0 ± 0.0 s |", self.row(text, restarted + " (AOT cache + warm-up): s until ready"))
        self.assertIn("< 10 ms (19): **met** | [cold-start-r]", self.row(text, restarted + ": first 10 s at 1,000 PUT/s: p99"))
        self.assertIn("`./ringkv bench --cold-start --rounds 6`; `./ringkv bench --cold-start --restart 20`", text)

    def test_h2_abuse_and_large_hints_rows(self):
        """h2_abuse: per attack, heap over idle and p99 over idle per round, both targets in one
        verdict; large_hints: seconds until held, a round that never got there fails the target."""
        phases = []
        for rnd in (1, 2):
            phases.append({"round": rnd, "phase": "idle", "p99_ms": 2.0, "heap_max_mib": 100.0})
            for attack, (p99, heap) in {"flood": (2.0, 110.0), "slow-body": (2.0 + rnd, 100.0),
                                        "made-you-reset": (2.2, 180.0 + rnd)}.items():
                phases.append({"round": rnd, "phase": attack, "p99_ms": p99, "heap_max_mib": heap,
                               "attack": {"closed_by_node": 3}})
        write_json(os.path.join(self.results, "h2-abuse-x.json"),
                   {"meta": {"command": "./ringkv bench --h2-abuse --rounds 2", "server_cpus": "0", "load_cpus": "1"},
                    "phases": phases})
        rounds = [{"round": r, "held_all_s": 20.0 + r, "ready_s": 15.0, "values_intact": True} for r in (1, 2)]
        meta = {"command": "./ringkv bench --large-hints --rounds 2", "server_cpus": "0,1", "values": 300,
                "value_bytes": 102400, "large_bytes": 15 << 20, "timeout_s": 180}
        write_json(os.path.join(self.results, "large-hints-x.json"), {"meta": meta, "rounds": rounds})
        self.name_current(None, h2_abuse="h2-abuse-x.json", large_hints="large-hints-x.json")
        text = g.render(self.current, self.doc)
        self.assertIn("| 10 ± 0 MiB · 1.00 ± 0.00× | idle GET p99 2.00 ± 0.00 ms; the node closed 6 of its connections "
                      "in 2 rounds | heap < 64 MiB (32): **met** · p99 < 2× idle (32): **met** |", self.row(text, "one hostile HTTP/2 connection, flood"))
        self.assertIn("heap < 64 MiB (32): not met · p99 < 2× idle (32): **met** |", self.row(text, "one hostile HTTP/2 connection, made-you-reset"))
        self.assertIn("heap < 64 MiB (32): **met** · p99 < 2× idle (32): met on the mean |", self.row(text, "one hostile HTTP/2 connection, slow body"))
        held = "3 nodes, one down while 300 values of 100 KiB and one of 15 MiB were written at 2/3"
        self.assertIn("| 21.5 ± 6.4 s | ready (its warm-up over) after 15.0 ± 0.0 s | < 60 s (32): **met** |",
                      self.row(text, held))
        self.assertIn("[one hostile HTTP/2 connection](#one-hostile-http2-connection)", text)
        self.assertIn("`./ringkv bench --h2-abuse --rounds 2`; `./ringkv bench --large-hints --rounds 2`", text)
        rounds[1].update(held_all_s=None, values_intact=None)
        write_json(os.path.join(self.results, "large-hints-x.json"), {"meta": meta, "rounds": rounds})
        self.assertIn("| not within 180 s (or not intact) in 1 of 2 rounds |",
                      self.row(g.render(self.current, self.doc), held))
        self.name_current(None)
        self.assertNotIn("one hostile", g.render(self.current, self.doc))

    def test_rate_cpu_and_etcd_rows(self):
        """Issue 34: CPU per request at 500/s and 5,000/s over the same round's closed loop (3 nodes);
        beside etcd, GET p99 at 5,000/s within 2x etcd's and PUT p99 below etcd's where etcd failed
        nothing (a rate etcd did not sustain gets no verdict)."""
        doc = replicated_runs()
        for run in doc["constant_rate_runs"]:
            run["cpu_us_per_request"] = 70.0 if run["rate"] == 5000 and run["scenario"] == "put" else 200.0
        doc["constant_rate_runs"] += [{"round": r, "config": "3n-h2", "scenario": "get", "rate": 500, "p99_ms": 1.0,
                                       "cpu_us_per_request": 250.0 + r} for r in (1, 2)]
        doc["meta"]["command"] = "./ringkv bench --replicated-path --rate 500,5000"
        write_json(os.path.join(self.results, "replicated-path-r.json"), doc)
        runs = []
        for rnd in (0, 1):
            for system, get_p99, put_p99, put_failed in (("ringkv", 3.0, 4.0 + rnd, 0), ("etcd", 2.0, 9.0, 0)):
                runs.append({"system": system, "op": "get", "rate": 5000, "p99_ms": get_p99, "failed": 0, "round": rnd})
                runs.append({"system": system, "op": "put", "rate": 500, "p99_ms": put_p99, "failed": put_failed,
                             "round": rnd})
                runs.append({"system": system, "op": "put", "rate": 5000, "p99_ms": 1.0,
                             "failed": 7 if system == "etcd" else 0, "round": rnd})
        write_json(os.path.join(self.results, "etcd-compare-x.json"),
                   {"meta": {"command": "./ringkv bench --etcd --rounds 2", "server_cpus": "0", "load_cpus": "1"},
                    "runs": runs})
        self.assertNotIn("CPU µs/request over the same round's closed loop", g.render(self.current, self.doc))
        self.name_current(None, etcd_compare="etcd-compare-x.json", replicated_path_rate_cpu="replicated-path-r.json")
        text = g.render(self.current, self.doc)
        self.assertIn("[replicated-path-r]", self.row(text, "3 nodes, h2c, PUT at a constant 5,000/s: CPU"))
        self.assertIn("`./ringkv bench --replicated-path --rate 500,5000`", text)
        self.assertIn("| 1.40× ± 0.00 | 70 against 50 µs | ≤ 1.5× (34): **met** |",
                      self.row(text, "3 nodes, h2c, PUT at a constant 5,000/s: CPU"))
        self.assertIn("| 2.00× ± 0.00 | 200 against 100 µs | ≤ 1.5× (34): not met |",
                      self.row(text, "3 nodes, h2c, GET at a constant 5,000/s: CPU"))
        self.assertIn("| 2.51× ± 0.06 | 252 against 100 µs | ≤ 3× (34): **met** |",
                      self.row(text, "3 nodes, h2c, GET at a constant 500/s: CPU"))
        self.assertNotIn("PUT at a constant 500/s: CPU", text)
        self.assertIn("| 3.00 ± 0.00 ms (0) | etcd: 2.00 ± 0.00 ms (0); per round 1.50× ± 0.00 | ≤ 2× etcd's (34): **met** |",
                      self.row(text, "3 nodes beside etcd's 3 members, GET p99 at a constant 5,000/s"))
        self.assertIn("| 4.50 ± 6.35 ms (0) | etcd: 9.00 ± 0.00 ms (0); per round 0.50× ± 0.71 | below etcd's (34): met on "
                      "the mean |", self.row(text, "3 nodes beside etcd's 3 members, PUT p99 at a constant 500/s"))
        self.assertIn("(14); per round 1.00× ± 0.00 | below etcd's (34): etcd did not sustain the rate |",
                      self.row(text, "3 nodes beside etcd's 3 members, PUT p99 at a constant 5,000/s"))
        self.assertIn("[ringkv beside etcd](#ringkv-beside-etcd)", text)
        runs[0]["failed"] = 3  # ringkv's GET at 5,000/s in round 0: no p99 comparison makes that met
        write_json(os.path.join(self.results, "etcd-compare-x.json"), {"meta": {"command": "c"}, "runs": runs})
        self.assertIn("(3) | etcd: 2.00 ± 0.00 ms (0); per round 1.50× ± 0.00 | ≤ 2× etcd's (34): not met, requests failed |",
                      self.row(g.render(self.current, self.doc), "3 nodes beside etcd's 3 members, GET p99"))

    def test_weakest(self):
        self.assertEqual(g.weakest(g.MET, g.MET_ON_MEAN), g.MET_ON_MEAN)
        self.assertEqual(g.weakest(g.MET, g.NOT_MET, g.MET_ON_MEAN), g.NOT_MET)
        self.assertEqual(g.weakest(g.MET, g.MET), g.MET)

    def test_pending_client_is_one_line_with_the_section(self):
        text = g.render(self.current, self.doc)
        client = [line for line in text.splitlines() if "HTTP client" in line and "pending" in line]
        self.assertEqual(len(client), 1, text)
        self.assertIn("pending: no full run committed yet; see [HTTP client (JMH)](#http-client-jmh)", client[0])
        self.assertIn("ahead of both on every row: pending | — |", client[0])
        self.assertNotIn("client-bench.sh", text)

    def test_client_headline_from_the_synthetic_run(self):
        for name in ("client-sample.json", "client-sample.meta.json"):
            shutil.copy(os.path.join(TESTDATA, name), self.results)
        self.name_current("client-sample.json")
        text = g.render(self.current, self.doc)
        row = self.row(text, "HTTP client (ours)")
        self.assertIn("| ahead of both on 1 of 3 rows, within the noise on 1, behind on 1 "
                      "(3 forks × 5 iterations, 95 % Student t over fork means) |", row)
        self.assertIn("| ahead of both on every row: not met | [client-sample](../results/client-sample.json) |", row)
        self.assertNotIn("pending", text)
        self.assertIn("`bench/client-bench.sh --forks 3`", text)

    def test_client_verdict_levels(self):
        """The sample's rows: GET 1 B h1 ahead, GET 1 B h2 above both on the mean but overlapping
        Jetty, POST 8 KiB behind Jetty. Without the POST row the target is met on the mean; with the
        GET h1 row alone it is met."""
        runs = json.loads(read(CLIENT_SAMPLE))
        shutil.copy(CLIENT_SAMPLE.replace(".json", ".meta.json"), os.path.join(self.results, "client-cut.meta.json"))
        for keep, expected in (({"H1", "H2"}, "not met"), ({"H2"}, "met on the mean"), (set(), "**met**")):
            cut = [r for r in runs if r["params"]["method"] == "GET" and (r["params"]["protocol"] == "H1" or "H2" in keep)
                   or r["params"]["method"] == "POST" and "H1" in keep]
            write_json(os.path.join(self.results, "client-cut.json"), cut)
            self.name_current("client-cut.json")
            row = self.row(g.render(self.current, self.doc), "HTTP client (ours)")
            self.assertIn(f"| ahead of both on every row: {expected} |", row)

    def test_a_missing_file_is_refused(self):
        self.name_current(None, cold_start=None)
        with self.assertRaisesRegex(SystemExit, "cold_start names no results file"):
            g.render(self.current, self.doc)
        self.name_current(None, h2_one_node="h2-compare-gone.json")
        with self.assertRaisesRegex(SystemExit, "does not exist"):
            g.render(self.current, self.doc)

    def test_written_once_then_checked(self):
        args = ["--doc", self.doc, "--current", self.current]
        with contextlib.redirect_stderr(io.StringIO()):
            self.assertEqual(g.main(args + ["--check"]), 1)  # no block yet
        self.assertEqual(g.main(args), 0)
        text = read(self.doc)
        self.assertEqual(text.count(g.BEGIN), 1)
        self.assertTrue(text.startswith("# Benchmarks\n\nintro stays\n\n" + g.BEGIN), text)
        self.assertIn(g.END + "\n\n## Running the store benchmark\n\nbody stays\n\n## Later\n", text)
        self.assertEqual(g.main(args + ["--check"]), 0)
        self.assertEqual(g.main(args), 0)
        self.assertEqual(read(self.doc), text)  # a second write changes nothing
        with open(self.doc, "w") as f:
            f.write(text.replace("5.00×", "4.00×"))
        with contextlib.redirect_stderr(io.StringIO()) as err:
            self.assertEqual(g.main(args + ["--check"]), 1)
        self.assertIn("5.00×", err.getvalue())


if __name__ == "__main__":
    unittest.main()
