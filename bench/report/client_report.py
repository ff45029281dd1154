#!/usr/bin/env python3
"""Renders the "HTTP client (JMH)" section of docs/benchmarks.md from one client-bench run.

Input: the JMH JSON written by bench/client-bench.sh (and its .meta.json beside it).
Output: the text between the BEGIN/END GENERATED markers of that section (the section and its
markers are appended to the document when missing; nothing else in the document is touched)
and docs/img/client-ratio.png (ops/s relative to the JDK client; skipped when matplotlib is
missing).
"""
import argparse
import json
import os
import re
import sys

BEGIN = "<!-- BEGIN GENERATED: http-client-jmh (bench/report/client_report.py; do not edit by hand) -->"
END = "<!-- END GENERATED: http-client-jmh -->"
SECTION = "## HTTP client (JMH)"
CLIENTS = ["JDK", "JETTY", "RING"]
MODES = [("oneCaller", "one caller, sync"), ("inFlight64", "64 in flight, async")]
CHART = "client-ratio.png"


def size_label(n):
    n = int(n)
    if n >= 1 << 20 and n % (1 << 20) == 0:
        return f"{n >> 20} MiB"
    if n >= 1024 and n % 1024 == 0:
        return f"{n >> 10} KiB"
    return f"{n} B"


def load(path):
    runs = json.load(open(path))
    meta_path = re.sub(r"\.json$", ".meta.json", path)
    meta = json.load(open(meta_path)) if os.path.exists(meta_path) else {}
    cells = {}  # (mode, method, size, protocol, tls) -> client -> figures
    for r in runs:
        mode = r["benchmark"].rsplit(".", 1)[1]
        p = r["params"]
        if p.get("publisher", "JDK") != "JDK":
            continue  # the WRAPPING variant is an experiment, not a row of the table
        key = (mode, p["method"], int(p["size"]), p["protocol"], p["tls"])
        sec = r.get("secondaryMetrics", {})
        cells.setdefault(key, {})[p["client"]] = {
            "ops": r["primaryMetric"]["score"],
            "err": r["primaryMetric"].get("scoreError"),
            "bop": sec.get("client.alloc.norm", {}).get("score"),
            "threads": sec.get("client.threads", {}).get("score"),
            "steal": sec.get("host.steal", {}).get("score"),
        }
    return cells, meta


def fmt_ops(v):
    return "—" if v is None else f"{v:,.0f}"


def fmt_ratio(v, base):
    if v is None or not base:
        return "—"
    r = v / base
    return f"**{r:.2f}**" if r >= 1 else f"{r:.2f}"


def fmt_bytes(v):
    if v is None:
        return "—"
    return f"{v / 1024:,.1f} K" if v >= 10240 else f"{v:,.0f}"


def fmt_threads(v):
    return "—" if v is None else f"{v:.0f}"


def table(cells, mode):
    keys = sorted(k for k in cells if k[0] == mode)
    if not keys:
        return []
    out = ["| method | body | proto | TLS | JDK ops/s | Jetty ops/s | ours ops/s | Jetty/JDK | ours/JDK "
           "| B/req JDK / Jetty / ours | threads JDK / Jetty / ours |",
           "|---|---|---|---|--:|--:|--:|--:|--:|--:|--:|"]
    for k in sorted(keys, key=lambda k: (k[1], k[2], k[3], k[4])):
        row = cells[k]
        get = lambda c, f: row.get(c, {}).get(f)
        base = get("JDK", "ops")
        out.append("| " + " | ".join([
            k[1], size_label(k[2]), "h2" if k[3] == "H2" else "1.1", "yes" if k[4] == "true" else "no",
            fmt_ops(base), fmt_ops(get("JETTY", "ops")), fmt_ops(get("RING", "ops")),
            fmt_ratio(get("JETTY", "ops"), base), fmt_ratio(get("RING", "ops"), base),
            " / ".join(fmt_bytes(get(c, "bop")) for c in CLIENTS),
            " / ".join(fmt_threads(get(c, "threads")) for c in CLIENTS)]) + " |")
    return out


def verdict(cells):
    """Counts of rows where ours is ahead of both, and the small-body HTTP/2 target (>= 1.5x JDK)."""
    ahead = total = small_h2_met = small_h2 = 0
    for k, row in cells.items():
        if not all(c in row for c in CLIENTS):
            continue
        total += 1
        ours = row["RING"]["ops"]
        if ours > row["JDK"]["ops"] and ours > row["JETTY"]["ops"]:
            ahead += 1
        if k[3] == "H2" and k[2] <= 8192:
            small_h2 += 1
            if ours >= 1.5 * row["JDK"]["ops"]:
                small_h2_met += 1
    return ahead, total, small_h2_met, small_h2


