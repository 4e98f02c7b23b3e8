# Sourced by .ci/run: start a throwaway PostgreSQL cluster for the server tests
# and export REELFORGE_TEST_PG_URL (the tests use PostgreSQL only when it is set).
# The cluster lives in a fresh temporary folder, listens on 127.0.0.1 on a free
# port (and a private unix socket), trusts only local connections, and is
# stopped and deleted when the calling shell exits.

_pg_bin="${REELFORGE_PG_BIN:-$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -n 1)}"
if [ -z "$_pg_bin" ] || [ ! -x "$_pg_bin/initdb" ]; then
    echo "start-postgres: no PostgreSQL binaries found (set REELFORGE_PG_BIN)" >&2
    return 1
fi
_pg_dir="$(mktemp -d /tmp/reelforge-pg.XXXXXX)"
_pg_as() {
    # initdb and postgres refuse to run as root: run them as the postgres user then.
    if [ "$(id -u)" = 0 ]; then runuser -u postgres -- "$@"; else "$@"; fi
}
if [ "$(id -u)" = 0 ]; then chown postgres: "$_pg_dir"; fi
_pg_port="$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')"
_pg_as "$_pg_bin/initdb" -D "$_pg_dir/data" -U reelforge -A trust -E UTF8 --no-sync >"$_pg_dir/initdb.log" 2>&1 \
    || { cat "$_pg_dir/initdb.log" >&2; return 1; }
_pg_as "$_pg_bin/pg_ctl" -D "$_pg_dir/data" -l "$_pg_dir/server.log" -w -t 60 \
    -o "-c listen_addresses=127.0.0.1 -p $_pg_port -k $_pg_dir -c fsync=off -c synchronous_commit=off -c full_page_writes=off -c max_connections=300" \
    start >/dev/null || { cat "$_pg_dir/server.log" >&2; return 1; }
_reelforge_stop_postgres() {
    _pg_as "$_pg_bin/pg_ctl" -D "$_pg_dir/data" -m immediate stop >/dev/null 2>&1 || true
    rm -rf "$_pg_dir"
}
trap _reelforge_stop_postgres EXIT
export REELFORGE_TEST_PG_URL="postgresql+psycopg://reelforge@127.0.0.1:$_pg_port/postgres"
echo "start-postgres: PostgreSQL running for the tests at $REELFORGE_TEST_PG_URL"
