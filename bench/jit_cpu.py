#!/usr/bin/env python3
"""Prints "<CPU seconds> <JIT CPU seconds>" of the given processes: all their threads, then only
their HotSpot compiler threads (bench/run.sh's settle step compares two readings).

  python3 bench/jit_cpu.py PID...
"""
import sys

from replicated_path import jit_cpu_seconds, process_cpu_seconds

if __name__ == "__main__":
    pids = [int(p) for p in sys.argv[1:]]
    print("%.3f %.3f" % (process_cpu_seconds(pids), jit_cpu_seconds(pids)))
