"""The player's language: ``GET /languages`` (those offered), ``GET /languages/{lang}`` (the browser
client's messages in a language, from the ``client`` catalog) and ``PUT /settings/language`` (the player's
choice, kept with the session)."""

from __future__ import annotations

from functools import cache
from typing import Annotated

from fastapi import FastAPI, Path, Request
from fastapi.responses import JSONResponse, Response
from pydantic import Field, StrictStr

from reelforge.core.i18n import LANGUAGES, RTL_LANGUAGES, client_messages, negotiate, plural_categories
from reelforge.server import store
from reelforge.server.api.common import Auth, Context, _Strict
from reelforge.server.auth import bearer
from reelforge.server.round_json import dumps

LanguageTag = Annotated[str, Path(max_length=64, description="a language (ISO 639-1) or tag such as ja-JP; one "
                                                            "the server does not know is answered in English")]


class LanguageChoice(_Strict):
    lang: StrictStr = Field(max_length=64, description="ISO 639-1 code or tag (ja, pt-BR); unknown: English")


@cache
def catalog_json(lang: str) -> str:
    """The client's messages in ``lang`` as the browser takes them: the language, its writing direction, its
    CLDR plural categories and every message (a plural one as category -> form)."""
    return dumps({"lang": lang, "dir": "rtl" if lang in RTL_LANGUAGES else "ltr",
                  "plural_categories": list(plural_categories(lang)), "messages": client_messages(lang)})


def add_routes(app: FastAPI, ctx: Context) -> None:
    """Add the language routes to ``app``."""
    @app.get("/api/v1/languages", tags=["languages"])
    def languages(request: Request) -> JSONResponse:
        """The languages offered (ISO 639-1) and the one this request's ``Accept-Language`` gets."""
        return JSONResponse({"languages": list(LANGUAGES),
                             "negotiated": negotiate(None, request.headers.get("accept-language"))})

    @app.get("/api/v1/languages/{lang}", tags=["languages"])
    def messages(lang: LanguageTag) -> Response:
        """The browser client's messages in ``lang`` (English for a language the server does not know):
        ``lang``, ``dir`` (ltr or rtl), ``plural_categories`` and ``messages`` (English text -> translation;
        a plural message CLDR category -> form)."""
        # built once per process and language: the catalogs never change at run time
        return Response(catalog_json(negotiate(lang)), media_type="application/json",
                        headers={"Cache-Control": "public, max-age=300"})

    @app.put("/api/v1/settings/language", tags=["languages"])
    def choose(body: LanguageChoice, authorization: Auth = None) -> JSONResponse:
        """The player's language for this session (kept with it: refusals and the client speak it); one the
        server does not know is English. Answers ``{"lang": ...}``."""
        ctx.principal(authorization)
        lang = negotiate(body.lang)
        store.set_session_language(ctx.engine, bearer(authorization).sha256, lang)
        return JSONResponse({"lang": lang})
