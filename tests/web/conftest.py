"""Browser tests: a real game server (uvicorn, SQLite) started by the test on a
free port, driven by Debian's Chromium through Playwright's driver.

The server is built with the test-only ``draw_source_factory`` hook of
:func:`reelforge.server.app.create_app` (a seeded source switched on per test
to reach a feature without luck); production configuration cannot reach it.

Screenshots go to ``test-artifacts/web/`` (git-ignored; override with
``REELFORGE_ARTIFACTS``) when ``REELFORGE_SCREENSHOTS`` is set: no test reads them, and a full-page
PNG costs Chromium CPU, so an ordinary run takes none. The tests skip only when Chromium is absent and
``CI`` is not set: in CI they must run.
"""

from __future__ import annotations

import hashlib
import os
import socket
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

import httpx
import pytest

from reelforge.core.draws import DrawSource, SecureDraws
from reelforge.ops.client import ApiClient, Call

CHROMIUM = os.environ.get("REELFORGE_CHROMIUM", "/usr/bin/chromium")
CHROMIUM_ARGS = [
    "--no-sandbox",  # Chromium refuses to run as root with its sandbox (CI containers)
    "--disable-gpu", "--disable-quic", "--no-first-run", "--disable-background-networking",
    "--disable-component-update", "--disable-sync", "--disable-dev-shm-usage",
]
OPERATOR_KEY = "web-test-operator-key"
ARTIFACTS = Path(os.environ.get("REELFORGE_ARTIFACTS", Path(__file__).resolve().parents[2] / "test-artifacts")) / "web"

PHONE = {"viewport": {"width": 390, "height": 844}, "device_scale_factor": 2, "is_mobile": True, "has_touch": True}
DESKTOP = {"viewport": {"width": 1366, "height": 768}}

HERE = Path(__file__).resolve().parent


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Without Chromium the browser tests skip, except in CI (``CI`` set), where they must run."""
    if os.path.exists(CHROMIUM) or os.environ.get("CI"):
        return
    skip = pytest.mark.skip(reason=f"{CHROMIUM} is absent (apt-get install chromium; "
                                   ".ci/install-chromium.sh does it in CI)")
    for item in items:
        if HERE in Path(str(item.path)).resolve().parents:
            item.add_marker(skip)


class SwitchableDraws:
    """The test-only draw source: the OS CSPRNG unless a test points it at a seeded stream."""

    def __init__(self) -> None:
        self.source: DrawSource = SecureDraws()

    def draw(self, n: int) -> int:
        return self.source.draw(n)


def test_config():
    """The packaged demo configuration, plus every registered game it does not list yet (with its
    default build and a bet ladder of multiples of the build's win unit, so every win pays exactly),
    plus an operator key so a test can move money with the operator API."""
    from reelforge.game.contract import BuildError
    from reelforge.games.registry import game_ids, get_game
    from reelforge.server.config import load_config
    from reelforge.server.config_games import GameConfig

    config = load_config(None)
    games = dict(config.games)
    for gid in game_ids():
        if gid in games:
            continue
        game = get_game(gid)
        try:
            name = game.default_build()
            build = game.load_build(name)
        except (IndexError, BuildError):
            continue  # a game without a shipped build cannot be offered yet
        unit = game.win_unit(build)
        games[gid] = GameConfig(gid, name, tuple(unit * k for k in (1, 2, 5, 10, 20)))
    return replace(config, games=games, expiry_check_seconds=0, play=replace(config.play, reality_check_minutes=0),
                   api_key_sha256=hashlib.sha256(OPERATOR_KEY.encode()).hexdigest())


test_config.__test__ = False  # a helper, not a test


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@dataclass
class WebServer:
    url: str
    app: Any
    draws: SwitchableDraws
    config: Any
    games: list[dict[str, Any]] = field(default_factory=list)
    http: httpx.Client = field(init=False)
    """One keep-alive client: a fresh connection per call costs the tests ~0.2 s each."""

    def __post_init__(self) -> None:
        self.http = httpx.Client(base_url=self.url, timeout=10)

    def client(self, token: str | None = None) -> ApiClient:
        """The project's API client on the shared connection (operator key included), with ``token``."""
        return ApiClient(self.http, token, OPERATOR_KEY)

    def api(self, method: str, path: str, token: str | None = None, **kw: Any) -> httpx.Response:
        """Any request under ``/api/v1`` (the tests of odd requests), with the session ``token``."""
        call = Call(method, path, kw.pop("json", None), dict(kw.pop("headers", {})))
        if kw:
            raise TypeError(f"unexpected request options {sorted(kw)}")
        return self.client(token).send(call)

    def balance(self, token: str) -> int:
        r = self.client(token).wallet()
        assert r.status_code == 200, r.text
        return r.json()["balance"]

    def withdraw(self, player: str, amount: int) -> int:
        r = self.client().withdraw(player, amount)
        assert r.status_code == 200, r.text
        return r.json()["balance"]


@pytest.fixture(scope="module")
def web_server(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> Iterator[WebServer]:
    """One server per test module: :func:`test_config`, or the module's own ``WEB_CONFIG()``."""
    import uvicorn

    from reelforge.server.app import create_app

    config = getattr(request.module, "WEB_CONFIG", test_config)()
    db = tmp_path_factory.mktemp("web") / "web.db"
    draws = SwitchableDraws()
    # A module with WEB_PROVABLY_FAIR = True gets the production draws (the players' seed pairs) instead.
    factory = None if getattr(request.module, "WEB_PROVABLY_FAIR", False) else (lambda: draws)
    app = create_app(config, f"sqlite:///{db}", draw_source_factory=factory)
    port = free_port()
    server = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=port, log_level="warning"))
    thread = threading.Thread(target=server.run, name="web-test-server", daemon=True)
    thread.start()
    deadline = time.monotonic() + 20
    while not server.started:
        if not thread.is_alive() or time.monotonic() > deadline:
            raise RuntimeError("the test game server did not start")
        time.sleep(0.05)
    web = WebServer(f"http://127.0.0.1:{port}", app, draws, config)
    web.games = web.api("GET", "/games").json()
    try:
        yield web
    finally:
        web.http.close()
        server.should_exit = True
        thread.join(timeout=10)
        app.state.engine.dispose()


