#!/usr/bin/env python3
"""Renders a benchmark results file (bench/results/*.json) as the "Store under load" section
of docs/benchmarks.md, with PNG charts.

  render.py RESULTS --doc docs/benchmarks.md --img-dir docs/img   rewrite the section + charts
  render.py RESULTS --summary                                     print the key figures

Only the text between the two marker comments below is replaced, so other sections of the
document stay as they are; when the markers are missing, the section is appended. Charts
need matplotlib (bench/.venv); without it the tables are still written and the section says
that the charts were not regenerated.
"""
import argparse
import json
import os
import sys

BEGIN = "<!-- BEGIN GENERATED: store-under-load (bench/report/render.py; do not edit by hand) -->"
END = "<!-- END GENERATED: store-under-load -->"
SECTION_TITLE = "## Store under load"
SCENARIO_ORDER = ["get", "put", "mix", "range"]
SCENARIO_LABEL = {"get": "GET", "put": "PUT", "mix": "50/50 mix", "range": "range (10k records)",
                  "baseline": "nginx fixed 200"}
LATENCY_KEYS = [("p50", "p50"), ("p90", "p90"), ("p99", "p99"), ("p999", "p99.9")]


def ms(v):
    if v is None:
        return "–"
    return "%.2f" % v if v < 10 else "%.1f" % v if v < 100 else "%.0f" % v


def pct(v):
    return "–" if v is None else "%.2f %%" % (100 * v) if v else "0"


def times(v):
    return "–" if v is None else "%.2f×" % v


def rps(v):
    return "–" if v is None else "{:,.0f}".format(v).replace(",", " ")


def ordered(results):
    return sorted(results, key=lambda e: (e["nodes"], SCENARIO_ORDER.index(e["scenario"])
                                          if e["scenario"] in SCENARIO_ORDER else 99))


def table(header, rows):
    out = ["| " + " | ".join(header) + " |", "|" + "|".join("---" for _ in header) + "|"]
    out += ["| " + " | ".join(str(c) for c in row) + " |" for row in rows]
    return "\n".join(out)


def half_rate(entry):
    """The open-loop step closest to 50 % of the closed-loop maximum."""
    if not entry["open"]:
        return None
    return min(entry["open"], key=lambda o: abs(o["percent_of_max"] - 50))


def nodes_label(n):
    return "1 node" if n == 1 else "%d nodes" % n


def all_fragments(r):
    b = r.get("baseline") or {}
    out = ([b["closed"]] if b.get("closed") else []) + b.get("open", [])
    for e in r["results"]:
        out += ([e["closed"]] if e["closed"] else []) + e["open"]
    return out + r.get("prefill", []) + r.get("http2", [])


# ---------------------------------------------------------------------------------------
def run_info(r):
    c, m, t = r["config"], r["machine"], r["tools"]
    lines = [
        "Run `%s` (git `%s`%s), %s, %s mode." % (
            r["run_id"], (r["git"]["rev"] or "?")[:12], ", uncommitted changes" if r["git"]["dirty"] else "",
            (r["started"] or "?")[:19].replace("T", " ") + " UTC", "quick" if c.get("quick") else "full"),
        "",
        "- Machine: %s cores (%s), %s MiB, kernel %s%s." % (
            m.get("cores"), m.get("cpu_model", "?"), m.get("memory_mb", "?"), m.get("kernel"),
            ", " + m["os"] if m.get("os") else ""),
        "- Pinning: servers (nodes, nginx) on CPU %s, load generators on CPU %s." % (
            c.get("server_cpus"), c.get("load_cpus")),
        "- Steps: %s s measured (after a %s s warm-up for wrk); wrk %s connections (%s for range reads); "
        "open-loop rates %s %% of each scenario's closed-loop maximum; %s keys of %s bytes prefilled; "
        "ranges of %s records." % (
            c.get("duration_s"), c.get("warmup_s"), c.get("connections"), c.get("range_connections", "the same"),
            "/".join(str(x) for x in c.get("rates_percent", [])), c.get("keys"), c.get("value_bytes"),
            c.get("range_records")),
        "- Tools: " + "; ".join("%s" % v for k, v in sorted(t.items()) if v) + ".",
    ]
    if c.get("settled"):
        lines.insert(-1, "- Settling before the scenarios (closed-loop mix until the nodes' JIT used at most %s %% of "
                         "their CPU in 10 s, at most %s s): %s." % (c.get("settle_jit_percent"), c.get("settle_max_s"),
                                                                   c["settled"].replace(";", "; ")))
    loads = [f["loadavg_1m"] for f in all_fragments(r) if f.get("loadavg_1m") is not None]
    if loads:
        lines.append("- Load average (1 min) at the end of the steps: %.1f to %.1f (it counts runnable threads, the "
                     "benchmark's own nodes and load generators included, on %s cores)." % (min(loads), max(loads),
                                                                                          m.get("cores")))
    if c.get("fake_nodes"):
        lines.append("- **Harness test**: nginx instances stood in for the nodes; these are not ringkv figures.")
    if c.get("jvm_opts"):
        lines.append("- Extra JVM options: `%s`." % c["jvm_opts"])
    if c.get("node_args"):
        lines.append("- Extra `ringkv serve` flags: `%s`." % c["node_args"])
    return "\n".join(lines)


