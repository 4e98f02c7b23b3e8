"""A real multi-node Ray cluster on this machine for the tests and bench/ray_cluster_certify.py: a head
and worker nodes, each started with ``ray start --block`` in a session of its own (its raylet, object
store and workers are in that process group), on ports of their own; a node is killed by its process
group, and everything this module started is killed on exit, even when the caller fails. Nothing else
is touched (never ``ray stop``, which stops every Ray on the machine)."""

from __future__ import annotations

import contextlib
import os
import signal
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

RAY = str(Path(sys.executable).with_name("ray"))
OBJECT_STORE_BYTES = 100_000_000
# a killed node is declared dead after about 5 s (Ray's default is about 15 s); not faster: a live node starved of
# CPU by the rest of the suite on 2 cores (CI) misses a 300 ms health check and was declared dead with its tasks
FAST_FAILURE = {"RAY_health_check_period_ms": "1000", "RAY_health_check_failure_threshold": "5",
                "RAY_health_check_initial_delay_ms": "0", "RAY_health_check_timeout_ms": "1000"}
# a cluster of this machine's loopback only: no token (a driver here has none), no usage report
LOCAL_ONLY = {"RAY_AUTH_MODE": "disabled", "RAY_USAGE_STATS_ENABLED": "0"}


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Cluster:
    """The nodes started so far (``address`` is the head's ``HOST:PORT``)."""

    def __init__(self, root: Path, cpus: int = 1) -> None:
        self.root, self.cpus = root, cpus
        self.nodes: list[subprocess.Popen] = []
        self.address = f"127.0.0.1:{free_port()}"

    def _start(self, args: list[str]) -> subprocess.Popen:
        ports = ["--node-manager-port", "--object-manager-port", "--metrics-export-port",
                 "--dashboard-agent-listen-port", "--dashboard-agent-grpc-port", "--runtime-env-agent-port"]
        cmd = [RAY, "start", "--block", "--num-cpus", str(self.cpus), "--object-store-memory", str(OBJECT_STORE_BYTES),
               "--disable-usage-stats", "--node-ip-address", "127.0.0.1", *args]
        for flag in ports:
            cmd += [flag, str(free_port())]
        log = (self.root / f"node-{len(self.nodes)}.log").open("w")
        env = {**os.environ, **FAST_FAILURE, **LOCAL_ONLY}
        node = subprocess.Popen(cmd, stdout=log, stderr=subprocess.STDOUT, start_new_session=True, env=env)
        self.nodes.append(node)
        return node

    def start_head(self) -> None:
        port = self.address.rsplit(":", 1)[1]
        # the head's minimal dashboard listens even when not included: a port of its own too
        self._start(["--head", "--port", port, "--include-dashboard", "false", "--dashboard-port", str(free_port()),
                     "--temp-dir", str(self.root / "ray")])

    def add_worker(self) -> subprocess.Popen:
        return self._start(["--address", self.address])

    def wait_for_nodes(self, count: int, timeout: float = 120) -> None:
        """Until ``count`` nodes are alive (asked of the cluster by a short-lived driver process)."""
        probe = ("import ray, sys; ray.init(address=sys.argv[1], log_to_driver=False, configure_logging=False); "
                 "print(sum(n['Alive'] for n in ray.nodes()))")
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            for node in self.nodes:
                if node.poll() is not None:
                    raise RuntimeError(f"a Ray node exited ({node.returncode}): see {self.root}")
            try:  # a driver started before the head listens waits for it: ask again, briefly
                done = subprocess.run([sys.executable, "-c", probe, self.address], capture_output=True, text=True,
                                      timeout=20, env={**os.environ, **LOCAL_ONLY})
            except subprocess.TimeoutExpired:
                continue
            if done.returncode == 0 and done.stdout.strip().splitlines()[-1:] == [str(count)]:
                return
            time.sleep(0.5)
        raise RuntimeError(f"the Ray cluster did not reach {count} nodes in {timeout:.0f} s: see {self.root}")

    @staticmethod
    def kill(node: subprocess.Popen) -> None:
        """Kill a node as a machine failure would: its whole process group at once, no goodbye."""
        with contextlib.suppress(ProcessLookupError):
            os.killpg(node.pid, signal.SIGKILL)
        node.wait()

    def close(self) -> None:
        """Kill every node, then the Ray workers they started: those run in sessions of their own, so they
        are found by this cluster's own temporary folder on their command line (and killed by id)."""
        for node in reversed(self.nodes):
            self.kill(node)
        for proc in Path("/proc").iterdir():
            if not proc.name.isdigit() or int(proc.name) == os.getpid():
                continue
            try:
                cmdline = (proc / "cmdline").read_bytes()
            except OSError:
                continue
            if str(self.root).encode() in cmdline:
                with contextlib.suppress(ProcessLookupError):
                    os.kill(int(proc.name), signal.SIGKILL)


PORT_TAKEN = ("already in use", "address in use", "is used by other", "failed to bind")
"""What a node's log says when a port :func:`free_port` found free was taken before the node bound it (other
servers of the suite's workers start meanwhile): the start is tried again on fresh ports."""


def _logs_tail(root: Path, lines: int = 15) -> str:
    return "\n".join(f"{log.name}: " + "\n".join(log.read_text(errors="replace").splitlines()[-lines:])
                     for log in sorted(root.glob("node-*.log")))


@contextlib.contextmanager
def ray_cluster(workers: int = 1, cpus: int = 1, attempts: int = 3) -> Iterator[Cluster]:
    """A head and ``workers`` worker nodes, ``cpus`` CPUs each, all killed on exit. A start whose node exits
    because a port was taken meanwhile is tried again (``attempts`` in all); any other failure says the nodes'
    logs (their folder is removed on exit)."""
    for attempt in range(1, attempts + 1):
        with tempfile.TemporaryDirectory(prefix="rf-ray-", dir="/tmp") as root:
            cluster = Cluster(Path(root), cpus)
            try:
                try:
                    cluster.start_head()
                    for _ in range(workers):
                        cluster.add_worker()
                    cluster.wait_for_nodes(1 + workers)
                except RuntimeError as exc:
                    logs = _logs_tail(Path(root))
                    if attempt < attempts and any(w in logs.lower() for w in PORT_TAKEN):
                        continue
                    raise RuntimeError(f"{exc}\n{logs}") from exc
                yield cluster
                return
            finally:
                cluster.close()
