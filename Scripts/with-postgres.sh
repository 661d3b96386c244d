#!/usr/bin/env bash
# Scripts/with-postgres.sh COMMAND [ARGUMENTS...]
#
# Runs COMMAND beside a throwaway PostgreSQL server: starts one on loopback (a fresh cluster in a temporary folder,
# on a free port), exports HANGAR_TEST_POSTGRES_URL (postgres://hangar:hangar@127.0.0.1:PORT/hangar_test) and
# HANGAR_REQUIRE_POSTGRES=1 (a server is there, so a PostgreSQL test that cannot reach it fails rather than skips),
# runs COMMAND, stops the server and removes its folder, and exits with COMMAND's status. The server is stopped
# whatever happens: COMMAND failing, this script failing, or an interrupt (Ctrl-C, SIGTERM).
#
#     Scripts/with-postgres.sh swift test
#     Scripts/with-postgres.sh swift test --filter HangarPostgresTests
#
# When HANGAR_TEST_POSTGRES_URL is already set, no server is started: COMMAND runs against that one.
# Installs Debian's postgresql-15 when no initdb is found (on PATH or in /usr/lib/postgresql/*/bin).
# initdb refuses to run as root, so as root the server runs as the `postgres` user (runuser).
set -euo pipefail

if (($# == 0)); then
    echo "usage: $0 COMMAND [ARGUMENTS...]" >&2
    exit 64
fi

if [[ -n ${HANGAR_TEST_POSTGRES_URL:-} ]]; then
    echo "with-postgres: HANGAR_TEST_POSTGRES_URL is set; using that server" >&2
    exec "$@"
fi

# The server's programs: on PATH, else the newest in Debian's folders, else installed.
find_bin() {
    local initdb
    if initdb=$(command -v initdb 2>/dev/null); then
        dirname "$(readlink -f "$initdb")"
        return 0
    fi
    local candidate
    for candidate in $(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -t/ -k4 -n -r); do
        if [[ -x $candidate/initdb ]]; then
            echo "$candidate"
            return 0
        fi
    done
    return 1
}
if ! bin=$(find_bin); then
    echo "with-postgres: no initdb; installing postgresql-15" >&2
    if command -v apt-get >/dev/null 2>&1; then
        export DEBIAN_FRONTEND=noninteractive
        apt-get update -qq && apt-get install -y -qq postgresql-15 >&2 || true
    fi
    if ! bin=$(find_bin); then
        echo "with-postgres: PostgreSQL could not be installed (no initdb)" >&2
        exit 1
    fi
fi

# As root, the cluster belongs to `postgres` (initdb refuses root); otherwise to whoever runs this.
as_owner=()
if [[ $(id -u) == 0 ]]; then
    if ! id postgres >/dev/null 2>&1; then
        useradd --system --user-group --home-dir /var/lib/postgresql --shell /bin/bash postgres
    fi
    as_owner=(runuser -u postgres --)
fi

# A free port on loopback: asked of the kernel when python3 is there, else a random one (retried below).
free_port() {
    if command -v python3 >/dev/null 2>&1; then
        python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
    else
        echo $((20000 + RANDOM % 40000))
    fi
}

folder=$(mktemp -d "${TMPDIR:-/tmp}/hangar-postgres.XXXXXX")
chmod 755 "$folder"
if ((${#as_owner[@]})); then chown postgres: "$folder"; fi
data=$folder/data
log=$folder/server.log
started=false
child=

cleanup() {
    local status=$?
    trap - EXIT INT TERM HUP
    if [[ -n $child ]] && kill -0 "$child" 2>/dev/null; then
        # COMMAND's whole process group: `swift test` runs the tests in a child process of its own.
        kill -TERM -- "-$child" 2>/dev/null || kill -TERM "$child" 2>/dev/null || true
        wait "$child" 2>/dev/null || true
    fi
    # The pid file, not only the flag: a signal may come after pg_ctl started the server but before the flag.
    if [[ $started == true || -f $data/postmaster.pid ]]; then
        "${as_owner[@]}" "$bin/pg_ctl" -D "$data" -m immediate -w stop >/dev/null 2>&1 \
            || echo "with-postgres: WARNING: pg_ctl stop failed (see $log)" >&2
    fi
    rm -rf "$folder"
    exit "$status"
}
trap cleanup EXIT
# An interrupt ends COMMAND and stops the server (through the EXIT trap) with the usual status.
trap 'exit 130' INT
trap 'exit 143' TERM
trap 'exit 129' HUP

# Host connections need the password (SCRAM), as a real deployment's would; the socket is for this script only.
printf 'hangar\n' >"$folder/password"
if ((${#as_owner[@]})); then chown postgres: "$folder/password"; fi
"${as_owner[@]}" "$bin/initdb" -D "$data" --username=hangar --pwfile="$folder/password" \
    --auth-local=trust --auth-host=scram-sha-256 --encoding=UTF8 --locale=C.UTF-8 >"$folder/initdb.log" 2>&1 || {
    cat "$folder/initdb.log" >&2
    echo "with-postgres: initdb failed" >&2
    exit 1
}

for _ in 1 2 3 4 5; do
    port=$(free_port)
    if "${as_owner[@]}" "$bin/pg_ctl" -D "$data" -l "$log" -w -t 60 \
        -o "-k $folder -p $port -c listen_addresses=127.0.0.1 -c max_connections=200" start >/dev/null 2>&1; then
        started=true
        break
    fi
done
if [[ $started != true ]]; then
    cat "$log" >&2 || true
    echo "with-postgres: the server did not start" >&2
    exit 1
fi

"${as_owner[@]}" "$bin/psql" -h "$folder" -p "$port" -U hangar -d postgres -v ON_ERROR_STOP=1 -q \
    -c "CREATE DATABASE hangar_test" >&2

export HANGAR_TEST_POSTGRES_URL="postgres://hangar:hangar@127.0.0.1:$port/hangar_test"
export HANGAR_REQUIRE_POSTGRES=1
echo "with-postgres: PostgreSQL $("$bin/postgres" --version | awk '{ print $3 }') on 127.0.0.1:$port" \
    "(HANGAR_TEST_POSTGRES_URL=$HANGAR_TEST_POSTGRES_URL)" >&2

# In the background and waited for, so a signal to this script is handled at once (wait returns early); in a
# process group of its own (job control on), so stopping it stops what it started too.
set -m
"$@" &
child=$!
set +m
set +e
wait "$child"
status=$?
set -e
child=
exit "$status"
