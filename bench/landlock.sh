#!/usr/bin/env bash
# Start-up cost of `sbx run` under the workspace profile (Landlock + mount,
# PID and IPC namespaces + seccomp, with the sandbox's init) against the
# bare command, a minimal Go launcher and bubblewrap, in one run. Prints
# medians and ratios.
#
#   bash bench/landlock.sh [RUNS]
#
# The commands are interleaved (bench/ab.py: each round runs every command
# once), so the machine's drift is spread over all of them instead of
# landing on whichever batch ran during it.
set -euo pipefail
cd "$(dirname "$0")/.."
runs=${1:-500}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

CGO_ENABLED=0 go build -o "$tmp/sbx" ./cmd/sbx
go build -o "$tmp/golauncher" ./bench/golauncher
command -v bwrap >/dev/null || { echo "bench/landlock.sh: bwrap (Debian package bubblewrap) is needed" >&2; exit 1; }

python3 - "$runs" "$tmp" <<'PY'
import sys
sys.path.insert(0, "bench")
from ab import measure
runs, tmp = int(sys.argv[1]), sys.argv[2]
names = ["bare", "golauncher", "bwrap", "sbx-danger-full-access", "sbx-workspace"]
cmds = ["/bin/true", f"{tmp}/golauncher /bin/true", "bwrap --ro-bind / / /bin/true",
        f"{tmp}/sbx run --profile danger-full-access -- /bin/true", f"{tmp}/sbx run --profile workspace -- /bin/true"]
measure(max(runs // 20, 5), cmds)  # warm-up
r = dict(zip(names, (m * 1000 for m in measure(runs, cmds))))
gl, bw, sbx = r["golauncher"], r["bwrap"], r["sbx-workspace"]
print(f"{runs} interleaved rounds, median wall time of one run")
for k, v in r.items():
    print(f"  {k:24s} {v:6.2f} ms   x{v/gl:4.2f} golauncher   x{v/bw:4.2f} bwrap")
print(f"\nsbx run --profile workspace: {sbx/gl:.2f}x the Go launcher floor (target <= 1.30), {sbx/bw:.2f}x bwrap (target <= 1.00)")
print(f"sandbox cost over sbx's own unsandboxed path: {sbx - r['sbx-danger-full-access']:.2f} ms")
PY
