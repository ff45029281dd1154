#!/usr/bin/env python3
"""Renders the "HTTP client (JMH)" section of docs/benchmarks.md from one client-bench run.

Input: the JMH JSON written by bench/client-bench.sh (both passes in one array) and its
.meta.json beside it, which must say "format": 2; results of the one-fork method before it are
refused with a message saying how to draw them. Output: the text between the BEGIN/END
GENERATED markers of that section (the section and its markers are appended to the document
when missing; nothing else in the document is touched) and docs/img/client-ratio.png (each
client's ops/s with its interval, scaled by the JDK client's mean; skipped when matplotlib is
missing).

Every score carries a 95 % confidence interval: Student t over the per-fork means (forks - 1
degrees of freedom) when the score has at least 3 forks, else Student t over all its iterations
pooled, which leaves out the fork-to-fork noise and is marked as such. Ours is "ahead" on a row
when the lower end of its interval lies above the upper ends of both other clients' intervals.
"""
import argparse
import json
import math
import os
import re
import statistics
import sys

BEGIN = "<!-- BEGIN GENERATED: http-client-jmh (bench/report/client_report.py; do not edit by hand) -->"
END = "<!-- END GENERATED: http-client-jmh -->"
SECTION = "## HTTP client (JMH)"
FORMAT = 2
OLD_RENDERER = "8a273bb"  # the last revision whose client_report.py draws the one-fork results files
CLIENTS = ["JDK", "JETTY", "RING"]
NAMES = {"JDK": "JDK", "JETTY": "Jetty", "RING": "ours"}
MODES = [("oneCaller", "one caller, sync"), ("inFlight64", "64 in flight, async")]
MODES_TITLE = dict(MODES)
MAIN = "NO_COPY"     # publisher of the main pass: both java.net.http clients send without copying
COPYING = "JDK"      # publisher of the copying pass: BodyPublishers.ofByteArray
CHART = "client-ratio.png"
MIN_FORKS = 3        # fewer forks: the interval is taken over pooled iterations
SMALL_H2_TARGET = 1.5
STEAL_NOTED = 5.0    # percent of CPU time taken by the hypervisor, above which a fork is listed
STEAL_LISTED = 12    # at most this many such forks are named

# Two-sided 95 % quantiles of Student's t (t_0.975) by degrees of freedom; between the entries
# past 30 the smaller degrees of freedom is used, which widens the interval a little.
T95 = {1: 12.706, 2: 4.303, 3: 3.182, 4: 2.776, 5: 2.571, 6: 2.447, 7: 2.365, 8: 2.306, 9: 2.262,
       10: 2.228, 11: 2.201, 12: 2.179, 13: 2.160, 14: 2.145, 15: 2.131, 16: 2.120, 17: 2.110,
       18: 2.101, 19: 2.093, 20: 2.086, 21: 2.080, 22: 2.074, 23: 2.069, 24: 2.064, 25: 2.060,
       26: 2.056, 27: 2.052, 28: 2.048, 29: 2.045, 30: 2.042, 40: 2.021, 60: 2.000, 120: 1.980}


class OldFormat(Exception):
    pass


def t95(df):
    return T95[max(d for d in T95 if d <= df)]


class Score:
    """Mean of one score and the half-width of its 95 % confidence interval (None when there is
    no second value to take a spread from). basis: "forks" or "iterations" (see the module text)."""

    def __init__(self, raw):
        forks = [[float(v) for v in f] for f in raw if f]
        values = [v for f in forks for v in f]
        self.forks, self.n = len(forks), len(values)
        if self.forks >= MIN_FORKS:
            means = [statistics.fmean(f) for f in forks]
            self.basis, sample = "forks", means
        else:
            self.basis, sample = "iterations", values
        self.mean = statistics.fmean(sample) if sample else float("nan")
        self.half = t95(len(sample) - 1) * statistics.stdev(sample) / math.sqrt(len(sample)) if len(sample) >= 2 else None

    @property
    def lo(self):
        return self.mean - self.half if self.half is not None else None

    @property
    def hi(self):
        return self.mean + self.half if self.half is not None else None


def position(ours, other):
    """Where our interval lies against the other's: "above", "below" or "overlap" (also when
    either has no interval, so that nothing is claimed without one)."""
    if ours is None or other is None or ours.half is None or other.half is None:
        return "overlap"
    if ours.lo > other.hi:
        return "above"
    if ours.hi < other.lo:
        return "below"
    return "overlap"


def size_label(n):
    n = int(n)
    if n >= 1 << 20 and n % (1 << 20) == 0:
        return f"{n >> 20} MiB"
    if n >= 1024 and n % 1024 == 0:
        return f"{n >> 10} KiB"
    return f"{n} B"