def headline(r):
    rows = []
    base = r["baseline"]["closed"]["rps"] if r.get("baseline") and r["baseline"].get("closed") else None
    if base:
        rows.append(["nginx (fixed 2-byte 200)", "1 worker", rps(base), "1.00×", "", ""])
    for e in ordered(r["results"]):
        if e["scenario"] not in ("get", "put") or not e["closed"]:
            continue
        h = half_rate(e)
        rows.append([SCENARIO_LABEL[e["scenario"]], nodes_label(e["nodes"]), rps(e["closed"]["rps"]),
                     times(e["ratio_to_nginx"]["rps"]),
                     "%s / %s ms" % (ms(h["latency_ms"]["p50"]), ms(h["latency_ms"]["p99"])) if h else "–",
                     rps(h["offered_rps"]) if h else "–"])
    return table(["", "cluster", "max req/s (wrk)", "vs nginx", "p50 / p99 at ~half max", "at req/s"], rows)


def closed_table(r):
    rows = []
    b = r.get("baseline") or {}
    if b.get("closed"):
        c = b["closed"]
        rows.append(["nginx fixed 200", "–", rps(c["rps"]), "1.00×", ms(c["latency_ms"]["p50"]),
                     ms(c["latency_ms"]["p99"]), ms(c["latency_ms"]["max"]), c["non2xx"], c["socket_errors"]])
    for e in ordered(r["results"]):
        c = e["closed"]
        if not c:
            continue
        label = SCENARIO_LABEL.get(e["scenario"], e["scenario"])
        if e["scenario"] == "range":
            label += " (%s records/s)" % rps(c["rps"] * r["config"].get("range_records", 0))
        rows.append([label, e["nodes"], rps(c["rps"]), times(e["ratio_to_nginx"]["rps"]),
                     ms(c["latency_ms"]["p50"]), ms(c["latency_ms"]["p99"]), ms(c["latency_ms"]["max"]),
                     c["non2xx"], c["socket_errors"]])
    return table(["scenario", "nodes", "req/s", "vs nginx", "p50 ms", "p99 ms", "max ms", "non-2xx",
                  "socket errors"], rows)


def open_table(r):
    rows = []
    entries = []
    if r.get("baseline") and r["baseline"]["open"]:
        entries.append(("nginx fixed 200", "–", sorted(r["baseline"]["open"], key=lambda o: o["offered_rps"])))
    entries += [(SCENARIO_LABEL.get(e["scenario"], e["scenario"]), e["nodes"], e["open"]) for e in ordered(r["results"])]
    for label, nodes, opens in entries:
        for o in opens:
            lat = o["latency_ms"]
            sent = rps(o["achieved_rps"]) + (" †" if generator_limited(o) else "")
            vs = o.get("latency_ratio_to_nginx")
            rows.append([label, nodes, "%d %%" % o["percent_of_max"], rps(o["offered_rps"]), sent]
                        + [ms(lat[k]) for k, _ in LATENCY_KEYS] + [ms(lat["max"]), pct(o["error_ratio"]),
                                                                    pct(o["ratio_503"]),
                                                                    times(vs["p99"]) if vs else ""])
    return table(["scenario", "nodes", "rate", "offered/s", "sent/s", "p50 ms", "p90 ms", "p99 ms", "p99.9 ms",
                  "max ms", "errors", "503", "p99 vs nginx"], rows)


def generator_limited(o):
    """vegeta sent clearly less than offered: the step measured the generator's ceiling."""
    return o["achieved_rps"] < 0.9 * o["offered_rps"]


