"""A fake operator backend for the session-ended callback tests: a real HTTP server on loopback."""

from __future__ import annotations

import json
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

from reelforge.server.signing import check_signature
from tests.server.seamless_support import SECRET


class FakeOperator:
    """The operator's backend: a real HTTP server on loopback that checks each callback's signature, answers
    ``failures`` callbacks with 500 first, and keeps what it received."""

    def __init__(self, failures: int = 0) -> None:
        self.failures = failures
        self.received: list[dict] = []
        fake = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:  # noqa: N802 - http.server's name
                data = self.rfile.read(int(self.headers["content-length"]))
                try:
                    check_signature(SECRET, self.headers["x-timestamp"], self.headers["x-signature"], "POST",
                                    self.path, data, 300, nonce=self.headers.get("x-nonce"))
                    signed = True
                except Exception:  # noqa: BLE001 - any refusal: not the game server's
                    signed = False
                fake.received.append({"body": json.loads(data), "signed": signed,
                                      "nonce": self.headers.get("x-nonce"), "path": self.path})
                status = 500 if fake.failures > 0 else 200
                fake.failures -= 1
                self.send_response(status)
                self.send_header("content-length", "2")
                self.end_headers()
                self.wfile.write(b"{}")

            def log_message(self, *_args) -> None:
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self.thread.start()

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.server.server_address[1]}/reelforge/callbacks?v=2"

    def stop(self) -> None:
        self.server.shutdown()
        self.server.server_close()
