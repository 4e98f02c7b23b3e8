"""Seamless wallet soak: real game server processes on the reference operator wallet (its own process and
database), faults injected into the wallet's answers, both killed during play; then everything reconciled
(``reelforge wallet-soak``; figures in docs/RELIABILITY.md).

Players (threads, one keep-alive connection each) are launched the way an
operator launches them (a signed launch, the browser's token exchange) and
play complete rounds. A request cut by a kill is retried with the same
``Idempotency-Key`` until answered; a start refused with 503
``wallet_unavailable`` (its debit rolled back, nothing charged) is given up
and the next round gets a new key. A killer alternately SIGKILLs the game
server (a fresh process is started: :class:`ServerSupervisor`) and the
wallet (started again on its database after a pause).

After the play time the faults stop and the kills end; the soak waits for the
server's outbox to drain, then checks, per player: the operator's balance
equals its opening balance minus the cost of every round we stored that is
not void plus every win (ours), and equals what the player computed from its
answers; the wallet's own ledger sums to its balances; for every round the
wallet holds exactly one applied debit of its cost (none for a void round)
and credits summing to its win; ``reelforge reconcile`` finds no
difference; no round is left open; every round verifies by replay.
``lost_or_duplicated_money`` sums the absolute differences of the money
checks (0 when everything reconciles).

Campaign players (``campaign_players``) play free rounds of free-round
campaigns instead (docs/OPERATORS.md): each makes its own campaign of a
few rounds with the operator's API (idempotent by its campaign id, so a
creation cut by a kill is retried safely), plays them, and makes the next
when they are used up, the campaigns alternately paying the total at the
end and each win. The killer waits for a free round to be played before
each kill, so kills fall among free rounds. After play every campaign is
cancelled (its accrued totals credited); the checks then also require: no
debit for a free round, the wallet's credits on each player's free rounds
summing to their wins, each carrying its campaign id, and every campaign's
counts and totals matching its rounds and credits (``reconcile``).
"""

from __future__ import annotations

import functools
import hashlib
import random
import shutil
import statistics
import tempfile
import threading
import time
import uuid
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx
from sqlalchemy import create_engine, func, select, text
from sqlalchemy.engine import make_url

from reelforge.games.registry import game_ids, get_game
from reelforge.ops.refwallet_process import WalletProcess
from reelforge.ops.supervisor import ServerSupervisor
from reelforge.ops.wallet_soak_checks import OPENING_BALANCE, merge_checks, money_checks
from reelforge.server.config import load_config
from reelforge.server.db import make_engine
from reelforge.server.schema import wallet_transactions
from reelforge.server.signing import signed_headers


@functools.cache
def soak_game() -> tuple[str, tuple[int, int]]:
    """The game the soak plays (the registry's first, as ``reelforge soak``) and the two lowest bets of its
    default ladder (the soak stakes the second)."""
    game_id = game_ids()[0]
    game = get_game(game_id)
    ladder = game.default_bet_ladder(game.load_build(game.default_build()))
    return game_id, (ladder[0], ladder[1])


SECRET = "wallet-soak-secret-" + "x" * 16
FAULT_RATES = {"timeout_before": 0.02, "timeout_after": 0.02, "error_before": 0.02, "error_after": 0.02,
               "nonsense": 0.02, "slow": 0.05}


@dataclass
class Tally:
    """What the players saw, shared by all of them (under ``lock``)."""

    lock: threading.Lock = field(default_factory=threading.Lock)
    rounds: int = 0
    steps: int = 0
    statuses: Counter = field(default_factory=Counter)
    transport_retries: int = 0
    wallet_unavailable: int = 0
    credit_pending_seen: int = 0
    free_rounds: int = 0
    campaigns: int = 0
    unexpected: list[str] = field(default_factory=list)
    free_played: threading.Event = field(default_factory=threading.Event)
    """Set whenever a free round was played (the killer waits for it)."""

    def note(self, **counts: int) -> None:
        with self.lock:
            for name, n in counts.items():
                setattr(self, name, getattr(self, name) + n)