def proto_label(p):
    return "h2" if p == "H2" else "1.1"


def read_json(path):
    with open(path) as f:
        return json.load(f)


def load(path):
    """cells: (publisher, mode, method, size, protocol, tls) -> client -> figures; and the meta."""
    meta_path = re.sub(r"\.json$", ".meta.json", path)
    meta = read_json(meta_path) if os.path.exists(meta_path) else {}
    if meta.get("format") != FORMAT:
        raise OldFormat(
            f"{path}: not a results file of the current bench/client-bench.sh ({os.path.basename(meta_path)} "
            f"{'says no format 2' if meta else 'is missing'}). Results of the method before it (one fork per "
            f"combination, POST rows with the copying publisher) have no intervals and are not "
            f"rendered into the page; their own renderer still draws them:\n"
            f"  git show {OLD_RENDERER}:bench/report/client_report.py > /tmp/client_report_v1.py\n"
            f"  python3 /tmp/client_report_v1.py {path} --doc /tmp/benchmarks-v1.md --img-dir /tmp/img-v1")
    cells = {}
    for r in read_json(path):
        mode = r["benchmark"].rsplit(".", 1)[1]
        p = r["params"]
        key = (p.get("publisher", "JDK"), mode, p["method"], int(p["size"]), p["protocol"], p["tls"])
        sec = r.get("secondaryMetrics", {})
        steal = sec.get("host.steal", {}).get("rawData") or []
        cells.setdefault(key, {})[p["client"]] = {
            "ops": Score(r["primaryMetric"]["rawData"]),
            "bop": sec.get("client.alloc.norm", {}).get("score"),
            "threads": sec.get("client.threads", {}).get("score"),
            "steal": [statistics.fmean(f) for f in steal if f],
            "timing": (r.get("forks"), r.get("warmupIterations"), r.get("warmupTime"),
                       r.get("measurementIterations"), r.get("measurementTime")),
        }
    return cells, meta


def rows(cells, publisher, mode=None, method=None):
    keys = [k for k in cells if k[0] == publisher and (mode is None or k[1] == mode) and (method is None or k[2] == method)]
    return sorted(keys, key=lambda k: ([m for m, _ in MODES].index(k[1]) if k[1] in MODES_TITLE else 9, k[2], k[3], k[4], k[5]))


def ops(cells, key, client):
    return cells.get(key, {}).get(client, {}).get("ops")


def verdict(cells, key):
    """"ahead", "behind" (below at least one other) or "overlap"; None when a client is missing."""
    ours, others = ops(cells, key, "RING"), [ops(cells, key, c) for c in ("JDK", "JETTY")]
    if ours is None or None in others:
        return None
    where = [position(ours, o) for o in others]
    return "ahead" if all(w == "above" for w in where) else "behind" if "below" in where else "overlap"


def verdict_cell(cells, key):
    ours = ops(cells, key, "RING")
    if verdict(cells, key) is None:
        return "—"
    if verdict(cells, key) == "ahead":
        return "**ahead**"
    parts = []
    for c in ("JDK", "JETTY"):
        w = position(ours, ops(cells, key, c))
        if w != "above":
            parts.append(("≈ " if w == "overlap" else "behind ") + NAMES[c])
    return ", ".join(parts)


def fmt_score(s):
    if s is None:
        return "—"
    return f"{s.mean:,.0f} ± {s.half:,.0f}" if s.half is not None else f"{s.mean:,.0f} ± ?"


def fmt_ratio(a, b):
    return "—" if a is None or b is None or not b.mean else f"{a.mean / b.mean:.2f}"


def fmt_bytes(v):
    if v is None:
        return "—"
    return f"{v / 1024:,.1f} K" if v >= 10240 else f"{v:,.0f}"


def fmt_threads(v):
    return "—" if v is None else f"{v:.0f}"


def main_table(cells, mode):
    keys = rows(cells, MAIN, mode)
    if not keys:
        return []
    out = ["| method | body | proto | TLS | JDK ops/s | Jetty ops/s | ours ops/s | ours ÷ JDK | ours ÷ Jetty | ours vs both "
           "| B/req JDK / Jetty / ours | threads JDK / Jetty / ours |",
           "|---|---|---|---|--:|--:|--:|--:|--:|---|--:|--:|"]
    for k in keys:
        row = cells[k]
        get = lambda c, f: row.get(c, {}).get(f)
        out.append("| " + " | ".join([
            k[2], size_label(k[3]), proto_label(k[4]), "yes" if k[5] == "true" else "no",
            fmt_score(get("JDK", "ops")), fmt_score(get("JETTY", "ops")), fmt_score(get("RING", "ops")),
            fmt_ratio(get("RING", "ops"), get("JDK", "ops")), fmt_ratio(get("RING", "ops"), get("JETTY", "ops")),
            verdict_cell(cells, k),
            " / ".join(fmt_bytes(get(c, "bop")) for c in CLIENTS),
            " / ".join(fmt_threads(get(c, "threads")) for c in CLIENTS)]) + " |")
    return out


