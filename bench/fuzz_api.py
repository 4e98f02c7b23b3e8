"""schemathesis against a real server's /openapi.json: every check, positive and negative requests.

    python bench/fuzz_api.py [--mode operator|demo] [--db URL] [--examples 150] [--seed 1]

Starts ``reelforge serve`` (a fresh SQLite file unless ``--db``), opens a session for a player with
10^9 minor units (operator mode: through the operator's key and a deposit), then runs
``schemathesis run --checks all --mode all`` with the player's token and the operator's key on every
request. ``positive_data_acceptance`` accepts, beside 2xx, 401, 403, 404 and 409 (schemathesis's
defaults), 402: a request the schema allows may still meet a state that refuses it (a balance too low
for a withdrawal); every 422 for a request the schema allows is a finding.
"""

from __future__ import annotations

import argparse
import hashlib
import os
import secrets
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import httpx

from reelforge.ops.client import ApiClient
from reelforge.server.config import DEMO_CONFIG

CONFIG = """[checks.positive_data_acceptance]
expected-statuses = ["2xx", "401", "402", "403", "404", "409"]
"""


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--mode", choices=["operator", "demo"], default="operator")
    parser.add_argument("--db", default=None)
    parser.add_argument("--examples", type=int, default=150, help="examples per operation and mode")
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    tmp = Path(tempfile.mkdtemp(prefix="reelforge-fuzz-"))
    key = secrets.token_urlsafe(24)
    body = DEMO_CONFIG.read_text().replace("expiry_check_seconds = 3600", "expiry_check_seconds = 0")
    if args.mode == "operator":
        body = body.replace('mode = "demo"', f'mode = "operator"\napi_key_sha256 = '
                                              f'"{hashlib.sha256(key.encode()).hexdigest()}"')
    (tmp / "server.toml").write_text(body)
    (tmp / "schemathesis.toml").write_text(CONFIG)
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    db = args.db or f"sqlite:///{tmp / 'fuzz.db'}"
    bin_dir = Path(sys.executable).parent
    server = subprocess.Popen([str(bin_dir / "reelforge"), "serve", "--config", str(tmp / "server.toml"),
                               "--db", db, "--port", str(port)], stdout=subprocess.DEVNULL,
                              stderr=open(tmp / "server.log", "w"))
    base = f"http://127.0.0.1:{port}"
    api = ApiClient.connect(base, operator_key=key if args.mode == "operator" else None)
    try:
        for _ in range(300):
            try:
                api.games()
                break
            except httpx.TransportError:
                time.sleep(0.1)
        token = api.open_session("fuzzer", as_operator=args.mode == "operator").json()["token"]
        if args.mode == "operator":
            r = api.deposit("fuzzer", 10**9, key="fund")
            assert r.status_code == 200, r.text
        cmd = [str(bin_dir / "schemathesis"), "--config-file", str(tmp / "schemathesis.toml"), "run",
               base + "/openapi.json", "--checks", "all", "--mode", "all", "-n", str(args.examples),
               "--seed", str(args.seed), "--no-shrink", "--warnings", "off",
               "-H", f"Authorization: Bearer {token}"]
        if args.mode == "operator":
            cmd += ["-H", f"X-Operator-Key: {key}"]
        done = subprocess.run(cmd, cwd=tmp, env={**os.environ, "NO_COLOR": "1"})
        log = (tmp / "server.log").read_text(errors="replace")
        print(f"server log: {log.count('Traceback')} traceback(s), {log.count('internal error')} internal error(s)")
        sys.exit(done.returncode)
    finally:
        api.close()
        server.terminate()
        server.wait(timeout=30)


if __name__ == "__main__":
    main()
