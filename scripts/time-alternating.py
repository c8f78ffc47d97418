#!/usr/bin/env python3
"""Times commands against each other as whole processes, for scripts/bench.sh's Helm section.

    scripts/time-alternating.py [--blocks B] [--runs R] --cwd DIR -- CMD_A... -- CMD_B...

Each command is started directly (no shell, whose own start would add milliseconds to both),
with stdout and stderr to /dev/null. The commands run in alternating blocks of R runs (after
one unrecorded run), so that a machine whose speed drifts slows both alike. Prints one line
per command (the median of the blocks' medians, then the lowest and the highest block median,
in seconds), then the ratio A/B of the medians.
"""
import argparse
import os
import statistics
import sys
import time


def run(argv, null):
    start = time.perf_counter()
    pid = os.posix_spawnp(
        argv[0],
        argv,
        os.environ,
        file_actions=[(os.POSIX_SPAWN_DUP2, null, 1), (os.POSIX_SPAWN_DUP2, null, 2)],
    )
    os.waitpid(pid, 0)
    return time.perf_counter() - start


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--blocks", type=int, default=6)
    p.add_argument("--runs", type=int, default=5)
    p.add_argument("--cwd")
    p.add_argument("commands", nargs=argparse.REMAINDER)
    a = p.parse_args()
    words = a.commands
    if not words or words[0] != "--":
        sys.exit("time-alternating.py: commands follow --")
    commands, current = [], []
    for w in words[1:]:
        if w == "--":
            commands.append(current)
            current = []
        else:
            current.append(w)
    commands.append(current)
    if len(commands) != 2 or not all(commands):
        sys.exit("time-alternating.py: two commands, separated by --")
    if a.cwd:
        os.chdir(a.cwd)
    null = os.open(os.devnull, os.O_WRONLY)
    medians = [[], []]
    for _ in range(a.blocks):
        for i, argv in enumerate(commands):
            run(argv, null)
            medians[i].append(statistics.median(run(argv, null) for _ in range(a.runs)))
    results = [statistics.median(m) for m in medians]
    for m, r in zip(medians, results):
        print("%.4f %.4f %.4f" % (r, min(m), max(m)))
    print("%.1f" % (results[0] / results[1]))


if __name__ == "__main__":
    main()
