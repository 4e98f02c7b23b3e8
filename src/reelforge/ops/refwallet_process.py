"""The reference operator wallet (:mod:`reelforge.ops.refwallet`) run as a child process, for the tests and the
soaks: start, SIGKILL, restart, and its signed admin calls."""

from __future__ import annotations

import json
import time
from typing import Any


class WalletProcess:
    """The reference wallet as a child process (tests and the soak): start, SIGKILL, restart, and its
    signed admin calls."""

    def __init__(self, db: str, secret: str, seed: int | None = None, port: int | None = None,
                 page_size: int = 10_000) -> None:
        self.db, self.secret, self.seed, self.page_size = db, secret, seed, page_size
        self.port = port or free_port()
        self.proc: Any = None
        self.restarts = 0

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def start(self, timeout: float = 30.0) -> None:
        import subprocess
        import sys

        args = [sys.executable, "-m", "reelforge.ops.refwallet", "--db", self.db, "--port", str(self.port),
                "--secret", self.secret, "--page-size", str(self.page_size)]
        if self.seed is not None:
            args += ["--seed", str(self.seed + self.restarts)]
        self.proc = subprocess.Popen(args, stdout=subprocess.PIPE, text=True)
        deadline = time.monotonic() + timeout
        line = self.proc.stdout.readline()
        if not line.startswith("ready") or time.monotonic() > deadline:
            self.kill()
            raise RuntimeError(f"the reference wallet did not start: {line!r}")

    def kill(self) -> None:
        """SIGKILL it (a crash: nothing is flushed or closed)."""
        if self.proc is not None and self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait()

    def restart(self) -> None:
        self.kill()
        self.restarts += 1
        self.start()

    def stop(self) -> None:
        self.kill()
        if self.proc is not None and self.proc.stdout:
            self.proc.stdout.close()

    def call(self, method: str, path: str, body: dict[str, Any] | None = None) -> Any:
        """A signed call to the wallet; its JSON answer."""
        import httpx

        from reelforge.server.signing import signed_headers

        data = b"" if body is None else json.dumps(body).encode()
        headers = {"content-type": "application/json", **signed_headers(self.secret, method, path, data)}
        answer = httpx.request(method, self.url + path, content=data, headers=headers, timeout=30)
        answer.raise_for_status()
        return answer.json()

    def open_account(self, player: str, currency: str, balance: int) -> None:
        self.call("POST", "/admin/accounts", {"player": player, "currency": currency, "balance": balance})

    def set_defects(self, *defects: str) -> None:
        """Make it a wrong wallet with these deliberate :data:`DEFECTS` (none: the reference wallet again)."""
        self.call("POST", "/admin/defects", {"defects": list(defects)})

    def set_faults(self, hang_seconds: float = 5.0, slow_seconds: float = 0.2,
                   kinds: tuple[str, ...] = ("debit", "credit", "rollback"), **rates: float) -> None:
        """Set the fault plan (``rates``: probability per fault name; none: no faults)."""
        self.call("POST", "/admin/faults", {"rates": rates, "hang_seconds": hang_seconds,
                                             "slow_seconds": slow_seconds, "kinds": list(kinds)})

    def balance(self, player: str) -> int:
        import httpx

        from reelforge.server.signing import signed_headers

        data = json.dumps({"player": player, "currency": "", "timestamp": int(time.time())}).encode()
        answer = httpx.post(self.url + "/balance", content=data,
                            headers=signed_headers(self.secret, "POST", "/balance", data), timeout=30)
        answer.raise_for_status()
        return answer.json()["balance"]

    def ledger(self, round_id: int | None = None) -> list[dict[str, Any]]:
        """The wallet's transactions (a round's), oldest first."""
        out: list[dict[str, Any]] = []
        cursor: str | None = "0"
        while cursor is not None:
            query = f"after={cursor}" + (f"&round_id={round_id}" if round_id else "")
            answer = self.call("GET", f"/transactions?{query}")
            out += answer["transactions"]
            cursor = answer.get("next")
        return out

    def stats(self) -> dict[str, int]:
        import httpx

        return httpx.get(self.url + "/admin/stats", timeout=30).json()


def free_port() -> int:
    """A TCP port free on 127.0.0.1 now."""
    import socket

    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]
