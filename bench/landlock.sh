#!/usr/bin/env bash
# Start-up cost of `sbx run` under the workspace profile (Landlock + mount,
# PID and IPC namespaces + seccomp, with the sandbox's init) against the
# bare command, a minimal Go launcher (bench/golauncher, the issue's floor),
# the barest Go launcher (bench/goforkexec: what any Go program that runs
# a command pays) and bubblewrap, in one run. Prints medians, and ratios as
# medians of per-round ratios with 95% bootstrap intervals.
#
#   bash bench/landlock.sh [RUNS]
#
# The commands are interleaved (bench/ab.py: each round runs every command
# once), so the machine's drift is spread over all of them instead of
# landing on whichever batch ran during it; pairing each run with the
# baseline's run of the same round cancels what drift remains.
set -euo pipefail
cd "$(dirname "$0")/.."
runs=${1:-500}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

CGO_ENABLED=0 go build -o "$tmp/sbx" ./cmd/sbx
go build -o "$tmp/golauncher" ./bench/golauncher
go build -o "$tmp/goforkexec" ./bench/goforkexec
command -v bwrap >/dev/null || { echo "bench/landlock.sh: bwrap (Debian package bubblewrap) is needed" >&2; exit 1; }

python3 - "$runs" "$tmp" <<'PY'
import statistics, sys
sys.path.insert(0, "bench")
from ab import measure_rounds, paired_ratio
runs, tmp = int(sys.argv[1]), sys.argv[2]
names = ["bare", "goforkexec", "golauncher", "bwrap", "sbx-danger-full-access", "sbx-workspace"]
cmds = ["/bin/true", f"{tmp}/goforkexec /bin/true", f"{tmp}/golauncher /bin/true", "bwrap --ro-bind / / /bin/true",
        f"{tmp}/sbx run --profile danger-full-access -- /bin/true", f"{tmp}/sbx run --profile workspace -- /bin/true"]
measure_rounds(max(runs // 20, 5), cmds)  # warm-up
t = dict(zip(names, measure_rounds(runs, cmds)))
print(f"{runs} interleaved rounds; median wall time of one run, and the median of the")
print("per-round ratios with a 95% bootstrap interval")
for k, v in t.items():
    g, glo, ghi = paired_ratio(v, t["golauncher"])
    b, blo, bhi = paired_ratio(v, t["bwrap"])
    print(f"  {k:24s} {statistics.median(v) * 1000:6.2f} ms   x{g:5.3f} [{glo:5.3f}, {ghi:5.3f}] golauncher"
          f"   x{b:5.3f} [{blo:5.3f}, {bhi:5.3f}] bwrap")
g, glo, ghi = paired_ratio(t["sbx-workspace"], t["golauncher"])
b, blo, bhi = paired_ratio(t["sbx-workspace"], t["bwrap"])
f, flo, fhi = paired_ratio(t["goforkexec"], t["bwrap"])
print(f"\nsbx run --profile workspace: x{g:.3f} [{glo:.3f}, {ghi:.3f}] the Go launcher floor (target <= 1.30),"
      f" x{b:.3f} [{blo:.3f}, {bhi:.3f}] bwrap (target <= 1.00)")
print(f"the barest Go launcher (goforkexec): x{f:.3f} [{flo:.3f}, {fhi:.3f}] bwrap: what a Go program pays before any sandbox")
sandbox = statistics.median(a - d for a, d in zip(t["sbx-workspace"], t["sbx-danger-full-access"]))
print(f"sandbox cost over sbx's own unsandboxed path: {sandbox * 1000:.2f} ms (median of per-round differences)")
PY
