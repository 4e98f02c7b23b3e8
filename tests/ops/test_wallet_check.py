"""``reelforge wallet-check`` (issue 40): all green against the reference wallet, and against a deliberately wrong
wallet (the reference wallet with one of its :data:`~reelforge.ops.refwallet.DEFECTS`) exactly the checks that
defect breaks, each named on a line of its own, with a non-zero exit."""

from __future__ import annotations

import re
import uuid
from collections.abc import Iterator

import pytest
from typer.testing import CliRunner

from reelforge.cli import app
from reelforge.ops.refwallet import DEFECTS
from reelforge.ops.refwallet_process import WalletProcess

SECRET = "wallet-check-test-secret-0123456789"
CHECKS = {"balance", "bad_signature", "debit_credit", "duplicates", "zero_close", "rollback", "insufficient_funds",
          "wrong_party"}

BROKEN_BY = {
    "accepts_bad_signature": {"bad_signature"},
    "debits_duplicate_twice": {"duplicates"},
    "credits_duplicate_twice": {"duplicates"},
    "ignores_rollback": {"rollback"},
    "applies_debit_after_its_rollback": {"rollback"},
    "refuses_zero_credit": {"zero_close"},
    "allows_overdraft": {"insufficient_funds"},
    "answers_old_balance": {"debit_credit", "zero_close", "rollback"},
}
"""The checks each deliberate defect must fail (and no other)."""


@pytest.fixture(scope="module")
def wallet(tmp_path_factory) -> Iterator[WalletProcess]:
    process = WalletProcess(f"sqlite:///{tmp_path_factory.mktemp('wallet') / 'wallet.db'}", SECRET)
    process.start()
    yield process
    process.stop()


@pytest.fixture(scope="module")
def secret_file(tmp_path_factory) -> str:
    path = tmp_path_factory.mktemp("secret") / "secret"
    path.write_text(SECRET + "\n")
    return str(path)


def _check(wallet: WalletProcess, secret_file: str, *defects: str, options: tuple[str, ...] = ()) -> tuple[int, str]:
    """wallet-check against ``wallet`` with ``defects`` on, for a new test player; exit code and output."""
    wallet.set_defects(*defects)
    player = f"check-{uuid.uuid4().hex[:8]}"
    wallet.open_account(player, "EUR", 1_000)
    try:
        result = CliRunner().invoke(app, ["wallet-check", wallet.url, "--secret-file", secret_file,
                                          "--player", player, "--brand", "acme", *options])
    finally:
        wallet.set_defects()
    return result.exit_code, result.output


def test_the_reference_wallet_passes_every_check(wallet, secret_file):
    code, output = _check(wallet, secret_file, options=("--signed-answers",))  # it signs every answer
    assert code == 0, output
    assert set(re.findall(r"^ok +(\w+):", output, re.M)) == CHECKS, output
    assert "DEFECT" not in output and output.rstrip().endswith(f"{len(CHECKS)} checks, 0 defect(s)")
    ledger = wallet.ledger()
    assert {t["brand"] for t in ledger if t["player"].startswith("check-") and t["status"] != "tombstone"} == {"acme"}


def test_every_defect_of_a_wrong_wallet_is_named(wallet, secret_file):
    assert set(BROKEN_BY) == set(DEFECTS)
    for defect, broken in BROKEN_BY.items():
        code, output = _check(wallet, secret_file, defect)
        assert code == 1, (defect, output)
        named = set(re.findall(r"^DEFECT +(\w+):", output, re.M))
        assert named == broken, (defect, output)
        assert set(re.findall(r"^ok +(\w+):", output, re.M)) == CHECKS - broken, (defect, output)


def test_bad_input_is_one_line_and_exit_2(wallet, tmp_path):
    short = tmp_path / "short"
    short.write_text("too-short")
    runner = CliRunner()
    for args in (["ftp://wallet", "--secret-file", str(short)],
                 [wallet.url, "--secret-file", str(tmp_path / "missing")],
                 [wallet.url, "--secret-file", str(short)]):
        result = runner.invoke(app, ["wallet-check", *args])
        assert result.exit_code == 2, result.output
    closed = tmp_path / "secret"
    closed.write_text(SECRET)
    result = runner.invoke(app, ["wallet-check", "http://127.0.0.1:9", "--secret-file", str(closed)])
    assert result.exit_code == 2 and "gave no answer" in result.output, result.output
