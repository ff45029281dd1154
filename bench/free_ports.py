#!/usr/bin/env python3
"""Prints N distinct TCP ports that were free on 127.0.0.1 a moment ago, separated by spaces: the
bash harness's free_ports (bench/lib/common.sh), with the Python harness's own helper.

  python3 bench/free_ports.py N
"""
import sys

sys.dont_write_bytecode = True  # no __pycache__ in bench/ on every node start
from replicated_path import free_ports  # noqa: E402

if __name__ == "__main__":
    print(" ".join(str(port) for port in free_ports(int(sys.argv[1]))))