def http2_text(r):
    if not r.get("http2"):
        return "Not measured in this run."
    lines = []
    for h in r["http2"]:
        if h["kind"] == "skipped":
            lines.append("- %s: skipped — %s." % (nodes_label(h["nodes"]), h["reason"]))
        else:
            lines.append("- %s: %s req/s (h2load, %s connections × %s streams, GET)." % (
                nodes_label(h["nodes"]), rps(h["rps"]), h["connections"], h["streams"]))
    return "\n".join(lines)


def profile_text(r):
    if not r.get("profiles"):
        return ("Not recorded in this run (`./ringkv bench --profile` records a JFR profile of the first "
                "node of each cluster during GET and PUT).")
    out = []
    others = sorted({p["run_id"] for p in r["profiles"] if p.get("run_id") and p["run_id"] != r["run_id"]})
    if others:
        out.append("From run `%s` (with `--profile`; its figures are in its results file)." % ", ".join(others))
    for p in r["profiles"]:
        out.append("<details><summary>%s, %s (first node; <code>%s</code>, %s s window)</summary>\n\n"
                   "```\n%s\n```\n</details>" % (
                       SCENARIO_LABEL.get(p["scenario"], p["scenario"]), nodes_label(p["nodes"]), p["jfr"],
                       p["window_s"], "\n".join(p["summary"].rstrip().splitlines()[:80])))
    return "\n\n".join(out)


def section(r, charts, img_rel):
    parts = [
        BEGIN, "",
        run_info(r), "",
        "### Headline", "",
        headline(r), "",
        "### Closed loop: maximum throughput (wrk)", "",
        "`non-2xx` counts every status ≥ 400; for GET and the mix it includes the expected 404s of the "
        "missing keys (about 20 % of GETs). Percentiles of several wrk processes (one per node) are "
        "request-weighted means.", "",
        closed_table(r), "",
        "### Open loop: latency at constant rates (vegeta)", "",
        "Rates are fractions of each scenario's own closed-loop maximum; nginx ran at the rates of the "
        "first GET scenario, and `p99 vs nginx` compares p99 at the same offered rate. "
        "† marks steps where vegeta sent less than 90 % of the offered rate: the generator itself "
        "could not keep up, and that step's latencies include its own queueing. `errors` counts answers "
        "other than the expected statuses (and transport errors, 5 s timeouts); `503` is the server's "
        "overload answer.", "",
        open_table(r), "",
    ]
    if charts:
        parts += ["![Throughput per scenario](%s/throughput.png)" % img_rel, ""]
        parts += ["![Latency percentiles against offered rate, %s](%s/%s)" % (nodes_label(n), img_rel, name)
                  for n, name in charts] + [""]
    else:
        parts += ["_Charts not regenerated (matplotlib unavailable when this section was rendered)._", ""]
    parts += ["### HTTP/2 (h2load)", "", http2_text(r), "",
              "### Where the time goes (JFR)", "", profile_text(r), "", END]
    return "\n".join(parts)


