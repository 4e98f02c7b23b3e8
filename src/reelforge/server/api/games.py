"""``GET /games``, ``GET /games/{game}/help``, ``GET /settings``: what is offered and how it plays.

The one place that turns a game's own description (``help``, title, modes,
prices) into the API's answers.
"""

from __future__ import annotations

import inspect
from pathlib import Path
from typing import Annotated, Any

from fastapi import FastAPI, Query, Request
from fastapi.responses import JSONResponse, Response
from starlette.exceptions import HTTPException as StarletteHTTPException

from reelforge.core.i18n import DEFAULT_LANGUAGE, format_decimal, negotiate, translate
from reelforge.game.sounds import SOUNDS_FILE, load_sounds
from reelforge.server.api.common import Auth, Context, GameId
from reelforge.server.auth import bearer
from reelforge.server.config import ServerConfig
from reelforge.server.launch import launched_options
from reelforge.server.limits import play_session
from reelforge.server.offer import ActiveGame
from reelforge.server.round_json import dumps

LangQuery = Annotated[str | None, Query(max_length=64, description="the player's language (ISO 639-1 or a tag such "
                                                                  "as ja-JP); one the server does not know is English")]


def game_entry(active: ActiveGame, config: ServerConfig) -> dict[str, Any]:
    """A game as ``GET /games`` lists it."""
    game, build = active.game, active.build
    price = game.feature_buy_price_x(build)
    help_ = game.help(build)
    return {
        "id": active.id, "title": game.title, "version": game.version, "build": active.config.build,
        "build_version": build.identity.version, "build_hash": build.identity.content_hash,
        "rtp": float(help_.rtp), "rtp_proof": {k: v for k, v in help_.rtp_proof.items() if k != "rtp"}, "bet_ladder": list(active.config.bet_ladder),
        "volatility": help_.volatility, "volatility_bolts": help_.volatility_bolts,
        "art": {kind: f"/api/v1/games/{active.id}/art/{kind}.svg" for kind in ART if art_file(game, kind)},
        # the renderer, stylesheet and sounds the game ships in its folder (absent: its genre's renderer, else
        # the generic board; the generic sounds)
        "client": {part: f"/api/v1/games/{active.id}/client/{name}" for part, name in CLIENT_PARTS.items()
                   if client_file(game, name)},
        "max_win_x": game.cap_x(build), "max_win": game.published_max_win(build).to_json(),
        "modes": list(game.modes), "step_actions": list(game.step_actions),
        "presentation": game.presentation,
        "feature_buy_price_x": None if price is None else str(price), "currency": config.currency,
        # Whether floor(bet * win_x) is exact for every bet of the ladder (see rounds.money).
        "exact_wins": all(b % game.win_unit(build) == 0 for b in active.config.bet_ladder),
    }


ART = ("logo", "keyart")
"""The pictures a game may ship in its own folder (``logo.svg``, ``keyart.svg``), drawn in the project."""


CLIENT_PARTS = {"renderer": "client.js", "style": "client.css", "sounds": "sounds.json"}
"""What of the browser client a game may ship in its folder: its renderer (an ES module the client imports:
``create``, and optionally ``describe``, ``stepNames``, ``art``, ``helpArt``, as ``web/js/games/generic.js``; or only
``symbols``, the look of its symbols that the generic board then draws),
its stylesheet and its own sounds (``sounds.toml``, served as JSON: see reelforge.game.sounds)."""
MEDIA_TYPES = {".svg": "image/svg+xml", ".js": "text/javascript", ".css": "text/css"}
SERVED_FROM = {"sounds.json": SOUNDS_FILE}
"""Client files the server writes from a file of the folder (checked when the server starts)."""


def game_file(game: Any, name: str) -> Path | None:
    """The file ``name`` in the game's package folder (beside its class's module), or None."""
    path = Path(inspect.getfile(type(game))).parent / name
    return path if path.is_file() else None


def client_file(game: Any, name: str) -> Path | None:
    """The file of the game's folder that serves the client file ``name`` (``sounds.json``: its ``sounds.toml``,
    checked here, so a game whose sounds cannot play stops the server at its start, naming what is wrong)."""
    path = game_file(game, SERVED_FROM.get(name, name)) if name in CLIENT_PARTS.values() else None
    if path is not None and name == "sounds.json":
        load_sounds(path)
    return path


def art_file(game: Any, kind: str) -> Path | None:
    """The game's own picture ``kind`` (an SVG file in the game's package folder), or None."""
    return game_file(game, f"{kind}.svg") if kind in ART else None


UNFINISHED_TITLE = "Unfinished rounds"
UNFINISHED_TEXT = (
    "A round is decided when it is staked. If you leave or lose the connection, the game continues from where "
    "you stopped when you open it again.",
    "A round left unfinished for {days} days is completed and its win paid; it is never refunded.",
    "A malfunction voids the round and refunds its stake (malfunction voids all pays and plays).",
)
"""The platform's rule for interrupted rounds (English; translated in the ``client`` catalog)."""


def unfinished_section(config: ServerConfig, lang: str = DEFAULT_LANGUAGE) -> dict[str, Any]:
    """The platform's rule for interrupted rounds, the same in every game's help, in ``lang``."""
    days = format_decimal(lang, config.round_expiry_days)
    return {"title": translate(lang, "client", UNFINISHED_TITLE),
            "text": [translate(lang, "client", text, days=days) for text in UNFINISHED_TEXT]}


