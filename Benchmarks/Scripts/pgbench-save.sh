#!/usr/bin/env bash
# Benchmarks/Scripts/pgbench-save.sh: where a PostgreSQL save's time goes, without Swift. pgbench (PostgreSQL's own
# load generator) runs one save per transaction two ways on the same server: the hand-written upsert (BEGIN;
# INSERT ... ON CONFLICT; COMMIT: three round trips) and Hangar's statements for the same save (BEGIN;
# write_document; note_changes; COMMIT: four), with the same 1.3 KB body, at 1 and 16 clients. The ratio of their
# transactions per second is the part of the store's cost that is the server's work and the round trips, not the
# client's.
#
#     Scripts/with-postgres.sh Benchmarks/Scripts/pgbench-save.sh     # needs a built `hangar` (.build/debug or release)
set -euo pipefail
cd "$(dirname "$0")/../.."
url=${HANGAR_TEST_POSTGRES_URL:?run it under Scripts/with-postgres.sh}
bin=$(dirname "$(command -v pgbench 2>/dev/null || ls /usr/lib/postgresql/*/bin/pgbench | sort | tail -1)")
hangar=${HANGAR_BIN:-$( [[ -x .build/release/hangar ]] && echo .build/release/hangar || echo .build/debug/hangar)}
seconds=${PGBENCH_SECONDS:-10}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# The store's schema (`pgbench_hangar`), made by Hangar itself, and the raw table beside it.
printf '<plist version="1.0"><dict><key>majorVersion</key><integer>1</integer><key>minorVersion</key><integer>0</integer></dict></plist>' > "$work/doc.plist"
separator='?'; [[ $url == *\?* ]] && separator='&'
"$hangar" db put --url "${url}${separator}schema=pgbench_hangar" pilots seed "$work/doc.plist" >/dev/null
"$bin/psql" -q "$url" -c 'DROP TABLE IF EXISTS pgbench_raw' -c \
    'CREATE TABLE pgbench_raw (key text COLLATE "C" PRIMARY KEY, revision bigint NOT NULL, body bytea NOT NULL)'
body=$(head -c 1300 /dev/urandom | od -An -v -tx1 | tr -d ' \n')

cat > "$work/raw.sql" <<SQL
\set k random(1, 100000)
BEGIN;
INSERT INTO pgbench_raw (key, revision, body) VALUES ('k' || :k, 1, '\\x$body')
    ON CONFLICT (key) DO UPDATE SET revision = pgbench_raw.revision + 1, body = excluded.body;
COMMIT;
SQL
cat > "$work/hangar.sql" <<SQL
\set k random(1, 100000)
BEGIN;
SELECT outcome FROM pgbench_hangar.write_document('pilots', 'k' || :k, true, NULL, 1, 0, '\\x$body',
    extract(epoch FROM now()), NULL, NULL, false, false, NULL, '{}'::text[], '{}'::bytea[], '{}'::boolean[], '{}'::text[]);
SELECT pgbench_hangar.note_changes(ARRAY['save'], ARRAY[extract(epoch FROM now())::double precision], ARRAY['pilots'],
    ARRAY['k' || :k], ARRAY[1::bigint], ARRAY[1::bigint], ARRAY[0::bigint], ARRAY[''], ARRAY[false], NULL, NULL);
COMMIT;
SQL

echo "pgbench-save: $("$bin/pgbench" --version), ${seconds} s a row, load average before: $(cut -d' ' -f1-3 /proc/loadavg)"
for clients in 1 16; do
    for kind in raw hangar; do
        tps=$("$bin/pgbench" -n -c "$clients" -j "$clients" -T "$seconds" -f "$work/$kind.sql" "$url" 2>&1 \
            | awk '/^tps = / { print $3; exit }')
        echo "clients $clients  $kind  tps $tps"
    done
done
echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