@pytest.fixture(scope="package")
def browser() -> Iterator[Any]:
    """One Chromium for the browser tests a worker runs in a row (each test opens its own context: its own
    storage, cookies and pages, nothing shared with another test), not one started per file."""
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        b = p.chromium.launch(executable_path=CHROMIUM, headless=True, args=CHROMIUM_ARGS)
        try:
            yield b
        finally:
            b.close()


@pytest.fixture
def new_page(browser, web_server):
    """Factory: ``new_page(phone=False)`` -> a Playwright page on the test server (own context)."""
    contexts = []

    def make(phone: bool = False):
        ctx = browser.new_context(base_url=web_server.url, **(PHONE if phone else DESKTOP))
        ctx.set_default_timeout(10_000)
        contexts.append(ctx)
        # The intro screen a player sees when a game opens is off unless a test turns it on.
        ctx.add_init_script("if (localStorage.getItem('rf.intro') === null) localStorage.setItem('rf.intro', '0')")
        page = ctx.new_page()
        errors: list[str] = []
        page.on("pageerror", lambda exc: errors.append(str(exc)))
        page.js_errors = errors  # checked by the tests: the client must not throw
        return page

    yield make
    for ctx in contexts:
        ctx.close()


SCREENSHOTS = bool(os.environ.get("REELFORGE_SCREENSHOTS"))
"""Whether :func:`screenshot` writes its PNGs (for a person to look at; no test reads one)."""


def screenshot(page, name: str) -> Path | None:
    """The whole page as ``<ARTIFACTS>/<name>.png`` when :data:`SCREENSHOTS` is on; its path, else None."""
    page.evaluate("window.scrollTo(0, 0)")  # a sticky header would otherwise be drawn mid-page
    if not SCREENSHOTS:
        return None
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    path = ARTIFACTS / f"{name}.png"
    page.screenshot(path=str(path), full_page=True)
    return path
