"""CPU cost of a paid round inside the game server, without the network.

Complements ``server_bench.py``, whose rate depends on everything else the
machine runs: this measures process CPU time (not wall time) per complete
round (the registry's first game unless ``--game``) on a fresh SQLite file, three ways:

* ``asgi``: requests driven straight into the ASGI app (the middleware, the hot path,
  validation, the round transaction, JSON), no sockets and no uvicorn, by a lean driver
  (one ASGI call per request: a few microseconds of its own);
* ``asgi_httpx``: the same requests through the project's API client
  (:class:`reelforge.ops.client.AsyncApiClient` on ``httpx.ASGITransport``): the difference from
  ``asgi`` is what the client library costs, which is why ``asgi`` keeps its lean driver;
* ``service``: the round service alone (the transaction and the rules).

    python bench/server_cpu.py [--rounds 2000] [--game GAME] [--without pacing,fair_share,provably_fair,metrics]
                               [--log-format json|human]

``--without`` switches parts of the newer server off, to see what each costs (the same switches as
``server_instructions.py``, whose ASGI driver this uses too): ``pacing`` (the round
start quantum, ``round_start_quantum_ms = 0``), ``fair_share`` (the rate limits and per-session turns
middleware, replaced by a pass-through), ``provably_fair`` (plain CSPRNG draws), ``metrics`` (the request
metrics and log line middleware). ``--log-format`` writes the
server's request and round-event lines as ``serve`` does (to ``/dev/null``), to see what they cost; without
it they are off.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import tempfile
import time
import uuid
from pathlib import Path

import httpx
from server_instructions import WITHOUT, asgi_request, switched_off  # bench/, beside this script

from reelforge.games.registry import game_ids
from reelforge.ops.client import AsyncApiClient
from reelforge.server import app as app_module
from reelforge.server.auth import bearer, open_session
from reelforge.server.config import load_config


async def _call(app, method: str, path: str, body: dict, headers: dict[str, str]) -> dict:
    raw = [(k.lower().encode(), v.encode()) for k, v in headers.items()]
    return json.loads((await asgi_request(app, method, path, body, raw))[1])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=2000)
    parser.add_argument("--game", default=game_ids()[0], help="default: the registry's first game")
    parser.add_argument("--without", default="", help="comma-separated: " + ", ".join(WITHOUT))
    parser.add_argument("--log-format", choices=("json", "human"), default=None,
                        help="write the request and round-event log lines (to /dev/null)")
    args = parser.parse_args()
    if args.log_format:
        import os

        from reelforge.server.logs import configure_logging

        configure_logging(args.log_format, open(os.devnull, "w"))  # noqa: SIM115 - lives as long as the run
    without = [part for part in args.without.split(",") if part]
    unknown = sorted(set(without) - set(WITHOUT))
    if unknown:
        parser.error(f"--without: unknown part(s) {', '.join(unknown)}; choose from {', '.join(WITHOUT)}")
    config = switched_off(load_config(None), without)
    bet = config.games[args.game].bet_ladder[0]
    with tempfile.TemporaryDirectory(prefix="reelforge-cpu-") as tmp:
        app = app_module.create_app(config, f"sqlite:///{Path(tmp) / 'cpu.db'}")
        service = app.state.service
        token = open_session(app.state.engine, config, "cpu", None)["token"]
        auth = {"Authorization": f"Bearer {token}"}

        async def asgi_round() -> int:
            rnd = await _call(app, "POST", f"/api/v1/games/{args.game}/rounds", {"bet": bet},
                              {**auth, "Idempotency-Key": uuid.uuid4().hex})
            requests = 1
            while rnd["status"] == "open":
                rnd = await _call(app, "POST", f"/api/v1/rounds/{rnd['id']}/steps", {},
                                  {**auth, "Idempotency-Key": uuid.uuid4().hex})
                requests += 1
            return requests

        def service_round() -> int:
            token_ = bearer(f"Bearer {token}")
            rnd = service.start_round(token_, args.game, bet, False, None, uuid.uuid4().hex).body
            requests = 1
            while rnd["status"] == "open":
                rnd = service.play_step(token_, rnd["id"], None, uuid.uuid4().hex).body
                requests += 1
            return requests

        async def run_asgi(n: int) -> int:
            return sum([await asgi_round() for _ in range(n)])

        async def run_httpx(n: int) -> int:
            api = AsyncApiClient(httpx.AsyncClient(transport=httpx.ASGITransport(app), base_url="http://bench"),
                                 token=token)
            requests = 0
            for _ in range(n):
                rnd = (await api.start_round(args.game, bet)).json()
                requests += 1
                while rnd["status"] == "open":
                    rnd = (await api.step(rnd["id"])).json()
                    requests += 1
            await api.aclose()
            return requests

        result = {"game": args.game, "rounds": args.rounds, "without": without, "log_format": args.log_format}
        for name, run in (("asgi", lambda n: asyncio.run(run_asgi(n))),
                          ("asgi_httpx", lambda n: asyncio.run(run_httpx(n))),
                          ("service", lambda n: sum(service_round() for _ in range(n)))):
            run(max(50, args.rounds // 20))  # warm up
            cpu = time.process_time()
            requests = run(args.rounds)
            cpu = time.process_time() - cpu
            result[name] = {"cpu_ms_per_round": round(cpu / args.rounds * 1000, 3),
                            "cpu_ms_per_request": round(cpu / requests * 1000, 3),
                            "requests_per_round": round(requests / args.rounds, 3)}
        app.state.engine.dispose()
    print(json.dumps(result, indent=2))


if __name__ == "__main__":
    main()
