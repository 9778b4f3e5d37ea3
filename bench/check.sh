#!/usr/bin/env bash
# Benchmark of `sbc check` with the built-in rules: generates 1,000 varied
# profiles (40 files of 25), checks them end to end (HCL parsing, policy
# preparation, evaluation, text report) and reports profiles per second.
# Then runs the Go measurement of the policy engine alone: one-time
# preparation, per-profile evaluation time, and the 1,000-profile run
# (failing if it takes over 2 s).
#
# Usage: bench/check.sh [N_PROFILES]    (from the repository root)
set -euo pipefail
cd "$(dirname "$0")/.."
n=${1:-1000}
per_file=25
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

go build -o "$work/sbc" ./cmd/sbc

anchors=(root cwd home tmpdir slash_tmp)
rels=("" src build .cache .config .ssh .aws node_modules .git usr etc var/cache .bashrc docs out/gen)
mkdir -p "$work/profiles"
i=0
RANDOM=42
while [ "$i" -lt "$n" ]; do
  f="$work/profiles/team$((i / per_file)).hcl"
  access=(read write deny)
  {
    echo "profile \"p$i\" {"
    echo "  filesystem {"
    for a in read write deny; do
      list=()
      for _ in $(seq $((RANDOM % 5 + 1))); do
        anchor=${anchors[$((RANDOM % ${#anchors[@]}))]}
        rel=${rels[$((RANDOM % ${#rels[@]}))]}
        if [ "$anchor" = root ]; then
          [ -z "$rel" ] && [ "$a" != read ] && rel=usr
          list+=("\"/$rel\"")
        elif [ -z "$rel" ]; then
          list+=("$anchor")
        else
          list+=("path($anchor, \"$rel\")")
        fi
      done
      echo "    $a = [$(IFS=,; echo "${list[*]}")]"
    done
    [ $((RANDOM % 2)) = 0 ] && echo '    protect = [".git"]'
    [ $((RANDOM % 3)) = 0 ] && echo '    deny_glob = ["**/*.pem", "**/.env"]'
    echo "  }"
    case $((RANDOM % 3)) in
      0) echo '  network {'; echo '    mode = "none"'; echo '  }' ;;
      1) echo '  network {'; echo '    mode        = "ports"'; echo '    connect_tcp = [443]'; echo '  }' ;;
      2) echo '  network {'; echo '    mode = "full"'; echo '  }' ;;
    esac
    echo "}"
  } >>"$f"
  i=$((i + 1))
done

echo "== sbc check: $n profiles in $(ls "$work/profiles" | wc -l) files, built-in rules, 2 runs"
for run in 1 2; do
  start=$(date +%s.%N)
  set +e
  "$work/sbc" check "$work/profiles" >"$work/out.txt" 2>"$work/err.txt"
  code=$?
  set -e
  end=$(date +%s.%N)
  if [ "$code" -ge 2 ]; then
    cat "$work/err.txt" >&2
    exit 1
  fi
  awk -v s="$start" -v e="$end" -v n="$n" 'BEGIN { t = e - s; printf "run %s: %.3f s, %.0f profiles/s\n", "'"$run"'", t, n / t }'
done
tail -1 "$work/out.txt"

echo
echo "== policy engine alone (go test -run TestCheckThroughput)"
SBX_BENCH_STRICT=1 go test -count=1 -run '^TestCheckThroughput$' -v ./policies | grep -E 'prepare|FAIL|ok'