@dataclass
class SoakPlayer:
    name: str
    costs: int = 0
    wins: int = 0
    round_ids: set[int] = field(default_factory=set)
    open_round: int | None = None
    campaigns: list[str] | None = None
    """A campaign player: the ids of the campaigns it made (None: it plays paid rounds)."""


OPERATOR_KEY = "wallet-soak-operator-key"
CAMPAIGN_ROUNDS = 3


def _config_text(db: str, wallet_url: str, brand: str = "default", secret: str = SECRET) -> str:
    key = hashlib.sha256(OPERATOR_KEY.encode()).hexdigest()
    return (f'[server]\nmode = "operator"\napi_key_sha256 = "{key}"\ndatabase = "{db}"\nexpiry_check_seconds = 0\n'
            'round_start_quantum_ms = 0\nsession_requests_per_second = 0\nip_requests_per_second = 0\n'
            f'[games.{soak_game()[0]}]\nbet_ladder = [{soak_game()[1][0]}, {soak_game()[1][1]}]\n'
            f'[operator]\nwallet = "seamless"\nsecret = "{secret}"\nwallet_url = "{wallet_url}"\n'
            f'brand = "{brand}"\nwallet_timeout_seconds = 1.0\nstart_limit_seconds = 3.0\n')


@dataclass
class SoakBrand:
    """One brand of the soak: its own wallet (process and database), secret and game server processes
    (their own configuration), all brands on the one game database."""

    id: str
    secret: str
    wallet: WalletProcess
    drop_wallet_db: Any
    supervisor: ServerSupervisor | None = None
    roster: list[SoakPlayer] = field(default_factory=list)


