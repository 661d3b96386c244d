#!/usr/bin/env bash
# Scripts/with-postgres.sh [--standbys N] [--delay MS] [--pgbouncer] COMMAND [ARGUMENTS...]
#
# Runs COMMAND beside a throwaway PostgreSQL server: starts one on loopback (a fresh cluster in a temporary folder,
# on a free port), exports HANGAR_TEST_POSTGRES_URL (postgres://hangar:hangar@127.0.0.1:PORT/hangar_test) and
# HANGAR_REQUIRE_POSTGRES=1 (a server is there, so a PostgreSQL test that cannot reach it fails rather than skips),
# runs COMMAND, stops the server and removes its folder, and exits with COMMAND's status. The server is stopped
# whatever happens: COMMAND failing, this script failing, or an interrupt (Ctrl-C, SIGTERM).
#
#     Scripts/with-postgres.sh swift test
#     Scripts/with-postgres.sh swift test --filter HangarPostgresTests
#     Scripts/with-postgres.sh --standbys 2 --delay 500 --pgbouncer swift test --filter PostgresReplica
#
# Options (each makes the script start servers of its own, even when HANGAR_TEST_POSTGRES_URL is set):
#   --standbys N   N streaming standbys of the primary, each a pg_basebackup of it following it by primary_conninfo
#                  (hot standbys, readable). The first is synchronous (synchronous_standby_names = 'standby1',
#                  synchronous_commit = on: a commit returns once standby1 has flushed it).
#   --delay MS     the last standby applies what it receives MS milliseconds late (recovery_min_apply_delay).
#   --pgbouncer    PgBouncer (transaction pooling) in front of the primary.
# Besides HANGAR_TEST_POSTGRES_URL (the primary, or PgBouncer with --pgbouncer) it then exports:
#   HANGAR_TEST_POSTGRES_PRIMARY_URL       the primary, directly (what LISTEN needs behind PgBouncer)
#   HANGAR_TEST_POSTGRES_STANDBY_URLS      the standbys' URLs, separated by spaces (empty without --standbys)
#   HANGAR_TEST_POSTGRES_STANDBY_<i>_URL   standby i's URL (i from 1); HANGAR_TEST_POSTGRES_STANDBY_<i>_DATA its folder
#   HANGAR_TEST_POSTGRES_PRIMARY_DATA      the primary's data folder
#   HANGAR_TEST_POSTGRES_PGBOUNCER_URL     PgBouncer's URL (with --pgbouncer)
#   HANGAR_TEST_POSTGRES_DELAY_MS          the last standby's delay (with --delay)
#   HANGAR_TEST_POSTGRES_CTL               a pg_ctl that runs as the clusters' owner: `$HANGAR_TEST_POSTGRES_CTL -D
#                                          DATA stop -m immediate`, `... start`, `... promote` (for failover tests)
# Every server (the standbys and PgBouncer too, also ones a test restarted) is stopped afterwards.
#
# When HANGAR_TEST_POSTGRES_URL is already set and no option is given, no server is started: COMMAND runs against
# that one. Installs Debian's postgresql-15 when no initdb is found (on PATH or in /usr/lib/postgresql/*/bin).
# initdb refuses to run as root, so as root the servers run as the `postgres` user (runuser); PgBouncer too.
set -euo pipefail

standbys=0
delay=
pgbouncer=false
options=false
while (($#)); do
    case $1 in
    --standbys)
        [[ ${2:-} =~ ^[0-9]+$ ]] || { echo "with-postgres: --standbys takes a number" >&2; exit 64; }
        standbys=$2 options=true
        shift 2
        ;;
    --delay)
        [[ ${2:-} =~ ^[0-9]+$ ]] || { echo "with-postgres: --delay takes milliseconds" >&2; exit 64; }
        delay=$2 options=true
        shift 2
        ;;
    --pgbouncer) pgbouncer=true options=true && shift ;;
    --) shift && break ;;
    *) break ;;
    esac
done
if [[ -n $delay ]] && ((standbys == 0)); then
    echo "with-postgres: --delay needs --standbys" >&2
    exit 64
fi

