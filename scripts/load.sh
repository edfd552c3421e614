#!/usr/bin/env bash
# Load comparison of issue 8: metered POST /api/v1/base64 against a bare
# net/http handler doing the same JSON work, on loopback, in one run.
#   SECUTIL_LOAD_CLIENTS (default 32)  SECUTIL_LOAD_SECONDS (default 5)
set -euo pipefail
cd "$(dirname "$0")/.."
SECUTIL_LOAD=1 go test -count=1 -run '^TestLoadMeteredVsBare$' -v ./server | grep -v '^=== RUN'
