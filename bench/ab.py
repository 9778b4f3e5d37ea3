#!/usr/bin/env python3
"""Interleaved start-up comparison: runs each command once per round, for N
rounds, and prints each command's median wall time. Interleaving spreads the
machine's drift over all commands, which comparing separate batches does not.

    python3 bench/ab.py 500 '/bin/true' 'VAR=1 ./sbx run -- /bin/true'

A leading NAME=value sets an environment variable for that command. The
timings include Python's own fork and exec, the same for every command.

The ratio printed against the first command is the median of the
per-round ratios with a 95% bootstrap interval: a change whose interval
contains 1.000 has not been shown to matter. Each command's 90th
percentile wall time is printed too."""
import os
import random
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
    return [statistics.median(t) for t in measure_rounds(rounds, cmds)]


def measure_rounds(rounds, cmds):
    """Runs each command once per round, interleaved, and returns every
    command's wall times in seconds, one per round in round order."""
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
    return times


def paired_ratio(times, base, rounds_resampled=2000, seed=1):
    """Median over rounds of times[r] / base[r], with a 95% bootstrap
    interval. Pairing each run with the base command's run of the same
    round cancels the machine's drift, which moves both alike; the median
    of the two columns does not."""
    ratios = sorted(t / b for t, b in zip(times, base))
    rng = random.Random(seed)
    n = len(ratios)
    meds = sorted(statistics.median(rng.choices(ratios, k=n)) for _ in range(rounds_resampled))
    return statistics.median(ratios), meds[int(0.025 * len(meds))], meds[int(0.975 * len(meds)) - 1]


def percentile(times, q):
    """The q-quantile of times (nearest rank): the slow runs a median
    hides, such as a start-up cost paid in one run in three."""
    s = sorted(times)
    return s[min(len(s) - 1, int(q * len(s)))]


def main():
    rounds = int(sys.argv[1])
    cmds = sys.argv[2:]
    times = measure_rounds(rounds, cmds)
    base = times[0]
    for c, t in zip(cmds, times):
        r, lo, hi = paired_ratio(t, base)
        print(f"{c:60s} median {statistics.median(t) * 1000:7.3f} ms"
              f"  p90 {percentile(t, 0.9) * 1000:7.3f} ms"
              f"  x{r:5.3f} [{lo:5.3f}, {hi:5.3f}] paired")


if __name__ == "__main__":
    main()
