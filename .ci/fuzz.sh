#!/usr/bin/env bash
# Runs every Go fuzz target in the module for FUZZTIME each (default 10s).
# New crashers are written by go test under the package's testdata/fuzz/ and
# fail the run; commit them as regression seeds once fixed.
set -euo pipefail
cd "$(dirname "$0")/.."
fuzztime="${FUZZTIME:-10s}"
count=0
for pkg in $(go list ./...); do
  dir=$(go list -f '{{.Dir}}' "$pkg")
  for target in $(grep -ho '^func Fuzz[A-Za-z0-9_]*' "$dir"/*_test.go 2>/dev/null | sed 's/^func //' | sort -u); do
    echo "== fuzz $pkg $target ($fuzztime)"
    # On a busy machine the fuzzer can run out of time while still gathering
    # its baseline ("context deadline exceeded"); that is no finding, so try
    # once more. A real crasher is saved under testdata/fuzz and fails again.
    if ! out=$(go test -run '^$' -fuzz "^${target}\$" -fuzztime "$fuzztime" -fuzzminimizetime 2s "$pkg" 2>&1); then
      echo "$out" | tail -20
      if grep -q 'context deadline exceeded' <<<"$out" && ! grep -q 'testdata/fuzz' <<<"$out"; then
        echo "(baseline timed out; retrying once)"
        go test -run '^$' -fuzz "^${target}\$" -fuzztime "$fuzztime" -fuzzminimizetime 2s "$pkg"
      else
        exit 1
      fi
    else
      echo "$out" | tail -2
    fi
    count=$((count + 1))
  done
done
echo "fuzzed $count targets for $fuzztime each"
