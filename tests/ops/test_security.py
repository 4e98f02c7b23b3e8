"""Security basics: operator mode, session tokens, secrets, CORS and headers, and that the seeded
(test-only) draw source cannot reach a production server."""

from __future__ import annotations

import ast
import hashlib
import re
import subprocess
import tomllib
import uuid
from pathlib import Path

import pytest
from sqlalchemy import MetaData, select
from typer.testing import CliRunner

import reelforge.server
from reelforge.cli import app as cli_app
from reelforge.core.draws import SecureDraws
from reelforge.server.app import create_app
from reelforge.server.config import DEMO_CONFIG, parse_config
from reelforge.server.config_values import ConfigError
from reelforge.server.db import make_engine

from .conftest import GAME, LiveServers

REPO = Path(__file__).resolve().parents[2]


def test_operator_mode_refuses_demo_sessions_and_requests_without_the_operator_key(live: LiveServers):
    player, token = live.session(deposit=100)
    with live.client() as c:
        r = c.post("/api/v1/sessions", json={"player": "demo"})
        assert r.status_code == 401 and r.json()["error"] == "operator_key_required"
        r = c.post("/api/v1/sessions", json={"player": "demo"}, headers={"X-Operator-Key": "guess"})
        assert r.status_code == 403
        for headers, status in [({}, 401), ({"X-Operator-Key": ""}, 403), ({"X-Operator-Key": "guess"}, 403),
                                ({"X-Operator-Key": live.operator_key + "x"}, 403),
                                ({"X-Operator-Key": hashlib.sha256(live.operator_key.encode()).hexdigest()}, 403),
                                ({"Authorization": f"Bearer {token}"}, 401)]:
            for kind in ("deposits", "withdrawals"):
                r = c.post(f"/api/v1/operator/players/{player}/{kind}", json={"amount": 1},
                           headers={**headers, "Idempotency-Key": uuid.uuid4().hex})
                assert r.status_code == status, (headers, kind, r.text)
        assert c.get("/api/v1/wallet", headers={"Authorization": f"Bearer {token}"}).json()["balance"] == 100


def test_tokens_are_random_stored_hashed_and_expire(live: LiveServers):
    tokens = [live.session()[1] for _ in range(12)]
    assert len(set(tokens)) == len(tokens)
    for t in tokens:
        assert re.fullmatch(r"[A-Za-z0-9_-]{43,}", t), t  # at least 256 bits, URL-safe base64
    engine = make_engine(live.url)
    meta = MetaData()
    meta.reflect(engine)
    with engine.connect() as conn:
        hashes = set(conn.execute(select(meta.tables["sessions"].c.token_sha256)).scalars())
        dump = "\n".join(repr(row) for table in meta.sorted_tables for row in conn.execute(select(table)))
        expiry = conn.execute(select(meta.tables["sessions"].c.created_at, meta.tables["sessions"].c.expires_at)
                              .where(meta.tables["sessions"].c.token_sha256 == hashlib.sha256(
                                  tokens[0].encode()).hexdigest())).one()
    engine.dispose()
    assert {hashlib.sha256(t.encode()).hexdigest() for t in tokens} <= hashes
    assert not [t for t in tokens if t in dump], "a session token is stored in clear"
    assert live.operator_key not in dump
    assert expiry.expires_at > expiry.created_at  # every session has an end (expiry is tested with hostile input)


SECRET_PATTERNS = [
    re.compile(r"-----BEGIN [A-Z ]*PRIVATE KEY-----"),
    re.compile(r"AKIA[0-9A-Z]{16}"),                          # AWS access key id
    re.compile(r"gh[pousr]_[A-Za-z0-9]{36}"),                 # GitHub token
    re.compile(r"xox[baprs]-[A-Za-z0-9-]{10,}"),              # Slack token
    re.compile(r"(postgres(ql)?(\+\w+)?|mysql)://[^:/\s]+:[^@/\s]+@"),  # database URL with a password
    re.compile(r"api_key_sha256\s*=\s*\"[0-9a-fA-F]{64}\""),  # an operator key hash in a shipped file
]


def test_no_secret_in_the_repository():
    files = subprocess.run(["git", "ls-files"], cwd=REPO, capture_output=True, text=True, check=True).stdout.split()
    found = []
    for name in files:
        path = REPO / name
        if not path.is_file() or path.stat().st_size > 2_000_000:
            continue
        text = path.read_text(errors="ignore")
        found += [f"{name}: {p.pattern}" for p in SECRET_PATTERNS if p.search(text)]
    assert not found, found


def test_no_cors_and_sensible_headers(live: LiveServers):
    _, token = live.session()
    with live.client() as c:
        evil = {"Origin": "https://evil.example"}
        preflight = c.options(f"/api/v1/games/{GAME}/rounds",
                              headers={**evil, "Access-Control-Request-Method": "POST",
                                       "Access-Control-Request-Headers": "authorization,idempotency-key"})
        assert "access-control-allow-origin" not in preflight.headers
        for r in (c.get("/api/v1/games", headers=evil),
                  c.get("/api/v1/wallet", headers={**evil, "Authorization": f"Bearer {token}"}),
                  c.get("/api/v1/wallet", headers=evil)):
            assert "access-control-allow-origin" not in r.headers
            assert r.headers["content-type"].startswith("application/json")
            assert r.headers["x-content-type-options"] == "nosniff"
            assert r.headers["cache-control"] == "no-store"
            assert r.headers["x-frame-options"] == "DENY"
        page = c.get("/docs")
        assert page.headers["x-frame-options"] == "DENY"


def test_the_seeded_draw_source_cannot_be_enabled_in_a_production_configuration(tmp_path):
    base = tomllib.loads(DEMO_CONFIG.read_text())
    for section, key in [("server", "draws"), ("server", "draw_source"), ("server", "seed"),
                         ("server", "rng"), ("games", None)]:
        data = tomllib.loads(DEMO_CONFIG.read_text())
        if key is None:
            data["games"][GAME]["seed"] = 1
        else:
            data[section][key] = "seeded"
        with pytest.raises(ConfigError, match="unknown key"):
            parse_config(data)
    parse_config(base)  # the unchanged configuration is fine
    # No command-line option of the server mentions a draw source or a seed.
    help_text = CliRunner().invoke(cli_app, ["serve", "--help"], env={"COLUMNS": "200"}).output.lower()
    assert "seed" not in help_text and "draw" not in help_text
    # The server package reads no environment variable but the configuration path and database URL...
    package = Path(reelforge.server.__file__).parent
    for path in package.rglob("*.py"):
        tree = ast.parse(path.read_text())
        for node in ast.walk(tree):
            # ...and never imports the seeded source.
            if isinstance(node, ast.ImportFrom) and node.module == "reelforge.core.draws":
                assert "SeededDraws" not in {a.name for a in node.names}, path
            if isinstance(node, ast.Attribute) and node.attr in ("environ", "getenv"):
                assert path.name == "commands.py", f"{path} reads the environment"
    # An app built from a configuration draws from the OS CSPRNG.
    app = create_app(parse_config(base), f"sqlite:///{tmp_path / 'x.db'}")
    assert app.state.service.draw_factory is SecureDraws
    app.state.engine.dispose()