def chart(cells, img_dir):
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        print("matplotlib missing: chart not drawn", file=sys.stderr)
        return None
    modes = [m for m in MODES if any(k[0] == m[0] for k in cells)]
    fig, axes = plt.subplots(len(modes), 1, figsize=(12, 3.6 * len(modes)), squeeze=False)
    for ax, (mode, title) in zip(axes[:, 0], modes):
        keys = sorted((k for k in cells if k[0] == mode), key=lambda k: (k[1], k[2], k[3], k[4]))
        labels = [f"{k[1]} {size_label(k[2])}\n{'h2' if k[3] == 'H2' else '1.1'}{' TLS' if k[4] == 'true' else ''}"
                  for k in keys]
        for i, (client, colour) in enumerate([("JETTY", "#8c8c8c"), ("RING", "#d62728")]):
            ratios = [cells[k].get(client, {}).get("ops", 0) / cells[k]["JDK"]["ops"]
                      if "JDK" in cells[k] and client in cells[k] else 0 for k in keys]
            xs = [x + (i - 0.5) * 0.38 for x in range(len(keys))]
            ax.bar(xs, ratios, width=0.38, color=colour, label="Jetty 12" if client == "JETTY" else "ringkv")
        ax.axhline(1.0, color="black", linewidth=0.8)
        ax.axhline(1.5, color="#1f77b4", linewidth=0.8, linestyle="--", label="target on small h2 (1.5×)")
        ax.set_xticks(range(len(keys)))
        ax.set_xticklabels(labels, fontsize=7)
        ax.set_ylabel("ops/s ÷ JDK client")
        ax.set_title(f"HTTP client throughput relative to the JDK 25 client: {title}")
        ax.legend(fontsize=8, loc="upper right")
    fig.tight_layout()
    os.makedirs(img_dir, exist_ok=True)
    fig.savefig(os.path.join(img_dir, CHART), dpi=110)
    return CHART


STEAL_NOTED = 5.0  # percent of CPU time taken by the hypervisor, above which a fork is listed


def steal_lines(cells):
    """Forks whose CPUs the hypervisor partly gave away: their ops/s say little about the client."""
    forks = [(k, c, f["steal"]) for k, row in cells.items() for c, f in row.items() if f.get("steal") is not None]
    if not forks:
        return []
    noted = sorted(((k, c, s) for k, c, s in forks if s > STEAL_NOTED), key=lambda x: -x[2])
    mean = sum(s for _, _, s in forks) / len(forks)
    out = [f"CPU time stolen by the hypervisor (JMH `host.steal`): {mean:.1f} % on average over {len(forks)} forks; "
           f"{len(noted)} above {STEAL_NOTED:.0f} %" + (":" if noted else "."), ""]
    for k, c, s in noted:
        out.append(f"- {s:.1f} %: {c} {MODES_TITLE.get(k[0], k[0])}, {k[1]} {size_label(k[2])} "
                   f"{'h2' if k[3] == 'H2' else 'HTTP/1.1'}{' TLS' if k[4] == 'true' else ''}")
    return out + [""]


MODES_TITLE = dict(MODES)


def generated(cells, meta, results_path, chart_name):
    ahead, total, met, small = verdict(cells)
    lines = [f"Results file: `{os.path.relpath(results_path)}`"
             f" (git `{meta.get('git_rev', '?')[:10]}`, {'quick' if meta.get('quick') else 'full'} run,"
             f" JMH {meta.get('warmup', '')} {meta.get('measurement', '')}, one fork per combination,"
             f" {meta.get('cores', '?')} cores, load average before/after {meta.get('loadavg_before', '?')}"
             f" / {' '.join(meta.get('loadavg_after', []))}, {meta.get('seconds', '?')} s).", "",
             f"Ours ahead of both the JDK and Jetty on **{ahead} of {total}** rows; "
             f"≥ 1.5× the JDK on **{met} of {small}** small-body (≤ 8 KiB) HTTP/2 rows.", ""]
    if chart_name:
        lines += [f"![ops/s relative to the JDK client](img/{chart_name})", ""]
    for mode, title in MODES:
        t = table(cells, mode)
        if t:
            lines += [f"**{title}**", ""] + t + [""]
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
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("results")
    ap.add_argument("--doc", default="docs/benchmarks.md")
    ap.add_argument("--img-dir", default="docs/img")
    a = ap.parse_args()
    cells, meta = load(a.results)
    body = generated(cells, meta, a.results, chart(cells, a.img_dir))
    write_doc(a.doc, body)
    ahead, total, met, small = verdict(cells)
    print(f"ours ahead of both on {ahead}/{total} rows; >= 1.5x JDK on {met}/{small} small h2 rows", file=sys.stderr)


if __name__ == "__main__":
    main()