class Play:
    """One player's thread: launched, then full rounds until told to stop."""

    def __init__(self, base_url: str, player: SoakPlayer, tally: Tally, stop: threading.Event,
                 hard_deadline: float, secret: str = SECRET) -> None:
        self.http = httpx.Client(base_url=base_url, timeout=30)
        self.player, self.tally, self.stop, self.hard_deadline = player, tally, stop, hard_deadline
        self.secret = secret
        self.token = ""
        self.campaign: int | None = None  # a campaign player's current campaign

    def request(self, method: str, path: str, body: Any = None, key: str | None = None,
                signed: bool = False, operator: bool = False) -> httpx.Response:
        """One request, retried as it is (same key, signed anew) while the server is down or restarting;
        ``operator``: with the operator's key instead of the session."""
        while True:
            if time.monotonic() > self.hard_deadline:
                raise TimeoutError(f"{method} {path}: no answer before the hard deadline")
            headers = {"X-Operator-Key": OPERATOR_KEY} if operator else \
                {"Authorization": f"Bearer {self.token}"} if self.token else {}
            if key:
                headers["Idempotency-Key"] = key
            data = b"" if body is None else httpx.Request("POST", "/", json=body).content
            if signed:
                headers.update(signed_headers(self.secret, method, path, data))
            headers["content-type"] = "application/json"
            try:
                answer = self.http.request(method, path, content=data, headers=headers)
            except httpx.TransportError:
                self.tally.note(transport_retries=1)
                time.sleep(0.05)
                continue
            if answer.status_code in (502, 503, 504) and answer.json().get("error") != "wallet_unavailable":
                time.sleep(0.05)  # storage restarting: the same request again
                continue
            return answer

    def run(self) -> None:
        try:
            r = self.request("POST", "/api/v1/operator/launches", {"player": self.player.name, "currency": "EUR"},
                             signed=True)
            launch = r.json()["launch_url"].split("launch=")[1]
            self.token = self.request("POST", "/api/v1/launch", {"token": launch}).json()["token"]
            while not self.stop.is_set():
                if self.player.campaigns is None:
                    self.play_round()
                else:
                    self.play_free_round()
        except Exception as exc:  # noqa: BLE001 - reported, the soak fails
            self.tally.unexpected.append(f"{self.player.name}: {type(exc).__name__}: {exc}")
        finally:
            self.http.close()

    def new_campaign(self) -> int:
        """Make this player's next campaign (its id made here: a retry after a kill gets the same campaign)."""
        n = len(self.player.campaigns)
        key = f"{self.player.name}-c{n}"
        game, (_, bet) = soak_game()
        valid_until = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(time.time() + 86_400))
        r = self.request("POST", "/api/v1/operator/campaigns", {
            "campaign_id": key, "players": [self.player.name], "games": [game], "bets": {"EUR": bet},
            "rounds": CAMPAIGN_ROUNDS, "valid_until": valid_until, "credit": ("end", "each_win")[n % 2]},
            operator=True)
        if r.status_code not in (200, 201):
            raise RuntimeError(f"campaign: {r.status_code} {r.text[:200]}")
        self.player.campaigns.append(key)
        self.tally.note(campaigns=1)
        return r.json()["id"]

    def play_free_round(self) -> None:
        """One free round of the player's campaign (a new campaign once its rounds are used up)."""
        if self.campaign is None:
            self.campaign = self.new_campaign()
        if self.play_round(self.campaign) == "used_up":
            self.campaign = self.new_campaign()
            return
        self.tally.note(free_rounds=1)
        self.tally.free_played.set()

    def play_round(self, campaign: int | None = None) -> str | None:
        key = uuid.uuid4().hex
        while True:
            game, (_, bet) = soak_game()
            if campaign is None:
                r = self.request("POST", f"/api/v1/games/{game}/rounds", {"bet": bet}, key=key)
            else:
                r = self.request("POST", f"/api/v1/games/{game}/free-rounds", {"campaign": campaign}, key=key)
            self.tally.statuses[r.status_code] += 1
            if r.status_code == 409 and r.json()["error"] == "round_starting":
                time.sleep(0.2)
                continue
            break
        body = r.json()
        if r.status_code == 409 and body["error"] == "no_free_rounds_left":
            return "used_up"
        if r.status_code == 503:
            self.tally.note(wallet_unavailable=1)
            return
        if r.status_code == 409 and body["error"] == "unfinished_round":  # only if a start's answer was lost twice
            body = self.request("GET", f"/api/v1/games/{soak_game()[0]}/rounds/unfinished").json()
        elif r.status_code != 201:
            raise RuntimeError(f"start: {r.status_code} {body}")
        rnd = body
        if rnd["id"] not in self.player.round_ids:
            self.player.round_ids.add(rnd["id"])
            self.player.costs += rnd["cost"]
        self.player.open_round = rnd["id"]
        self.tally.note(steps=1)
        while rnd["status"] == "open":
            r = self.request("POST", f"/api/v1/rounds/{rnd['id']}/steps", {}, key=uuid.uuid4().hex)
            if r.status_code != 200:
                raise RuntimeError(f"step of {rnd['id']}: {r.status_code} {r.text[:200]}")
            rnd = r.json()
            self.tally.note(steps=1)
        self.player.open_round = None
        if rnd["status"] == "void":
            self.player.costs -= rnd["cost"]
        else:
            self.player.wins += rnd["paid"]
        if (rnd.get("wallet_settlement") or {}).get("status") == "pending":
            self.tally.note(credit_pending_seen=1)
        self.tally.note(rounds=1)
        return None