if (($# == 0)); then
    echo "usage: $0 [--standbys N] [--delay MS] [--pgbouncer] COMMAND [ARGUMENTS...]" >&2
    exit 64
fi

if [[ -n ${HANGAR_TEST_POSTGRES_URL:-} && $options == false ]]; then
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
if [[ $pgbouncer == true ]] && ! command -v pgbouncer >/dev/null 2>&1; then
    echo "with-postgres: no pgbouncer; installing it" >&2
    if command -v apt-get >/dev/null 2>&1; then
        export DEBIAN_FRONTEND=noninteractive
        apt-get update -qq && apt-get install -y -qq pgbouncer >&2 || true
    fi
    command -v pgbouncer >/dev/null 2>&1 || { echo "with-postgres: PgBouncer could not be installed" >&2; exit 1; }
fi

# As root, the clusters belong to `postgres` (initdb refuses root); otherwise to whoever runs this.
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
# Every cluster folder made (the primary's, the standbys'): each one still running is stopped on the way out.
clusters=("$data")

cleanup() {
    local status=$?
    trap - EXIT INT TERM HUP
    if [[ -n $child ]] && kill -0 "$child" 2>/dev/null; then
        # COMMAND's whole process group: `swift test` runs the tests in a child process of its own.
        kill -TERM -- "-$child" 2>/dev/null || kill -TERM "$child" 2>/dev/null || true
        wait "$child" 2>/dev/null || true
    fi
    if [[ -f $folder/pgbouncer.pid ]]; then
        kill -TERM "$(cat "$folder/pgbouncer.pid")" 2>/dev/null || true
    fi
    # The pid file, not only the flag: a signal may come after pg_ctl started a server but before the flag, and a
    # test may have restarted (or promoted) a server itself.
    local cluster
    for cluster in "${clusters[@]}"; do
        if [[ $started == true || -f $cluster/postmaster.pid ]] && [[ -d $cluster ]]; then
            "${as_owner[@]}" "$bin/pg_ctl" -D "$cluster" -m immediate -w stop >/dev/null 2>&1 \
                || [[ ! -f $cluster/postmaster.pid ]] \
                || echo "with-postgres: WARNING: pg_ctl stop of $cluster failed (see $folder)" >&2
        fi
    done
    rm -rf "$folder"
    exit "$status"
}
trap cleanup EXIT
# An interrupt ends COMMAND and stops the servers (through the EXIT trap) with the usual status.
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

# start_cluster DATA LOG: starts the cluster in DATA on a free port (5 tries) and sets `port`.
start_cluster() {
    local cluster=$1 cluster_log=$2
    for _ in 1 2 3 4 5; do
        port=$(free_port)
        if "${as_owner[@]}" "$bin/pg_ctl" -D "$cluster" -l "$cluster_log" -w -t 60 \
            -o "-k $folder -p $port -c listen_addresses=127.0.0.1 -c max_connections=200" start >/dev/null 2>&1; then
            # Kept for a plain `pg_ctl start` of a test that stopped it (a later line wins over a copied one).
            printf "port = %s\nunix_socket_directories = '%s'\nlisten_addresses = '127.0.0.1'\nmax_connections = 200\n" \
                "$port" "$folder" >>"$cluster/postgresql.auto.conf"
            return 0
        fi
    done
    cat "$cluster_log" >&2 || true
    echo "with-postgres: the server in $cluster did not start" >&2
    return 1
}

if start_cluster "$data" "$log"; then started=true; else exit 1; fi
primary_port=$port

"${as_owner[@]}" "$bin/psql" -h "$folder" -p "$primary_port" -U hangar -d postgres -v ON_ERROR_STOP=1 -q \
    -c "CREATE DATABASE hangar_test" >&2

url() { echo "postgres://hangar:hangar@127.0.0.1:$1/hangar_test"; }
export HANGAR_TEST_POSTGRES_URL
HANGAR_TEST_POSTGRES_URL=$(url "$primary_port")
export HANGAR_REQUIRE_POSTGRES=1

if [[ $options == true ]]; then
    # A pg_ctl as the clusters' owner, for tests that stop, start or promote a server.
    printf '#!/usr/bin/env bash\nexec %s %q "$@"\n' "${as_owner[*]}" "$bin/pg_ctl" >"$folder/pg_ctl"
    chmod 755 "$folder/pg_ctl"
    export HANGAR_TEST_POSTGRES_CTL=$folder/pg_ctl
    export HANGAR_TEST_POSTGRES_PRIMARY_URL=$HANGAR_TEST_POSTGRES_URL
    export HANGAR_TEST_POSTGRES_PRIMARY_DATA=$data
    export HANGAR_TEST_POSTGRES_STANDBY_URLS=
fi

# The standbys: a base backup of the primary each (-R: standby.signal and primary_conninfo), named standbyI to the
# primary (application_name), following the newest timeline so a promoted peer can be followed.
passfile=$folder/pgpass
printf '127.0.0.1:*:*:hangar:hangar\n' >"$passfile"
chmod 600 "$passfile"
if ((${#as_owner[@]})); then chown postgres: "$passfile"; fi
for ((i = 1; i <= standbys; i++)); do
    standby=$folder/standby$i
    clusters+=("$standby")
    "${as_owner[@]}" env PGPASSFILE="$passfile" "$bin/pg_basebackup" -h 127.0.0.1 \
        -p "$primary_port" -U hangar -D "$standby" -R -X stream -c fast >"$folder/basebackup$i.log" 2>&1 || {
        cat "$folder/basebackup$i.log" >&2
        echo "with-postgres: pg_basebackup for standby $i failed" >&2
        exit 1
    }
    {
        echo "primary_conninfo = 'host=127.0.0.1 port=$primary_port user=hangar passfile=$passfile application_name=standby$i'"
        echo "recovery_target_timeline = 'latest'"
        echo "hot_standby_feedback = on"
        if ((i == standbys)) && [[ -n $delay ]]; then echo "recovery_min_apply_delay = '${delay}ms'"; fi
    } >>"$standby/postgresql.auto.conf"
    start_cluster "$standby" "$folder/standby$i.log" || exit 1
    export "HANGAR_TEST_POSTGRES_STANDBY_${i}_URL=$(url "$port")"
    export "HANGAR_TEST_POSTGRES_STANDBY_${i}_DATA=$standby"
    HANGAR_TEST_POSTGRES_STANDBY_URLS+="${HANGAR_TEST_POSTGRES_STANDBY_URLS:+ }$(url "$port")"
done
if ((standbys > 0)); then
    "${as_owner[@]}" "$bin/psql" -h "$folder" -p "$primary_port" -U hangar -d postgres -v ON_ERROR_STOP=1 -q \
        -c "ALTER SYSTEM SET synchronous_standby_names = 'standby1'" -c "SELECT pg_reload_conf()" >/dev/null
    # Every standby streaming before COMMAND starts (a commit waits for standby1 from now on).
    for _ in $(seq 1 300); do
        streaming=$("${as_owner[@]}" "$bin/psql" -h "$folder" -p "$primary_port" -U hangar -d postgres -Atq \
            -c "SELECT count(*) FROM pg_stat_replication WHERE state = 'streaming'")
        ((streaming >= standbys)) && break
        sleep 0.1
    done
    ((streaming >= standbys)) || { echo "with-postgres: the standbys are not streaming" >&2; exit 1; }
fi
[[ -n $delay ]] && export HANGAR_TEST_POSTGRES_DELAY_MS=$delay

if [[ $pgbouncer == true ]]; then
    bouncer_port=$(free_port)
    printf '"hangar" "hangar"\n' >"$folder/userlist.txt"
    # The timeouts Hangar sends as startup parameters are not PgBouncer's to pass on (it refuses what it does not
    # know): ignored here, and set for the role on the server instead, so every pooled connection has them.
    cat >"$folder/pgbouncer.ini" <<INI
[databases]
* = host=127.0.0.1 port=$primary_port
[pgbouncer]
listen_addr = 127.0.0.1
listen_port = $bouncer_port
unix_socket_dir =
auth_type = scram-sha-256
auth_file = $folder/userlist.txt
pool_mode = transaction
max_client_conn = 1000
default_pool_size = 40
ignore_startup_parameters = extra_float_digits,statement_timeout,idle_in_transaction_session_timeout
logfile = $folder/pgbouncer.log
pidfile = $folder/pgbouncer.pid
INI
    if ((${#as_owner[@]})); then chown postgres: "$folder/userlist.txt" "$folder/pgbouncer.ini"; fi
    "${as_owner[@]}" "$bin/psql" -h "$folder" -p "$primary_port" -U hangar -d postgres -v ON_ERROR_STOP=1 -q \
        -c "ALTER ROLE hangar SET statement_timeout = '30s'" \
        -c "ALTER ROLE hangar SET idle_in_transaction_session_timeout = '60s'" >/dev/null
    "${as_owner[@]}" pgbouncer -d "$folder/pgbouncer.ini" >"$folder/pgbouncer.out" 2>&1 || {
        cat "$folder/pgbouncer.out" "$folder/pgbouncer.log" >&2 2>/dev/null || true
        echo "with-postgres: PgBouncer did not start" >&2
        exit 1
    }
    for _ in $(seq 1 100); do
        PGPASSWORD=hangar "$bin/psql" -h 127.0.0.1 -p "$bouncer_port" -U hangar -d hangar_test -Atqc 'SELECT 1' \
            >/dev/null 2>&1 && break
        sleep 0.1
    done
    export HANGAR_TEST_POSTGRES_PGBOUNCER_URL
    HANGAR_TEST_POSTGRES_PGBOUNCER_URL=$(url "$bouncer_port")
    HANGAR_TEST_POSTGRES_URL=$HANGAR_TEST_POSTGRES_PGBOUNCER_URL
fi

echo "with-postgres: PostgreSQL $("$bin/postgres" --version | awk '{ print $3 }') on 127.0.0.1:$primary_port" \
    "(HANGAR_TEST_POSTGRES_URL=$HANGAR_TEST_POSTGRES_URL)" >&2
if [[ $options == true ]]; then
    summary="$standbys standby(s)"
    [[ -n $delay ]] && summary+=", the last $delay ms behind"
    [[ $pgbouncer == true ]] && summary+=", PgBouncer (transaction mode) on HANGAR_TEST_POSTGRES_URL"
    echo "with-postgres: $summary${HANGAR_TEST_POSTGRES_STANDBY_URLS:+: $HANGAR_TEST_POSTGRES_STANDBY_URLS}" >&2
fi

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
