"""The player's language on the server: the client's catalog by language, the launch's lang, the session's
choice, refusals with a translated message (issue 39)."""

from __future__ import annotations

from reelforge.core.i18n import LANGUAGES

from .seamless_support import signed_call
from .test_player_limits import uk_config


def test_the_client_catalog_is_served_in_every_language_and_english_for_unknown_ones(server):
    client = server.client
    for lang in LANGUAGES:
        body = client.get(f"/api/v1/languages/{lang}").json()
        assert body["lang"] == lang and body["dir"] == ("rtl" if lang == "ar" else "ltr")
    pl = client.get("/api/v1/languages/pl-PL").json()
    assert pl["lang"] == "pl" and pl["plural_categories"] == ["one", "few", "many", "other"]
    assert pl["messages"]["{n} free spin"]["few"] == "{n} darmowe spiny"
    for bad in ("xx", "en-GB", "%00%ff", "a" * 64, "-", "ja_JP_x"):
        r = client.get(f"/api/v1/languages/{bad}")
        assert r.status_code == 200, (bad, r.text)
        assert r.json()["lang"] == ("ja" if bad.startswith("ja") else "en")
    listed = client.get("/api/v1/languages", headers={"Accept-Language": "fr-CA,fr;q=0.9"}).json()
    assert listed["negotiated"] == "fr" and len(listed["languages"]) == 16
    # the help's platform section in the asked language (lang, else Accept-Language), English for an unknown one
    game = client.get("/api/v1/games").json()[0]["id"]
    for query, header, title, lang in (("?lang=de", None, "Unvollendete Runden", "de"),
                                       ("", "ja-JP", "未完了のラウンド", "ja"),
                                       ("?lang=qq", "xx", "Unfinished rounds", "en")):
        r = client.get(f"/api/v1/games/{game}/help{query}", headers={"Accept-Language": header} if header else {})
        assert r.status_code == 200 and r.json()["lang"] == lang
        section = r.json()["page"]["sections"][-1]
        assert section["title"] == title and all("{" not in text for text in section["text"])


def test_refusals_keep_code_and_detail_and_add_the_message_in_the_sessions_language(server):
    alice = server.session("alice")
    r = server.client.get("/api/v1/rounds/999999", headers={**alice.headers, "Accept-Language": "ja"})
    body = r.json()
    assert r.status_code == 404 and body["error"] == "round_not_found" and "999999" in body["detail"]
    assert body["message"] == "このラウンドは見つかりませんでした。"
    # the player's choice is kept with the session and wins over Accept-Language
    r = server.client.put("/api/v1/settings/language", json={"lang": "de-AT"}, headers=alice.headers)
    assert r.status_code == 200 and r.json() == {"lang": "de"}
    r = server.client.get("/api/v1/rounds/999999", headers={**alice.headers, "Accept-Language": "ja"})
    assert r.json()["message"] == "Diese Runde wurde nicht gefunden."
    settings = server.client.get("/api/v1/settings", headers=alice.headers).json()
    assert settings["lang"] == "de"
    # a language the server does not know is English, never an error
    r = server.client.put("/api/v1/settings/language", json={"lang": "klingon"}, headers=alice.headers)
    assert r.status_code == 200 and r.json() == {"lang": "en"}
    assert server.client.get("/api/v1/settings", headers=alice.headers).json()["lang"] == "en"
    # without a session: Accept-Language, else English; a garbage header is English
    r = server.client.get("/api/v1/rounds/1", headers={"Accept-Language": "ar-EG,en;q=0.5"})
    assert r.status_code == 401 and r.json()["message"] == "انتهت صلاحية جلستك. يرجى فتح اللعبة من جديد."
    r = server.client.get("/api/v1/nothing-here", headers={"Accept-Language": ";;q=?,\x7f"})
    assert r.status_code == 404 and r.json()["message"] == "The server refused the request."
    r = server.client.post("/api/v1/sessions", json={"player": "bad name!"}, headers={"Accept-Language": "pl"})
    assert r.status_code == 422 and r.json()["error"] == "invalid_player"
    assert r.json()["message"].startswith("Nie można użyć tej nazwy gracza")


def test_a_launch_carries_lang_on_its_url_and_into_the_session_and_bad_lang_is_english(make_server):
    server = make_server(uk_config())
    answers = {}
    for player, options in (("ja-player", {"language": "ja-JP"}), ("de-player", {"lang": "de"}),
                            ("bad-lang", {"lang": "qq-\u00e9\u00e9"}), ("url-lang", {"lang": "fr"})):
        r = signed_call(server.client, "POST", "/api/v1/operator/launches", {"player": player, "currency": "EUR",
                                                                           **options})
        assert r.status_code == 201, r.text
        url = r.json()["launch_url"]
        token = url.split("launch=")[1].split("&")[0]
        exchange = {"token": token, **({"lang": "pt-BR"} if player == "url-lang" else {})}
        r = server.client.post("/api/v1/launch", json=exchange)
        assert r.status_code == 201, r.text
        answers[player] = (url.split("?")[1].split("&")[0], r.json()["lang"], r.json()["language"])
        settings = server.client.get("/api/v1/settings", headers={"Authorization": f"Bearer {r.json()['token']}"})
        assert settings.json()["lang"] == r.json()["lang"]
    assert answers == {"ja-player": ("lang=ja", "ja", "ja-JP"), "de-player": ("lang=de", "de", "de"),
                       "bad-lang": ("lang=en", "en", "en"), "url-lang": ("lang=fr", "pt", "pt")}


def test_refusals_made_before_the_api_speak_accept_language(server):
    """The body limit (413) and the rate limits (429) answer before any session is read: in the request's
    Accept-Language, which the client sets to its language."""
    import asyncio
    import json

    from reelforge.server.fairshare import _refuse

    r = server.client.post("/api/v1/sessions", content=b"x" * 20_000,
                           headers={"Accept-Language": "de", "Content-Type": "application/json"})
    assert r.status_code == 413 and r.json()["message"] == "Der Server hat die Anfrage abgelehnt."
    sent = []

    async def send(message):
        sent.append(message)

    asyncio.run(_refuse({"headers": [(b"accept-language", b"ja;q=0.9,en;q=0.5")]}, send, "rate_limited", "busy", 0.2))
    body = json.loads(sent[-1]["body"])
    assert body["error"] == "rate_limited" and body["message"] == "リクエストが多すぎます。少し待ってからもう一度お試しください。"
    asyncio.run(_refuse({"headers": [(b"accept-language", b"\xff\xfe")]}, send, "rate_limited", "busy", 0.2))
    assert json.loads(sent[-1]["body"])["message"] == "Too many requests: please wait a moment and try again."