# ---------------------------------------------------------------------------------------
def draw_charts(r, img_dir):
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        return None
    os.makedirs(img_dir, exist_ok=True)
    entries = [e for e in ordered(r["results"]) if e["closed"]]
    labels, values, colors = [], [], []
    if r.get("baseline") and r["baseline"].get("closed"):
        labels.append("nginx\nfixed 200")
        values.append(r["baseline"]["closed"]["rps"])
        colors.append("#888888")
    palette = {1: "#1f77b4", 3: "#ff7f0e"}
    for e in entries:
        labels.append("%s\n%s" % (SCENARIO_LABEL.get(e["scenario"], e["scenario"]).replace(" (10k records)", ""),
                                  nodes_label(e["nodes"])))
        values.append(e["closed"]["rps"])
        colors.append(palette.get(e["nodes"], "#2ca02c"))
    fig, ax = plt.subplots(figsize=(max(6, 0.9 * len(labels) + 2), 4.2))
    bars = ax.bar(range(len(values)), values, color=colors)
    ax.set_xticks(range(len(values)), labels, fontsize=8)
    ax.set_ylabel("requests per second (wrk; range: 8 connections)")
    ax.set_title("Closed-loop maximum throughput (%s)" % r["run_id"], fontsize=10)
    for b, v in zip(bars, values):
        ax.annotate("%.0f" % v, (b.get_x() + b.get_width() / 2, v), ha="center", va="bottom", fontsize=7)
    ax.grid(axis="y", alpha=0.3)
    fig.tight_layout()
    fig.savefig(os.path.join(img_dir, "throughput.png"), dpi=110)
    plt.close(fig)

    charts = []
    for n in sorted({e["nodes"] for e in entries}):
        mine = [e for e in entries if e["nodes"] == n and e["open"]]
        if not mine:
            continue
        fig, axes = plt.subplots(1, len(mine), figsize=(4 * len(mine), 3.6), squeeze=False)
        for ax, e in zip(axes[0], mine):
            rates = [o["offered_rps"] for o in e["open"]]
            for key, label in LATENCY_KEYS + [("max", "max")]:
                ax.plot(rates, [max(o["latency_ms"][key], 1e-3) for o in e["open"]], marker="o", ms=3, label=label)
            ax.axvline(e["closed"]["rps"], color="grey", ls="--", lw=0.8)
            ax.set_yscale("log")
            ax.set_xlabel("offered req/s (dashed: wrk max)")
            ax.set_title(SCENARIO_LABEL.get(e["scenario"], e["scenario"]), fontsize=10)
            ax.grid(alpha=0.3, which="both")
        axes[0][0].set_ylabel("latency ms (log)")
        axes[0][-1].legend(fontsize=7)
        fig.suptitle("Latency against offered rate, %s (vegeta)" % nodes_label(n), fontsize=10)
        fig.tight_layout()
        name = "latency-%dnode.png" % n
        fig.savefig(os.path.join(img_dir, name), dpi=110)
        plt.close(fig)
        charts.append((n, name))
    return charts


def replace_section(doc_path, text):
    old = open(doc_path).read() if os.path.exists(doc_path) else "# Benchmarks\n"
    if BEGIN in old and END in old:
        head, rest = old.split(BEGIN, 1)
        tail = rest.split(END, 1)[1]
        new = head + text + tail
    else:
        new = old.rstrip("\n") + "\n\n" + SECTION_TITLE + "\n\n" + text + "\n"
    with open(doc_path, "w") as f:
        f.write(new)


def summary(r):
    lines = ["Key figures (%s):" % r["run_id"]]
    b = r.get("baseline") or {}
    if b.get("closed"):
        lines.append("  nginx baseline: %s req/s" % rps(b["closed"]["rps"]))
    for e in ordered(r["results"]):
        if not e["closed"]:
            continue
        h = half_rate(e)
        lines.append("  %-6s %-8s %9s req/s  %6s nginx  p50/p99 at %s/s: %s" % (
            e["scenario"], nodes_label(e["nodes"]), rps(e["closed"]["rps"]), times(e["ratio_to_nginx"]["rps"]),
            rps(h["offered_rps"]) if h else "–",
            "%s / %s ms" % (ms(h["latency_ms"]["p50"]), ms(h["latency_ms"]["p99"])) if h else "–"))
    for h in r.get("http2", []):
        if h["kind"] == "skipped":
            lines.append("  HTTP/2 (%s): skipped - %s" % (nodes_label(h["nodes"]), h["reason"]))
    return "\n".join(lines)


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("results")
    p.add_argument("--doc", help="markdown file whose generated section is replaced")
    p.add_argument("--img-dir", help="where the PNG charts go (default: img/ beside --doc)")
    p.add_argument("--summary", action="store_true", help="print the key figures")
    p.add_argument("--profiles-from", metavar="RESULTS",
                   help="take the JFR profiles from another results file (e.g. a --profile run, so that "
                        "the figures come from an unprofiled one)")
    a = p.parse_args()
    with open(a.results) as f:
        r = json.load(f)
    if a.profiles_from:
        with open(a.profiles_from) as f:
            other = json.load(f)
        r["profiles"] = [dict(prof, run_id=other["run_id"]) for prof in other.get("profiles", [])]
    if a.summary:
        print(summary(r))
    if a.doc:
        img_dir = a.img_dir or os.path.join(os.path.dirname(os.path.abspath(a.doc)), "img")
        charts = draw_charts(r, img_dir)
        img_rel = os.path.relpath(img_dir, os.path.dirname(os.path.abspath(a.doc)))
        replace_section(a.doc, section(r, charts, img_rel))
    if not a.summary and not a.doc:
        p.error("nothing to do: give --doc and/or --summary")


if __name__ == "__main__":
    sys.exit(main())
