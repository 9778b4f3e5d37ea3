#!/usr/bin/env bash
# Start-up cost of `sbx run` under the workspace profile (Landlock + mount,
# PID and IPC namespaces + seccomp, with the sandbox's init) against the
# bare command, a minimal Go launcher and bubblewrap, in one run. Prints
# medians and ratios.
#
#   bash bench/landlock.sh [RUNS]
set -euo pipefail
cd "$(dirname "$0")/.."
runs=${1:-300}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

CGO_ENABLED=0 go build -o "$tmp/sbx" ./cmd/sbx
if [ -d bench/golauncher ]; then
  go build -o "$tmp/golauncher" ./bench/golauncher
else
  # The floor: a Go program that starts /bin/true with os/exec and waits.
  mkdir -p "$tmp/gl"
  cat > "$tmp/gl/main.go" <<'GO'
package main

import (
	"os"
	"os/exec"
)

func main() {
	cmd := exec.Command(os.Args[1], os.Args[2:]...)
	cmd.Stdout, cmd.Stderr = os.Stdout, os.Stderr
	if err := cmd.Run(); err != nil {
		os.Exit(1)
	}
}
GO
  (cd "$tmp/gl" && go mod init gl >/dev/null 2>&1 && go build -o "$tmp/golauncher" .)
fi

hyperfine -N --warmup 30 --runs "$runs" --export-json "$tmp/r.json" \
  -n bare '/bin/true' \
  -n golauncher "$tmp/golauncher /bin/true" \
  -n 'sbx-workspace' "$tmp/sbx run --profile workspace -- /bin/true" \
  -n 'sbx-danger-full-access' "$tmp/sbx run --profile danger-full-access -- /bin/true" \
  -n 'bwrap' 'bwrap --ro-bind / / /bin/true' >/dev/null

python3 - "$tmp/r.json" <<'PY'
import json, statistics, sys
r = {x["command"]: statistics.median(x["times"]) * 1000 for x in json.load(open(sys.argv[1]))["results"]}
gl, bw, sbx = r["golauncher"], r["bwrap"], r["sbx-workspace"]
for k, v in r.items():
    print(f"{k:24s} median {v:6.2f} ms   x{v/gl:4.2f} golauncher   x{v/bw:4.2f} bwrap")
print(f"\nsbx run --profile workspace: {sbx/gl:.2f}x the Go launcher floor (target <= 1.30), {sbx/bw:.2f}x bwrap (target <= 1.00)")
print(f"sandbox cost over sbx's own unsandboxed path: {sbx - r['sbx-danger-full-access']:.2f} ms")
PY
