"""Compares membership benchmark runs grouped by the nodes' JVM options (RINGKV_JVM_OPTS, which
bench --membership records), with --by-revision by the git revision each ran, or with --by-command
by the command line that made each (runs of one checkout with different flags): per group, over its runs' rounds, the steady GET and PUT p99 and node CPU,
and per step the GET and PUT p99 over the steady ones and the failed requests, as means with 95 %
intervals (Student t). For A/B runs of one checkout made one after the other, e.g.
  RINGKV_JVM_OPTS= ./ringkv bench --membership; RINGKV_JVM_OPTS=-XX:... ./ringkv bench --membership
repeated, then
  python3 bench/membership_compare.py bench/results/membership-A.json bench/results/membership-B.json ...
or, for a checkout of the code before beside the tree, runs of each interleaved and
  python3 bench/membership_compare.py --by-revision FILES...
Prints the comparison; writes nothing."""
import collections
import json
import sys

from membership import fmt, interval


def group_of(meta, by):
    if by == "revision":
        return "revision %s%s" % (meta["git_rev"], "-dirty" if meta.get("git_dirty") else "")
    if by == "command":
        return "command %s" % meta["command"]
    return "RINGKV_JVM_OPTS %s" % (meta.get("jvm_opts", "") or "(none)")


def main(paths, by=None):
    groups = collections.defaultdict(list)
    for path in paths:
        with open(path) as f:
            doc = json.load(f)
        for rnd in doc["rounds"]:
            groups[group_of(doc["meta"], by)].append((path.rsplit("/", 1)[-1], rnd))
    for group, rounds in groups.items():
        print("%s: %d rounds (%s)" % (group, len(rounds), ", ".join(sorted({p for p, _ in rounds}))))
        print("  steady: GET p99 ms %s, PUT p99 ms %s, node CPU cores %s" % (
            fmt(interval([r["steady"]["get_p99_ms"] for _, r in rounds])), fmt(interval([r["steady"]["put_p99_ms"] for _, r in rounds])),
            fmt(interval([r["steady"]["cpu_cores"] for _, r in rounds]))))
        steps = [s["step"] for s in rounds[0][1]["steps"]]
        for name in steps:
            ratios, p99s, put_ratios, put_p99s, failed, cpu, seconds = [], [], [], [], [], [], []
            for _, r in rounds:
                for s in r["steps"]:
                    if s["step"] == name:
                        ratios.append(s["load"]["get_p99_ms"] / r["steady"]["get_p99_ms"])
                        p99s.append(s["load"]["get_p99_ms"])
                        put_ratios.append(s["load"]["put_p99_ms"] / r["steady"]["put_p99_ms"])
                        put_p99s.append(s["load"]["put_p99_ms"])
                        failed.append(s["load"]["failed"])
                        cpu.append(s["cpu_cores"])
                        seconds.append(s["duration_s"])
            print("  %-8s GET p99 / steady %s (ms %s); PUT p99 / steady %s (ms %s); failed requests per round %s; "
                  "node CPU cores %s; seconds %s" % (
                      name, fmt(interval(ratios)), fmt(interval(p99s)), fmt(interval(put_ratios)), fmt(interval(put_p99s)),
                      failed, fmt(interval(cpu)), fmt(interval(seconds))))


if __name__ == "__main__":
    args = sys.argv[1:]
    by = "revision" if "--by-revision" in args else "command" if "--by-command" in args else None
    files = [a for a in args if a not in ("--by-revision", "--by-command")]
    if not files:
        raise SystemExit("usage: membership_compare.py [--by-revision | --by-command] RESULTS.json ...")
    main(files, by)
