#!/usr/bin/env python3
"""Interleaved start-up comparison: runs each command once per round, for N
rounds, and prints each command's median wall time. Interleaving spreads the
machine's drift over all commands, which comparing separate batches does not.

    python3 bench/ab.py 500 '/bin/true' 'VAR=1 ./sbx run -- /bin/true'

A leading NAME=value sets an environment variable for that command. The
timings include Python's own fork and exec, the same for every command."""
import os
import statistics
import subprocess
import sys
import time


def parse(cmd):
    env, argv = dict(os.environ), []
    for word in cmd.split():
        if "=" in word and not argv:
            k, v = word.split("=", 1)
            env[k] = v
        else:
            argv.append(word)
    return env, argv


def measure(rounds, cmds):
    """Runs each command once per round, interleaved, and returns each
    command's median wall time in seconds."""
    parsed = [parse(c) for c in cmds]
    times = [[] for _ in cmds]
    n = len(cmds)
    for r in range(rounds):
        # Each round starts with the next command: a command's time depends
        # on which one ran just before it (caches, the other CPU's state),
        # and a fixed order would give each the same neighbour every time.
        for k in range(n):
            i = (r + k) % n
            env, argv = parsed[i]
            t = time.perf_counter()
            subprocess.run(argv, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            times[i].append(time.perf_counter() - t)
    return [statistics.median(t) for t in times]


def main():
    rounds = int(sys.argv[1])
    cmds = sys.argv[2:]
    medians = measure(rounds, cmds)
    base = medians[0]
    for c, m in zip(cmds, medians):
        print(f"{c:60s} median {m * 1000:7.3f} ms  x{m / base:5.2f}")


if __name__ == "__main__":
    main()
