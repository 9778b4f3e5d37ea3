#!/usr/bin/env bash
# Start-up cost of running from an artifact file, and of TCP port ranges.
# Times `sbx run -- /bin/true` under the built-in workspace profile (the
# baseline: sbx embeds it pre-decoded), the same profile compiled to an
# artifact file (read, verified and decoded at each start), a ports profile
# with a few ports and a short range (102 Landlock rules: Landlock's
# network rules name single ports) and one that connects to 1-65535 and
# binds 1024-65535 (65,535 rules), interleaved (bench/ab.py), and prints
# medians and paired ratios against the baseline.
#
#   bash bench/artifacts.sh [RUNS]
set -euo pipefail
cd "$(dirname "$0")/.."
runs=${1:-100}
# Not below /tmp: the profiles write /tmp, and sbx refuses an artifact its
# own profile could rewrite.
tmp=$(mktemp -d -p /var/tmp)
trap 'rm -rf "$tmp"' EXIT
CGO_ENABLED=0 go build -o "$tmp/sbx" ./cmd/sbx
go build -o "$tmp/sbc" ./cmd/sbc
cat >"$tmp/ports.hcl" <<'HCL'
profile "ports-few" {
  extends = "workspace"
  network {
    mode        = "ports"
    reason      = "bench"
    connect_tcp = [443, "8000-8100"]
  }
}

profile "ports-wide" {
  extends = "workspace"
  network {
    mode        = "ports"
    reason      = "bench"
    connect_tcp = ["1-65535"]
    bind_tcp    = ["1024-65535"]
  }
}
HCL
"$tmp/sbc" compile -p workspace -o "$tmp/workspace.json" 2>/dev/null
for p in ports-few ports-wide; do
  "$tmp/sbc" compile -p "$p" -o "$tmp/$p.json" "$tmp/ports.hcl" 2>/dev/null
done
# The working directory (written by the profiles) holds no artifact.
mkdir "$tmp/cwd"
cd "$tmp/cwd"
TMPDIR=/tmp python3 "$OLDPWD/bench/ab.py" "$runs" \
  "$tmp/sbx run --profile workspace -- /bin/true" \
  "$tmp/sbx run --artifact $tmp/workspace.json -- /bin/true" \
  "$tmp/sbx run --artifact $tmp/ports-few.json -- /bin/true" \
  "$tmp/sbx run --artifact $tmp/ports-wide.json -- /bin/true"
