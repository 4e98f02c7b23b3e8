"""Launcher for server processes the soak can SIGKILL and restart quickly.

Run as ``python -m reelforge.ops.launcher --fd FD --db URL [--config PATH]``
by :class:`reelforge.ops.supervisor.ServerSupervisor`, which owns the
listening socket ``FD`` (127.0.0.1 only) and talks to the launcher over its
stdin/stdout: ``spawn`` forks a fresh server process and answers its pid;
``quit`` (or end of input) stops the launcher.

Why a launcher: importing the server (FastAPI, SQLAlchemy, Alembic, numba via
the games) takes seconds, which would make 20 kills in a CI test take
minutes. The launcher imports once and never touches the database; every
server process is forked from it and then builds its app from scratch
(``create_app``: engine, migration check, services) exactly as
``reelforge serve`` does, so a restarted server knows only what the
database holds. Server processes die with the launcher (``PR_SET_PDEATHSIG``).
"""

from __future__ import annotations

import argparse
import ctypes
import os
import signal
import socket
import sys

PR_SET_PDEATHSIG = 1


def _die_with_parent() -> None:
    try:
        ctypes.CDLL(None, use_errno=True).prctl(PR_SET_PDEATHSIG, signal.SIGKILL)
    except (OSError, AttributeError):  # not Linux: the supervisor still kills every pid it spawned
        pass


def _serve(fd: int, db: str, config_path: str | None) -> None:
    """One server process: build the app from the configuration and database, serve on the shared socket."""
    import uvicorn

    from reelforge.server.app import create_app
    from reelforge.server.config import load_config
    from reelforge.server.http import uvicorn_settings

    sock = socket.socket(fileno=os.dup(fd))
    config = load_config(config_path)
    app = create_app(config, db)
    server = uvicorn.Server(uvicorn.Config(app, lifespan="on", **uvicorn_settings(config)))
    server.run(sockets=[sock])


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--fd", type=int, required=True, help="inherited listening socket")
    parser.add_argument("--db", required=True, help="database URL")
    parser.add_argument("--config", default=None, help="server configuration (default: the demo configuration)")
    args = parser.parse_args(argv)

    # Import everything a server process needs once, here (see the module docstring).
    import alembic.command  # noqa: F401
    import alembic.config  # noqa: F401
    import alembic.runtime.migration  # noqa: F401
    import uvicorn  # noqa: F401

    from reelforge.server.app import create_app  # noqa: F401
    from reelforge.server.config import load_config

    load_config(args.config)  # loads the games and builds (and fails early on a bad configuration)
    signal.signal(signal.SIGCHLD, signal.SIG_IGN)  # killed server processes are reaped automatically
    _die_with_parent()
    print("ready", flush=True)
    for line in sys.stdin:
        command = line.strip()
        if command == "spawn":
            pid = os.fork()
            if pid == 0:
                code = 0
                try:
                    signal.signal(signal.SIGCHLD, signal.SIG_DFL)
                    _die_with_parent()
                    devnull = os.open(os.devnull, os.O_RDONLY)
                    os.dup2(devnull, 0)
                    os.dup2(2, 1)  # the pid protocol on stdout belongs to the launcher
                    _serve(args.fd, args.db, args.config)
                except BaseException:  # noqa: BLE001 - report and leave without running the launcher's loop
                    import traceback

                    traceback.print_exc()
                    code = 1
                finally:
                    sys.stderr.flush()
                    os._exit(code)
            print(pid, flush=True)
        elif command in ("quit", ""):
            break


if __name__ == "__main__":
    main()
