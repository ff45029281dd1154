#!/usr/bin/env python3
"""Writes a vegeta targets file (HTTP format) or an h2load URI list for one scenario.

Keys follow bench/lua/common.lua: prefilled keys are key0000000 .. key{keys-1}; GETs draw
from 125% of that space (about 20% misses); PUTs write fresh random keys; the mix alternates
GETs and overwrites of prefilled keys; range reads ask for range_records consecutive keys.
Targets alternate between the given node URLs so that a cluster's nodes share the load.
vegeta cycles through the file, so a file longer than one second of load is enough to keep
keys from repeating in a pattern the store could exploit.
The random generator is seeded, so every run sends the same requests.
"""
import argparse
import os
import random

TARGETS_PER_FILE = 100_000  # about one pass per run at the rates this machine reaches


def key(i):
    return "key%07d" % i


def request_lines(scenario, rng, keys, range_records):
    """Yields (method, path_and_query, has_body), forever."""
    get_space = keys * 5 // 4
    while True:
        if scenario == "baseline":
            yield "GET", "/", False
        elif scenario == "get":
            yield "GET", "/v0/entity?id=" + key(rng.randrange(get_space)), False
        elif scenario == "put":
            yield "PUT", "/v0/entity?id=put%010d" % rng.randrange(2**31 - 1), True
        elif scenario == "mix":
            if rng.random() < 0.5:
                yield "GET", "/v0/entity?id=" + key(rng.randrange(get_space)), False
            else:
                yield "PUT", "/v0/entity?id=" + key(rng.randrange(keys)), True
        elif scenario == "range":
            first = rng.randrange(keys - range_records + 1)
            yield "GET", "/v0/entities?start=%s&end=%s" % (key(first), key(first + range_records)), False
        else:
            raise SystemExit("unknown scenario: " + scenario)


def main():
    p = argparse.ArgumentParser(description=__doc__)
    p.add_argument("--scenario", required=True)
    p.add_argument("--format", choices=["vegeta", "uris"], default="vegeta")
    p.add_argument("--keys", type=int, default=100_000)
    p.add_argument("--range-records", type=int, default=10_000)
    p.add_argument("--value-bytes", type=int, default=100)
    p.add_argument("--count", type=int, default=TARGETS_PER_FILE)
    p.add_argument("--body-dir", default=None, help="where the request body file is written")
    p.add_argument("--seed", type=int, default=20240601)
    p.add_argument("--out", required=True)
    p.add_argument("urls", nargs="+")
    a = p.parse_args()

    body_path = None
    if a.format == "vegeta":
        body_path = os.path.join(a.body_dir or os.path.dirname(os.path.abspath(a.out)), "value.bin")
        with open(body_path, "wb") as f:
            f.write(b"v" * a.value_bytes)

    rng = random.Random(a.seed)
    lines = request_lines(a.scenario, rng, a.keys, a.range_records)
    with open(a.out, "w") as out:
        for n in range(a.count):
            method, path, has_body = next(lines)
            url = a.urls[n % len(a.urls)].rstrip("/") + path
            if a.format == "uris":
                out.write(url + "\n")
                continue
            out.write("%s %s\n" % (method, url))
            if has_body:
                out.write("@%s\n" % body_path)
            out.write("\n")


if __name__ == "__main__":
    main()