def copying_table(cells):
    keys = rows(cells, COPYING, method="POST")
    keys = [k for k in keys if any(c in cells[k] for c in ("JDK", "RING"))]
    if not keys:
        return []
    out = ["| mode | body | proto | TLS | JDK ops/s, ofByteArray | ours ops/s, ofByteArray | ours ÷ JDK | ours vs JDK "
           "| JDK: ofByteArray ÷ no copy | ours: ofByteArray ÷ no copy | B/req ours, ofByteArray / no copy |",
           "|---|---|---|---|--:|--:|--:|---|--:|--:|--:|"]
    for k in keys:
        main_key = (MAIN,) + k[1:]
        jdk, ours = ops(cells, k, "JDK"), ops(cells, k, "RING")
        where = position(ours, jdk) if jdk and ours else None
        bop = [cells.get(kk, {}).get("RING", {}).get("bop") for kk in (k, main_key)]
        out.append("| " + " | ".join([
            MODES_TITLE.get(k[1], k[1]).split(",")[0], size_label(k[3]), proto_label(k[4]), "yes" if k[5] == "true" else "no",
            fmt_score(jdk), fmt_score(ours), fmt_ratio(ours, jdk),
            {"above": "**ahead**", "below": "behind", "overlap": "≈", None: "—"}[where],
            fmt_ratio(jdk, ops(cells, main_key, "JDK")), fmt_ratio(ours, ops(cells, main_key, "RING")),
            " / ".join(fmt_bytes(b) for b in bop)]) + " |")
    return out


def counts(cells):
    """Main table: rows with all three clients, how many ours is ahead on / behind on, and the
    small-body HTTP/2 target (ours' lower end >= 1.5 x the JDK's upper end)."""
    c = {"total": 0, "ahead": 0, "behind": 0, "overlap": 0, "small_h2": 0, "small_h2_met": 0}
    for k in rows(cells, MAIN):
        v = verdict(cells, k)
        if v is None:
            continue
        c["total"] += 1
        c[v] += 1
        if k[4] == "H2" and k[3] <= 8192:
            c["small_h2"] += 1
            ours, jdk = ops(cells, k, "RING"), ops(cells, k, "JDK")
            c["small_h2_met"] += ours.half is not None and jdk.half is not None and ours.lo >= SMALL_H2_TARGET * jdk.hi
    return c


def copying_counts(cells):
    keys = [k for k in rows(cells, COPYING, method="POST") if ops(cells, k, "JDK") and ops(cells, k, "RING")]
    return sum(position(ops(cells, k, "RING"), ops(cells, k, "JDK")) == "above" for k in keys), len(keys)


def bases(cells):
    """The set of (basis, forks) behind the scores of this run."""
    return sorted({(f["ops"].basis, f["ops"].forks) for row in cells.values() for f in row.values()})


def interval_text(cells):
    found = bases(cells)
    fork_counts = sorted({f for b, f in found if b == "forks"})
    parts = []
    if fork_counts:
        parts.append("Student t over the per-fork means (" + ", ".join(
            f"{f} forks: {f - 1} degrees of freedom, t = {t95(f - 1):.2f}" for f in fork_counts) + ")")
    if any(b == "iterations" for b, _ in found):
        parts.append(f"**for scores from fewer than {MIN_FORKS} forks, Student t over all their iterations pooled, "
                     "which leaves out the fork-to-fork noise: those intervals are too narrow**")
    return "Intervals: 95 % confidence, " + "; ".join(parts) + "."


