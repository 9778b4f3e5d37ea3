#!/usr/bin/env bash
# Benchmarks of sbx run against its baselines, measured in the same run:
#   bash bench/run.sh [-n RUNS] [-drain-n RUNS] [-drain-bytes BYTES]
# Builds sbx, the minimal Go launcher and the harness, then prints medians
# and ratios (sbxbench). When hyperfine is installed it also prints its view
# of the start-up comparison as a cross-check; without it the harness's own
# timing loop is the measurement.
set -euo pipefail
cd "$(dirname "$0")/.."
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

go build -o "$tmp/sbx" ./cmd/sbx
go build -o "$tmp/golauncher" ./bench/golauncher
go build -o "$tmp/execlauncher" ./bench/execlauncher
go build -o "$tmp/sbxbench" ./bench/sbxbench

"$tmp/sbxbench" -sbx "$tmp/sbx" -golauncher "$tmp/golauncher" -execlauncher "$tmp/execlauncher" "$@"

if command -v hyperfine >/dev/null 2>&1; then
  echo
  echo "hyperfine cross-check (start-up):"
  hyperfine -N --warmup 20 --runs 300 --style basic \
    '/bin/true' \
    "$tmp/golauncher /bin/true" \
    "$tmp/sbx run --profile danger-full-access -- /bin/true" 2>&1 | grep -Ev '^\s*$'
fi
