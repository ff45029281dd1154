"""Compares membership benchmark runs grouped by the nodes' JVM options (RINGKV_JVM_OPTS, which
bench --membership records): per group, over its runs' rounds, the steady GET p99 and node CPU,
and per step the GET p99 over the steady one and the failed requests, as means with 95 %
intervals (Student t). For A/B runs of one checkout made one after the other, e.g.
  RINGKV_JVM_OPTS= ./ringkv bench --membership; RINGKV_JVM_OPTS=-XX:... ./ringkv bench --membership
repeated, then
  python3 bench/membership_compare.py bench/results/membership-A.json bench/results/membership-B.json ...
Prints the comparison; writes nothing."""
import collections
import json
import sys

from membership import fmt, interval


def main(paths):
    groups = collections.defaultdict(list)
    for path in paths:
        with open(path) as f:
            doc = json.load(f)
        for rnd in doc["rounds"]:
            groups[doc["meta"].get("jvm_opts", "") or "(none)"].append((path.rsplit("/", 1)[-1], rnd))
    for opts, rounds in groups.items():
        print("RINGKV_JVM_OPTS %s: %d rounds (%s)" % (opts, len(rounds), ", ".join(sorted({p for p, _ in rounds}))))
        print("  steady: GET p99 ms %s, node CPU cores %s" % (
            fmt(interval([r["steady"]["get_p99_ms"] for _, r in rounds])), fmt(interval([r["steady"]["cpu_cores"] for _, r in rounds]))))
        steps = [s["step"] for s in rounds[0][1]["steps"]]
        for name in steps:
            ratios, failed, cpu = [], [], []
            for _, r in rounds:
                for s in r["steps"]:
                    if s["step"] == name:
                        ratios.append(s["load"]["get_p99_ms"] / r["steady"]["get_p99_ms"])
                        failed.append(s["load"]["failed"])
                        cpu.append(s["cpu_cores"])
            print("  %-8s GET p99 / steady %s; failed requests per round %s; node CPU cores %s" % (
                name, fmt(interval(ratios)), failed, fmt(interval(cpu))))


if __name__ == "__main__":
    if len(sys.argv) < 2:
        raise SystemExit("usage: membership_compare.py RESULTS.json ...")
    main(sys.argv[1:])