def chart(cells, img_dir):
    """One panel per mode, one row per main-table row: each client's mean and 95 % interval,
    divided by the JDK client's mean on that row (the JDK's own interval shows around 1)."""
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        print("matplotlib missing: chart not drawn", file=sys.stderr)
        return None
    modes = [m for m in MODES if rows(cells, MAIN, m[0])]
    if not modes:
        return None
    keys_by_mode = {m: rows(cells, MAIN, m) for m, _ in modes}
    height = max(4, max(len(k) for k in keys_by_mode.values()))
    fig, axes = plt.subplots(1, len(modes), figsize=(6.6 * len(modes) + 1.2, 0.36 * height + 1.6), squeeze=False)
    style = [("JDK", "#7f7f7f", "JDK 25"), ("JETTY", "#1f77b4", "Jetty 12"), ("RING", "#d62728", "ringkv")]
    for ax, (mode, title) in zip(axes[0], modes):
        keys = keys_by_mode[mode]
        ys = list(range(len(keys)))[::-1]  # first row at the top
        means, highs = [], []
        for i, (client, colour, name) in enumerate(style):
            xs, es, yy = [], [[], []], []
            for k, y in zip(keys, ys):
                s, base = ops(cells, k, client), ops(cells, k, "JDK")
                if s is None or base is None or not base.mean:
                    continue
                xs.append(s.mean / base.mean)
                half = (s.half or 0) / base.mean
                es[0].append(min(half, xs[-1] * 0.999))  # the log axis cannot go to 0
                es[1].append(half)
                yy.append(y + (1 - i) * 0.25)
            means += xs
            highs += [x + e for x, e in zip(xs, es[1])]
            ax.errorbar(xs, yy, xerr=es, fmt="o", color=colour, markersize=4, elinewidth=1.6, capsize=2.5, label=name)
        for y, k in zip(ys, keys):
            if y % 2 == 0:
                ax.axhspan(y - 0.5, y + 0.5, color="#f2f2f2", zorder=0)
        ax.axvline(1.0, color="black", linewidth=0.8)
        ax.set_xscale("log")
        # The axis spans the means (and the upper ends, up to 3x the largest mean); a lower end
        # near or below 0 runs off the left edge.
        if means:
            ax.set_xlim(min(0.7, min(means) / 1.6), 1.1 * max(1.5, min(max(highs), 3 * max(means))))
        ax.xaxis.set_major_locator(matplotlib.ticker.LogLocator(base=2, numticks=12))
        ax.xaxis.set_major_formatter(matplotlib.ticker.FuncFormatter(lambda v, _: f"{v:.3g}×"))
        ax.xaxis.set_minor_formatter(matplotlib.ticker.NullFormatter())
        ax.set_ylim(-0.6, len(keys) - 0.4)
        ax.set_yticks(ys)
        labels = []
        for k in keys:
            mark = {"ahead": "✓", "behind": "✗"}.get(verdict(cells, k), "≈")
            labels.append(f"{k[2]} {size_label(k[3]):>7} {proto_label(k[4]):>3} {'TLS' if k[5] == 'true' else '   '}  {mark}")
        ax.set_yticklabels(labels, fontsize=8, family="monospace")
        for tick, k in zip(ax.get_yticklabels(), keys):
            tick.set_color({"ahead": "#006400", "behind": "#b22222"}.get(verdict(cells, k), "black"))
        ax.set_xlabel("ops/s ÷ the JDK client's mean (log scale); bars: 95 % interval")
        ax.set_title(title)
        ax.grid(axis="x", which="both", color="#dddddd", linewidth=0.6)
        ax.set_axisbelow(True)
    h = fig.get_figheight()
    fig.suptitle("HTTP client throughput, POST bodies not copied. ✓ ours ahead of both (its interval clear of both"
                 " others'), ≈ overlapping, ✗ behind one", fontsize=10, y=1 - 0.12 / h, va="top")
    handles, names = axes[0][0].get_legend_handles_labels()
    fig.legend(handles, names, loc="upper center", bbox_to_anchor=(0.5, 1 - 0.38 / h), ncol=3, fontsize=9)
    fig.tight_layout(rect=(0, 0, 1, 1 - 0.75 / h))
    os.makedirs(img_dir, exist_ok=True)
    fig.savefig(os.path.join(img_dir, CHART), dpi=100)
    plt.close(fig)
    return CHART


def steal_lines(cells):
    """Scores with a fork whose CPUs the hypervisor partly gave away: those forks say little about the client."""
    forks = [s for row in cells.values() for f in row.values() for s in f["steal"]]
    if not forks:
        return []
    noted = sorted(((k, c, f["steal"]) for k, row in cells.items() for c, f in row.items()
                    if any(s > STEAL_NOTED for s in f["steal"])), key=lambda x: (-max(x[2]), -sum(x[2])))
    out = [f"CPU time stolen by the hypervisor (JMH `host.steal`, per fork): {statistics.fmean(forks):.1f} % on average "
           f"over {len(forks)} forks; {sum(s > STEAL_NOTED for s in forks)} forks above {STEAL_NOTED:.0f} %"
           + (f", in {len(noted)} scores:" if noted else "."), ""]
    for k, c, steal in noted[:STEAL_LISTED]:
        out.append(f"- {NAMES[c]}, {MODES_TITLE.get(k[1], k[1])}, {k[2]} {size_label(k[3])} "
                   f"{'h2' if k[4] == 'H2' else 'HTTP/1.1'}{' TLS' if k[5] == 'true' else ''}"
                   f"{', ofByteArray' if k[0] == COPYING and c != 'JETTY' else ''}: forks at "
                   + ", ".join(f"{s:.1f}" for s in steal) + " %")
    if len(noted) > STEAL_LISTED:
        out.append(f"- and {len(noted) - STEAL_LISTED} more scores")
    return out + [""] if noted else out


