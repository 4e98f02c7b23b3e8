"""Sessions (demo and operator mode), the games list and help."""

from __future__ import annotations

import hashlib
import inspect
import time
from dataclasses import replace
from fractions import Fraction
from pathlib import Path

from reelforge.game.sounds import load_sounds
from reelforge.games.registry import get_game
from tests.test_game_contract import name_is_proven

from .conftest import demo_config

OPERATOR_KEY = "operator-secret-key"


def operator_config(**kw):
    return demo_config(mode="operator", api_key_sha256=hashlib.sha256(OPERATOR_KEY.encode()).hexdigest(), **kw)


def test_demo_sessions_open_by_name_with_the_demo_balance(server):
    r = server.client.post("/api/v1/sessions", json={"player": "carol"})
    assert r.status_code == 201
    body = r.json()
    assert body["player"] == "carol" and body["balance"] == server.config.demo_balance
    assert body["currency"] == server.config.currency and len(body["token"]) >= 40
    # A second session for the same player sees the same wallet (no second demo deposit).
    again = server.client.post("/api/v1/sessions", json={"player": "carol"}).json()
    assert again["token"] != body["token"] and again["balance"] == body["balance"]
    # Tokens are stored hashed, never in clear.
    from sqlalchemy import select

    from reelforge.server.schema import sessions
    with server.engine.connect() as conn:
        stored = {r.token_sha256 for r in conn.execute(select(sessions))}
    assert body["token"] not in stored
    assert hashlib.sha256(body["token"].encode()).hexdigest() in stored


def test_sessions_expire(make_server):
    from datetime import timedelta

    from reelforge.server.clock import utcnow

    server = make_server(demo_config(session_ttl_minutes=0.0005))  # 30 ms
    player = server.session()
    time.sleep(0.1)
    r = player.get("/api/v1/wallet")
    assert r.status_code == 401 and r.json()["error"] == "session_expired"
    # Old expired sessions are purged by the periodic check.
    assert server.service.purge_sessions(utcnow()) == 0
    assert server.service.purge_sessions(utcnow() + timedelta(days=2)) == 1
    r = player.get("/api/v1/wallet")
    assert r.status_code == 401 and r.json()["error"] == "unknown_token"


def test_operator_mode_refuses_demo_sessions_and_accepts_the_operator(make_server):
    server = make_server(operator_config())
    r = server.client.post("/api/v1/sessions", json={"player": "dave"})
    assert r.status_code == 401 and r.json()["error"] == "operator_key_required"
    r = server.client.post("/api/v1/sessions", json={"player": "dave"}, headers={"X-Operator-Key": "wrong"})
    assert r.status_code == 403
    r = server.client.post("/api/v1/sessions", json={"player": "dave"}, headers={"X-Operator-Key": OPERATOR_KEY})
    assert r.status_code == 201 and r.json()["balance"] == 0
    token = r.json()["token"]
    auth = {"Authorization": f"Bearer {token}"}
    op = {"X-Operator-Key": OPERATOR_KEY}
    # The operator funds the wallet (idempotently) and takes money back, never below zero.
    dep = server.client.post("/api/v1/operator/players/dave/deposits", json={"amount": 5000},
                             headers={**op, "Idempotency-Key": "dep-1"})
    assert dep.status_code == 200 and dep.json()["balance"] == 5000
    again = server.client.post("/api/v1/operator/players/dave/deposits", json={"amount": 5000},
                               headers={**op, "Idempotency-Key": "dep-1"})
    assert again.json() == dep.json()
    r = server.client.post("/api/v1/operator/players/dave/withdrawals", json={"amount": 6000},
                           headers={**op, "Idempotency-Key": "wd-1"})
    assert r.status_code == 402
    r = server.client.post("/api/v1/operator/players/dave/withdrawals", json={"amount": 1000},
                           headers={**op, "Idempotency-Key": "wd-2"})
    assert r.status_code == 200 and r.json()["balance"] == 4000
    assert server.client.get("/api/v1/wallet", headers=auth).json()["balance"] == 4000
    kinds = [e["kind"] for e in server.client.get("/api/v1/wallet/ledger", headers=auth).json()["entries"]]
    assert kinds == ["withdrawal", "deposit"]
    r = server.client.post("/api/v1/operator/players/nobody/deposits", json={"amount": 1},
                           headers={**op, "Idempotency-Key": "dep-x"})
    assert r.status_code == 404


def test_games_list_shows_build_rtp_ladder_and_max_win(server):
    games = server.client.get("/api/v1/games").json()
    assert [g["id"] for g in games] == list(server.config.games)
    for g in games:
        game = get_game(g["id"])
        gconf = server.config.games[g["id"]]
        assert g["build"] == gconf.build and g["bet_ladder"] == list(gconf.bet_ladder) == sorted(g["bet_ladder"])
        assert g["max_win_x"] == game.max_win_x and g["title"] == game.title
        assert isinstance(g["rtp"], float) and 0.5 < g["rtp"] < 1
        price = game.feature_buy_price_x(game.load_build(gconf.build))
        assert g["feature_buy_price_x"] == (None if price is None else str(Fraction(price)))