def _wallet_db(db: str, workdir: Path, suffix: str = "") -> tuple[str, Any]:
    """A wallet's own database: a SQLite file, or a PostgreSQL database beside the game server's (made
    here); its URL and what drops it afterwards."""
    url = make_url(db)
    if url.get_backend_name() == "sqlite":
        return f"sqlite:///{workdir / f'refwallet{suffix}.db'}", lambda: None
    name = f"{url.database}_refwallet{suffix}"
    admin = create_engine(url, isolation_level="AUTOCOMMIT")
    with admin.connect() as conn:
        conn.execute(text(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)'))
        conn.execute(text(f'CREATE DATABASE "{name}"'))

    def drop() -> None:
        with admin.connect() as conn:
            conn.execute(text(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)'))
        admin.dispose()

    return url.set(database=name).render_as_string(hide_password=False), drop


def run_wallet_soak(db: str | None = None, players: int = 8, seconds: float = 60.0, kill_every: float = 4.0,
                    seed: int = 1, faults: bool = True, brands: int = 1, campaign_players: int = 0,
                    min_kills: int = 0) -> dict[str, Any]:
    """Run the soak; the figures and the checks' results (``reconciled``: every check passed). ``brands`` > 1:
    that many brands on the one database, each with its own wallet and its own game server processes (the
    players shared out among them); the kills go round every brand's server and wallet, and every brand is
    reconciled against its own wallet. ``campaign_players`` of the ``players`` play free rounds of
    campaigns (see the module docstring); with any, each kill waits for a free round first. ``min_kills``: play
    goes on past ``seconds`` until that many kills (servers' and wallets' together, in their turn) were made, so
    a loaded machine's slow restarts cannot leave a short run with fewer."""
    rng = random.Random(seed)
    workdir = Path(tempfile.mkdtemp(prefix="reelforge-wallet-soak-"))
    db = db or f"sqlite:///{workdir / 'server.db'}"
    units: list[SoakBrand] = []
    tally = Tally()
    fault_counts: Counter = Counter()
    server_downtimes: list[float] = []
    wallet_downtimes: list[float] = []
    figures: dict[str, Any] = {}
    try:
        for b in range(brands):
            brand_id = "default" if brands == 1 else f"brand-{chr(ord('a') + b)}"
            wallet_db, drop = _wallet_db(db, workdir, "" if brands == 1 else f"_{b}")
            secret = SECRET if brands == 1 else f"{SECRET}-{brand_id}"
            unit = SoakBrand(brand_id, secret, WalletProcess(wallet_db, secret, seed=seed + b), drop)
            units.append(unit)
            unit.wallet.start()
            _forget_wallet(db, brand_id)
            config_path = workdir / f"server-{brand_id}.toml"
            config_path.write_text(_config_text(db, unit.wallet.url, brand_id, secret))
            load_config(config_path)
            unit.supervisor = ServerSupervisor(db, workdir / f"server-{brand_id}.log", config_path)
            unit.supervisor.start()
        for i in range(players):
            unit = units[i % brands]
            unit.roster.append(SoakPlayer(f"ws{seed}-{unit.id}-{i}-{uuid.uuid4().hex[:6]}",
                                          campaigns=[] if i < campaign_players else None))
        for unit in units:
            for p in unit.roster:
                unit.wallet.open_account(p.name, "EUR", OPENING_BALANCE)
            if faults:
                unit.wallet.set_faults(hang_seconds=1.5, slow_seconds=0.3, **FAULT_RATES)
        stop = threading.Event()
        hard_deadline = time.monotonic() + seconds + 120
        threads = [threading.Thread(target=Play(u.supervisor.base_url, p, tally, stop, hard_deadline, u.secret).run,
                                    daemon=True) for u in units for p in u.roster]
        for t in threads:
            t.start()
        ends = time.monotonic() + seconds
        turn = 0
        while kill_every and (time.monotonic() + kill_every < ends or turn < min_kills):
            time.sleep(kill_every * rng.uniform(0.5, 1.5))
            if campaign_players:  # the kill falls among free rounds: after one was played
                tally.free_played.clear()
                tally.free_played.wait(timeout=max(0.0, (ends if turn >= min_kills else hard_deadline)
                                                   - time.monotonic()))
            unit = units[turn % brands]  # every brand's server in turn, then every brand's wallet
            if (turn // brands) % 2 == 0:
                server_downtimes.append(unit.supervisor.restart())
            else:
                fault_counts.update(unit.wallet.stats())
                t0 = time.monotonic()
                unit.wallet.kill()
                time.sleep(rng.uniform(0.2, 1.5))  # calls meanwhile find no wallet
                unit.wallet.start()
                if faults:
                    unit.wallet.set_faults(hang_seconds=1.5, slow_seconds=0.3, **FAULT_RATES)
                wallet_downtimes.append(time.monotonic() - t0)
            turn += 1
        time.sleep(max(0.0, ends - time.monotonic()))
        stop.set()
        for t in threads:
            t.join(timeout=max(1.0, hard_deadline - time.monotonic()))
        for unit in units:
            fault_counts.update(unit.wallet.stats())
            unit.wallet.set_faults()
            _cancel_campaigns(unit, hard_deadline)  # the accrued totals are credited (through the outbox)
        engine = make_engine(db)
        t0 = time.monotonic()
        while True:
            with engine.connect() as conn:
                depth = conn.execute(select(func.count()).select_from(wallet_transactions)
                                     .where(wallet_transactions.c.status == "pending")).scalar_one()
            if depth == 0 or time.monotonic() - t0 > 120:
                break
            time.sleep(0.2)
        figures["outbox_drain_seconds"] = round(time.monotonic() - t0, 2)
        figures["outbox_left"] = depth
        for unit in units:
            unit.supervisor.close()
        checks = [money_checks(engine, u.wallet, u.roster, tally, None if brands == 1 else u.id) for u in units]
        figures.update(merge_checks(checks, [u.id for u in units]))
        engine.dispose()
    finally:
        for unit in units:
            if unit.supervisor is not None:
                unit.supervisor.close()
            unit.wallet.stop()
            unit.drop_wallet_db()
        if db.startswith("sqlite") and str(workdir) in db:
            shutil.rmtree(workdir, ignore_errors=True)
    figures.update({
        "backend": make_url(db).get_backend_name(), "brands": brands, "players": players, "seconds": seconds,
        "rounds": tally.rounds, "steps": tally.steps, "server_kills": len(server_downtimes),
        "wallet_kills": len(wallet_downtimes),
        "server_restart_p50_s": round(statistics.median(server_downtimes), 2) if server_downtimes else None,
        "server_restart_max_s": round(max(server_downtimes), 2) if server_downtimes else None,
        "wallet_restart_p50_s": round(statistics.median(wallet_downtimes), 2) if wallet_downtimes else None,
        "faults_injected": {k: fault_counts[k] for k in FAULT_RATES},
        "duplicate_deliveries": fault_counts["duplicates"],
        "starts_refused_wallet_unavailable": tally.wallet_unavailable,
        "credit_pending_seen": tally.credit_pending_seen, "transport_retries": tally.transport_retries,
        "free_rounds": tally.free_rounds, "campaigns": tally.campaigns,
        "unexpected": tally.unexpected[:20],
    })
    figures["reconciled"] = (not figures["problems"] and not tally.unexpected and figures["outbox_left"] == 0
                             and figures["lost_or_duplicated_money"] == 0)
    return figures


def _cancel_campaigns(unit: SoakBrand, hard_deadline: float) -> None:
    """Cancel every campaign of the brand's players (their accrued totals credited)."""
    with httpx.Client(base_url=unit.supervisor.base_url, timeout=30) as http:
        for key in [k for p in unit.roster for k in (p.campaigns or [])]:
            while True:
                try:
                    r = http.post(f"/api/v1/operator/campaigns/{key}/cancel", headers={"X-Operator-Key": OPERATOR_KEY})
                except httpx.TransportError:
                    r = None
                if r is not None and r.status_code == 200:
                    break
                if time.monotonic() > hard_deadline:
                    raise TimeoutError(f"campaign {key} not cancelled: {r and r.text[:200]}")
                time.sleep(0.1)


def _forget_wallet(db: str, brand: str) -> None:
    """Forget the wallet an earlier soak on this database registered for ``brand``: this soak's wallet is a new
    process at a new address (a server would refuse to start on the old registration)."""
    from sqlalchemy import delete
    from sqlalchemy.exc import SQLAlchemyError

    from reelforge.server.brands import wallet_key
    from reelforge.server.schema import server_keys

    engine = make_engine(db)
    try:
        with engine.begin() as conn:
            conn.execute(delete(server_keys).where(server_keys.c.name == wallet_key(brand)))
    except SQLAlchemyError:  # a new database: no table yet, nothing registered
        pass
    finally:
        engine.dispose()