def timing_text(cells):
    t = sorted({f["timing"] for row in cells.values() for f in row.values()}, key=str)
    return "; ".join(f"{f} forks × ({wi} × {w} warm-up + {i} × {m} measurement)" for f, wi, w, i, m in t)


def shown_path(path):
    """The results file relative to the repository (bench/results/...), else as given."""
    root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    rel = os.path.relpath(os.path.abspath(path), root)
    return path if rel.startswith("..") else rel


def generated(cells, meta, results_path, chart_name):
    c = counts(cells)
    lines = [f"Results file: `{shown_path(results_path)}`"
             f" (git `{meta.get('git_rev', '?')[:10]}`{', dirty tree' if meta.get('dirty') else ''},"
             f" {'quick' if meta.get('quick') else 'full'} run, each combination {timing_text(cells)},"
             f" {meta.get('cores', '?')} cores, load average before/after {meta.get('loadavg_before', '?')}"
             f" / {' '.join(meta.get('loadavg_after', []))}, {meta.get('seconds', '?')} s).", "",
             f"Ours ahead of both the JDK and Jetty on **{c['ahead']} of {c['total']}** rows of the main table "
             f"(our 95 % interval above both others'); within the noise of one or both on {c['overlap']}, "
             f"behind one or both on {c['behind']}."
             + (f" ≥ {SMALL_H2_TARGET}× the JDK on **{c['small_h2_met']} of {c['small_h2']}** small-body (≤ 8 KiB) "
                f"HTTP/2 rows (lower end of ours ≥ {SMALL_H2_TARGET} × upper end of the JDK's)." if c["small_h2"] else ""), "",
             interval_text(cells), ""]
    if chart_name:
        lines += [f"![each client's ops/s with its 95 % interval, relative to the JDK client's mean](img/{chart_name})", ""]
    for mode, title in MODES:
        t = main_table(cells, mode)
        if t:
            lines += [f"**{title}** (POST bodies: `RingBodyPublishers.ofByteArrayNoCopy` for the JDK and ours)", ""] + t + [""]
    t = copying_table(cells)
    if t:
        ahead, total = copying_counts(cells)
        lines += ["**POST with `BodyPublishers.ofByteArray`** (what an unchanged application sends; "
                  f"ours ahead of the JDK on {ahead} of {total} rows; \"no copy\" figures from the main table)", ""] + t + [""]
    else:
        lines += ["No `BodyPublishers.ofByteArray` rows in this run (the copying pass was left out).", ""]
    lines += steal_lines(cells)
    skipped = meta.get("skipped") or []
    lines += ["Skipped combinations: " + ("none." if not skipped else "")]
    lines += [f"- {s}" for s in skipped]
    return "\n".join(lines).rstrip() + "\n"


def write_doc(doc, body):
    text = open(doc).read() if os.path.exists(doc) else "# Benchmarks\n"
    block = f"{BEGIN}\n{body}{END}"
    if BEGIN in text and END in text:
        text = re.sub(re.escape(BEGIN) + ".*?" + re.escape(END), lambda _: block, text, flags=re.S)
    elif SECTION in text:
        text = text.replace(SECTION, SECTION + "\n\n" + block, 1)
    else:
        text = text.rstrip() + f"\n\n{SECTION}\n\n{block}\n"
    open(doc, "w").write(text)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("results")
    ap.add_argument("--doc", default="docs/benchmarks.md")
    ap.add_argument("--img-dir", default="docs/img")
    a = ap.parse_args()
    try:
        cells, meta = load(a.results)
    except OldFormat as e:
        sys.exit(str(e))
    body = generated(cells, meta, a.results, chart(cells, a.img_dir))
    write_doc(a.doc, body)
    c = counts(cells)
    print(f"ours ahead of both on {c['ahead']}/{c['total']} rows (95 % intervals apart); "
          f">= {SMALL_H2_TARGET}x JDK on {c['small_h2_met']}/{c['small_h2']} small h2 rows", file=sys.stderr)


if __name__ == "__main__":
    main()