def test_a_games_own_client_is_served_from_its_folder(server):
    """A game's renderer, stylesheet and sounds live in its folder; the games list names them, the server serves
    them (the sounds as JSON, from its sounds.toml)."""
    games = server.client.get("/api/v1/games").json()
    own = {g["id"]: g["client"] for g in games}
    assert own["seven-lines"] == {}  # a genre game draws with its genre's renderer and sounds like every game
    for game_id, client in own.items():
        folder = Path(inspect.getfile(type(get_game(game_id)))).parent
        parts = (("renderer", "client.js"), ("style", "client.css"), ("sounds", "sounds.toml"))
        assert set(client) == {part for part, name in parts if (folder / name).is_file()}
        for part, url in client.items():
            r = server.client.get(url)
            assert r.status_code == 200
            if part == "sounds":
                assert r.json() == {"effects": load_sounds(folder / "sounds.toml")}
                continue
            assert r.content == (folder / url.rsplit("/", 1)[1]).read_bytes()
            assert r.headers["content-type"].startswith("text/javascript" if part == "renderer" else "text/css")
    assert own["forge-of-gems"] == {"renderer": "/api/v1/games/forge-of-gems/client/client.js",
                                    "style": "/api/v1/games/forge-of-gems/client/client.css",
                                    "sounds": "/api/v1/games/forge-of-gems/client/sounds.json"}
    for wrong in ("/api/v1/games/seven-lines/client/client.js", "/api/v1/games/seven-lines/client/sounds.json",
                  "/api/v1/games/forge-of-gems/client/game.py", "/api/v1/games/forge-of-gems/client/sounds.toml"):
        r = server.client.get(wrong)
        assert r.status_code == 404 and "ships no client file" in r.json()["detail"], wrong


def test_help_names_the_game_version_build_rtp_rules_paytable_and_max_win(server):
    for game_id, gconf in server.config.games.items():
        r = server.client.get(f"/api/v1/games/{game_id}/help")
        assert r.status_code == 200
        body = r.json()
        game = get_game(game_id)
        assert body["game"] == game_id and body["title"] == game.title and body["version"] == game.version
        assert body["build"] == gconf.build and body["max_win_x"] == game.max_win_x
        assert body["bet_ladder"] == list(gconf.bet_ladder)
        assert isinstance(body["rtp"], float) and 0.5 < body["rtp"] < 1
        assert body["rules"]
        assert any(key.startswith("paytable") for key in body), sorted(body)


def test_help_fields_have_one_type_in_every_game(server):
    listing = {g["id"]: g for g in server.client.get("/api/v1/games").json()}
    for game_id, gconf in server.config.games.items():
        body = server.client.get(f"/api/v1/games/{game_id}/help").json()
        game = get_game(game_id)
        assert body["game_id"] == game.reference_id and body["published_id"] == game.published_id
        rtp = Fraction(body["rtp_nominal"])
        assert body["rtp_exact"] == body["rtp_nominal"]  # the former name, kept for older clients
        assert name_is_proven({**body, "rtp": body["rtp_nominal"]}, Fraction(gconf.build) / 100)  # the proven RTP
        assert body["rtp"] == listing[game_id]["rtp"] == float(rtp)
        assert body["rtp_percent"] == f"{float(rtp) * 100:.2f}" and isinstance(body["volatility"], str)
        assert isinstance(body["rules"], list) and all(isinstance(p, str) and p for p in body["rules"])
        assert body["paytable"] == body["page"]["paytable"] and isinstance(body["extra"], dict)
        assert body["page"]["sections"][-1]["title"] == "Unfinished rounds"
        assert body["feature_buy_price_x"] == listing[game_id]["feature_buy_price_x"]


def test_help_speaks_the_requested_language_else_the_browsers_else_english(server):
    game_id = next(iter(server.config.games))
    get = server.client.get
    de = get(f"/api/v1/games/{game_id}/help", params={"lang": "de"}).json()
    assert de["language"] == "de" and de["page"]["paytable"]["title"] == "Gewinntabelle"
    assert de["rules"][0] != get(f"/api/v1/games/{game_id}/help").json()["rules"][0]   # the game's own texts
    assert de["volatility_text"] != de["volatility"] and de["rtp_nominal"] == get(f"/api/v1/games/{game_id}/help").json()["rtp_nominal"]
    ja = get(f"/api/v1/games/{game_id}/help", headers={"Accept-Language": "fr;q=0.5, ja-JP"}).json()
    assert ja["language"] == "ja" and ja["page"]["paytable"]["title"] == "ペイテーブル"
    for bad in ("xx", "'; drop", "zz-ZZ"):   # a language the server does not know: English, never an error
        r = get(f"/api/v1/games/{game_id}/help", params={"lang": bad})
        assert r.status_code == 200 and r.json()["language"] == "en"
        assert r.json()["page"]["paytable"]["title"] == "Paytable"


def test_configuration_chooses_the_active_build(make_server):
    base = demo_config()
    game_id = next(iter(base.games))
    game = get_game(game_id)
    other = [b for b in game.build_names() if b != base.games[game_id].build]
    if not other:
        return
    games = dict(base.games)
    games[game_id] = replace(games[game_id], build=other[-1])
    server = make_server(replace(base, games=games))
    listing = {g["id"]: g for g in server.client.get("/api/v1/games").json()}
    assert listing[game_id]["build"] == other[-1]
    player = server.session()
    rnd = player.finish(player.start(game_id, base.games[game_id].bet_ladder[0]))
    assert rnd["build"] == other[-1]


def test_concurrent_first_sessions_create_one_player(server):
    from concurrent.futures import ThreadPoolExecutor

    from reelforge.server.auth import open_session

    with ThreadPoolExecutor(8) as pool:
        sessions = list(pool.map(lambda _: open_session(server.engine, server.config, "newcomer", None), range(8)))
    assert len({s["token"] for s in sessions}) == 8
    player = server.session("newcomer")
    assert player.balance() == server.config.demo_balance  # one player, one demo deposit
