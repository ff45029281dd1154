#!/usr/bin/env python3
"""Prints the table of POST rows by body publisher, and optionally draws its chart.

Input: the JMH JSON of a client run with -p publisher=JDK,NO_COPY (and Jetty, which ignores the
parameter, so it is measured once per publisher value). Output on stdout: one Markdown row per
(mode, size, protocol, TLS) with each java.net.http client under each publisher, Jetty's forks,
ours-without-copy divided by Jetty's mean and by the JDK-without-copy, and the bytes our client
allocated per request. Then the forks with more than 5 % stolen CPU. With a second argument,
the chart (ops/s of each java.net.http client and publisher relative to Jetty's mean) as PNG;
that needs matplotlib (bench/.venv).

    bench/.venv/bin/python bench/report/publisher_report.py RESULTS.json [docs/img/client-nocopy.png]
"""
import collections
import json
import sys

SIZES = {122880: "120 KiB", 1048576: "1 MiB"}
SERIES = [("JDK/JDK", "JDK, ofByteArray"), ("JDK/NO_COPY", "JDK, no copy"),
          ("RING/JDK", "ours, ofByteArray"), ("RING/NO_COPY", "ours, no copy")]


def load(path):
    rows = collections.defaultdict(lambda: collections.defaultdict(list))
    for result in json.load(open(path)):
        p = result["params"]
        key = (result["benchmark"].split(".")[-1], int(p["size"]), p["protocol"], p["tls"])
        column = "JETTY" if p["client"] == "JETTY" else p["client"] + "/" + p["publisher"]
        secondary = result["secondaryMetrics"]
        rows[key][column].append({
            "ops": result["primaryMetric"]["score"],
            "alloc": secondary.get("client.alloc.norm", {}).get("score", float("nan")),
            "steal": secondary.get("host.steal", {}).get("score", float("nan")),
        })
    return dict(sorted(rows.items(), key=lambda kv: (kv[0][0] != "oneCaller", kv[0][1], kv[0][2], kv[0][3])))


def mean_ops(forks):
    return sum(f["ops"] for f in forks) / len(forks) if forks else float("nan")


def table(rows):
    out = ["| mode | body | protocol | TLS | JDK, copying | JDK, no copy | Jetty | ours, copying | ours, no copy"
           " | ours no copy ÷ Jetty | ours no copy ÷ JDK no copy | bytes allocated per request, ours copying / no copy |",
           "|---|---|---|---|--:|--:|--:|--:|--:|--:|--:|--:|"]
    ahead = 0
    for (mode, size, protocol, tls), r in rows.items():
        jetty = [f["ops"] for f in r["JETTY"]]
        ours = mean_ops(r["RING/NO_COPY"])
        jdk = mean_ops(r["JDK/NO_COPY"])
        ahead += ours > max(jetty) and ours > jdk
        alloc = " / ".join(f"{r[c][0]['alloc'] / 1024:,.1f} K" for c in ("RING/JDK", "RING/NO_COPY"))
        out.append(f"| {'one caller' if mode == 'oneCaller' else '64 in flight'} | {SIZES.get(size, size)}"
                   f" | {'1.1' if protocol == 'H1' else 'h2'} | {'yes' if tls == 'true' else 'no'}"
                   f" | {mean_ops(r['JDK/JDK']):,.0f} | {jdk:,.0f} | {' / '.join(f'{j:,.0f}' for j in jetty)}"
                   f" | {mean_ops(r['RING/JDK']):,.0f} | {ours:,.0f} | **{ours / (sum(jetty) / len(jetty)):.2f}**"
                   f" | **{ours / jdk:.2f}** | {alloc} |")
    out.append("")
    out.append(f"Ours without the copy above both Jetty forks and the JDK without the copy: {ahead} of {len(rows)}.")
    stolen = sorted(((f["steal"], column, key) for key, r in rows.items() for column, forks in r.items()
                     for f in forks if f["steal"] > 5), reverse=True)
    for steal, column, key in stolen:
        out.append(f"- {steal:.1f} % stolen: {column} {key}")
    return "\n".join(out)


def chart(rows, run_name, png):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    labels = [f"{'1 caller' if m == 'oneCaller' else '64 in flight'}\n{SIZES.get(s, s)} {'1.1' if p == 'H1' else 'h2'}"
              f"{' TLS' if t == 'true' else ''}" for (m, s, p, t) in rows]
    fig, ax = plt.subplots(figsize=(14, 5))
    width = 0.2
    for i, (column, name) in enumerate(SERIES):
        values = [mean_ops(r[column]) / mean_ops(r["JETTY"]) for r in rows.values()]
        ax.bar([x + (i - 1.5) * width for x in range(len(rows))], values, width, label=name)
    ax.axhline(1.0, color="k", lw=1, ls="--")
    ax.set_ylabel("ops/s ÷ Jetty client (same run)")
    ax.set_xticks(range(len(rows)))
    ax.set_xticklabels(labels, fontsize=7)
    ax.legend(fontsize=8)
    ax.set_title(f"POST bodies: the JDK publisher's copy against ringkv's no-copy publisher (run {run_name})")
    fig.tight_layout()
    fig.savefig(png, dpi=110)


def main():
    if len(sys.argv) not in (2, 3):
        sys.exit(__doc__)
    rows = load(sys.argv[1])
    print(table(rows))
    if len(sys.argv) == 3:
        chart(rows, sys.argv[1].rsplit("/", 1)[-1].removesuffix(".json"), sys.argv[2])


if __name__ == "__main__":
    main()
