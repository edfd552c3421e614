#!/usr/bin/env bash
# A throwaway PostgreSQL cluster for the tests and load runs, from Debian's
# packages: it listens only on a Unix socket in its own temporary folder, so
# it never clashes with another cluster on the machine.
#
#   eval "$(bash .ci/postgres.sh start)"   # exports SECUTIL_TEST_POSTGRES and SECUTIL_PG_DIR
#   bash .ci/postgres.sh stop "$SECUTIL_PG_DIR"
#
# start installs the postgresql package when no server is installed (as
# root; otherwise it prints nothing and the PostgreSQL tests skip). As root
# the cluster runs as the postgres user, which the package creates.
set -euo pipefail

bindir() { ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -1; }

as_owner() {
  if [ "$(id -u)" -eq 0 ]; then runuser -u postgres -- "$@"; else "$@"; fi
}

case "${1:-}" in
start)
  cd /tmp # the cluster's owner may not be allowed in the current folder
  if [ -z "$(bindir)" ]; then
    if [ "$(id -u)" -ne 0 ]; then
      echo "PostgreSQL is not installed and this is not root: the PostgreSQL tests will skip" >&2
      exit 0
    fi
    echo "installing postgresql" >&2
    apt-get update -qq >/dev/null
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq postgresql >/dev/null
  fi
  bin=$(bindir)
  dir=$(mktemp -d /tmp/secutil-pg.XXXXXX)
  [ "$(id -u)" -eq 0 ] && chown postgres: "$dir"
  as_owner "$bin/initdb" -D "$dir/data" -U postgres -A trust -E UTF8 --locale=C.UTF-8 --no-sync >"$dir/initdb.log" 2>&1 ||
    { cat "$dir/initdb.log" >&2; exit 1; }
  as_owner "$bin/pg_ctl" -D "$dir/data" -l "$dir/server.log" -w -t 60 start \
    -o "-c listen_addresses='' -c unix_socket_directories='$dir' -c max_connections=300" >/dev/null ||
    { cat "$dir/server.log" >&2; exit 1; }
  "$bin/createdb" -h "$dir" -U postgres secutil_test
  echo "export SECUTIL_PG_DIR='$dir'"
  echo "export SECUTIL_TEST_POSTGRES='postgres://postgres@/secutil_test?host=$dir&sslmode=disable'"
  ;;
stop)
  dir=${2:?usage: postgres.sh stop DIR}
  as_owner "$(bindir)/pg_ctl" -D "$dir/data" -m immediate stop >/dev/null 2>&1 || true
  rm -rf "$dir"
  ;;
*)
  echo "usage: postgres.sh start | stop DIR" >&2
  exit 2
  ;;
esac