def help_answer(active: ActiveGame, config: ServerConfig, lang: str = DEFAULT_LANGUAGE) -> dict[str, Any]:
    """``GET /games/{game}/help``: the game's help, the offer (build, ladder, price) and its help page; the
    platform's own sections in ``lang`` (the game's texts in it too, from its ``games`` catalog)."""
    help_ = active.game.help(active.build, lang)
    body = help_.to_json()
    # rtp stays a number in the API (a fraction of the stake); rtp_nominal is the build's published RTP as an
    # exact fraction: the proven exact RTP where the build file gives it (builds tuned on exact figures, issue 34),
    # else its nominal figure (`reelforge summary` computes the RTP). rtp_exact is the same value under its
    # former, misleading name, kept for clients written before issue 23.
    # volatility stays the scale's English word (a key the client knows); volatility_text is it in the language
    body.update({"rtp": float(help_.rtp), "rtp_nominal": str(help_.rtp), "rtp_exact": str(help_.rtp),
                 "volatility_text": translate(lang, "games", help_.volatility),
                 "bet_ladder": list(active.config.bet_ladder), "currency": config.currency, "lang": lang})
    body["page"].setdefault("sections", []).append(unfinished_section(config, lang))
    return body


def add_routes(app: FastAPI, ctx: Context) -> None:
    """Add the games routes to ``app``."""
    games_json = dumps([game_entry(active, ctx.config) for active in ctx.service.games.values()])

    @app.get("/api/v1/games", tags=["games"])
    def list_games() -> Response:
        """Games offered: active build, RTP, bet ladder (total bets, minor units), max win, feature-buy price."""
        return Response(games_json, media_type="application/json")

    @app.get("/api/v1/games/{game}/help", tags=["games"])
    def game_help(game: GameId, request: Request, lang: LangQuery = None) -> JSONResponse:
        """Help: title, game id, version, active build and RTP, rules, paytable, bet ladder, max win; in
        ``lang`` (else the request's Accept-Language, else English; a language the server does not know is
        English)."""
        chosen = negotiate(lang, request.headers.get("accept-language"))
        return JSONResponse(help_answer(ctx.service.active(game), ctx.config, chosen))

    @app.get("/api/v1/games/{game}/art/{kind}.svg", tags=["games"])
    def game_art(game: GameId, kind: str) -> Response:
        """The game's logo (``logo``) or key art (``keyart``): an SVG drawn in the project, kept in the game's folder."""
        path = art_file(ctx.service.active(game).game, kind)
        if path is None:
            raise StarletteHTTPException(404, f"{game} has no picture {kind!r}; pictures: {', '.join(ART)}")
        # An SVG shown as an image: no script of its own runs, and the policy forbids it besides.
        return Response(path.read_bytes(), media_type=MEDIA_TYPES[".svg"])

    @app.get("/api/v1/games/{game}/client/{name}", tags=["games"])
    def game_client(game: GameId, name: str) -> Response:
        """The game's own part of the browser client, kept in its folder: its renderer (``client.js``, an ES
        module), its stylesheet (``client.css``) or its own sounds (``sounds.json``, from its ``sounds.toml``)."""
        path = client_file(ctx.service.active(game).game, name)
        if path is None:
            raise StarletteHTTPException(404, f"{game} ships no client file {name!r}; client files: "
                                              f"{', '.join(CLIENT_PARTS.values())}")
        if name == "sounds.json":
            return JSONResponse({"effects": load_sounds(path)})
        return Response(path.read_bytes(), media_type=MEDIA_TYPES[path.suffix])

    @app.get("/api/v1/settings", tags=["games"])
    def settings(request: Request, authorization: Auth = None) -> JSONResponse:
        """The responsible-play rules the client shows and keeps to: reality check interval (minutes, 0 off),
        whether Turbo is offered, the least time between round starts, the maximum bet and stake; with a
        session, the limits that apply to it (its brand's, with the operator's launch profile and stricter
        limits), its play session's clocks, its currency, the currency's decimals, its language, and the bet
        ladder of every game in its currency. ``lang``: the language the client speaks (ISO 639-1): the
        session's, else the request's ``Accept-Language``, else English."""
        config = ctx.config
        accepted = request.headers.get("accept-language")
        if authorization is None:
            return JSONResponse({"currency": config.currency, "currency_decimals": config.currencies[config.currency],
                                 "wallet": config.operator.wallet, "lang": negotiate(None, accepted),
                                 **config.play.public()})
        who = ctx.principal(authorization)
        rules = who.rules(config)
        brand = config.brand(who.brand)
        currency = who.currency or brand.currency
        ladders = {}
        for game_id in ctx.service.games:
            ladder = brand.ladder(game_id, currency) or ()
            top = min((m for m in (rules.max_bet, who.max_bet) if m is not None), default=None)
            ladders[game_id] = [b for b in ladder if (top is None or b <= top) and b >= (who.min_bet or 0)]
        return JSONResponse({"currency": currency, "currency_decimals": config.currencies.get(currency, 2),
                             "language": who.language, "lang": negotiate(who.language, accepted),
                             "wallet": config.operator.wallet, "brand": brand.id, "game": who.game,
                             **launched_options(ctx.engine, bearer(authorization).sha256),
                             "play_session": play_session(rules, who),
                             "bet_ladders": ladders, **rules.public()})

