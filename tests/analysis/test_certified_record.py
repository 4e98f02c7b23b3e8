"""Certified RTP records (issue 34): a simulated build's name is proven only by a verified certification package
whose whole 99% interval lies within +-0.05 pp of it; the record beside the game is what the help then shows."""

from fractions import Fraction

import pytest

from reelforge.analysis.certified_record import RecordError, certified_entry, write_records
from reelforge.game import rtp_proof as proofs
from reelforge.games.registry import all_games, get_game


def package(low: float, high: float, **changes) -> tuple[dict, dict]:
    """A verified package's manifest and figures as certify writes them (the fields a record reads)."""
    manifest = {"for_certification": True, "mode": "paid", "game": {"id": "gemstones-gold"},
                "build": {"name": "96.71", "version": "1.0"}, "rounds": {"main": 1_536_000_000},
                "estimator": "importance-sampled", "seed": 2026, "date": "2026-12-05T04:00:00+00:00",
                "engine": {"git_commit": "0123abc"}, "signer": {"fingerprint_sha256": "ab" * 32}}
    figures = {"precision_met": True, "precision_reached_pp": (high - low) * 50, "precision_requested_pp": 0.025,
               "summary": {"rtp": (low + high) / 2, "rtp_ci99": [low, high]}}
    for key, value in changes.items():
        (manifest if key in manifest else figures)[key] = value
    return manifest, figures


NAME = Fraction(9671, 10000)


def test_an_interval_inside_the_band_is_recorded_with_its_package():
    entry = certified_entry(*package(0.96690, 0.96735), NAME, "cd" * 32)
    assert set(entry) == set(proofs.RECORD_KEYS)
    assert (entry["rtp_low"], entry["rtp_high"], entry["paid_spins"]) == ("0.966900000000", "0.967350000000",
                                                                           "1536000000")
    assert entry["manifest_sha256"] == "cd" * 32 and entry["signer_fingerprint"] == "ab" * 32
    proof = proofs.certified_proof(entry)
    assert (proof.method, proof.low, proof.high) == ("certified", Fraction("0.9669"), Fraction("0.96735"))
    assert proof.low < proof.value < proof.high


@pytest.mark.parametrize(("low", "high"), [
    (0.966669, 0.967624),  # the recorded +-0.05 pp run of Gemstones Gold: 0.0024 pp past 96.76
    (0.966000, 0.966500),  # wholly below
    (0.96659, 0.96700),  # 0.001 pp below the band's floor
])
def test_an_interval_reaching_outside_the_band_is_refused_naming_it(low, high):
    with pytest.raises(RecordError, match=r"does not lie within \+-0.05 pp of the build's RTP 96.7100%"):
        certified_entry(*package(low, high), NAME, "cd" * 32)


@pytest.mark.parametrize(("changes", "reason"), [
    ({"for_certification": False}, "exploratory package"),
    ({"mode": "buy"}, "only a paid-mode package"),
    ({"precision_met": False}, "did not reach its precision"),
    ({"precision_reached_pp": None}, "exact RTP"),
])
def test_a_package_that_proves_nothing_is_refused(changes, reason):
    with pytest.raises(RecordError, match=reason):
        certified_entry(*package(0.96690, 0.96735, **changes), NAME, "cd" * 32)


def test_the_help_shows_the_recorded_interval_for_its_build_content_only(tmp_path, monkeypatch):
    g = get_game("gemstones-gold")
    b = g.load_build("96.71")
    path = tmp_path / proofs.CERTIFIED_RECORD
    entry = certified_entry(*package(0.96690, 0.96735), NAME, "cd" * 32)
    write_records(path, g.id, {b.identity.content_hash: entry, "0" * 64: {**entry, "rtp": "0.5"}})
    monkeypatch.setattr(proofs, "certified_record_path", lambda game: path)
    proofs.forget_records(path)
    shown = g.help(b)
    assert shown.rtp == Fraction("0.967125") == g.proven_rtp(b)
    assert shown.rtp_proof["method"] == "certified"
    assert shown.rtp_proof["interval"] == ["9669/10000", "19347/20000"] and shown.rtp_proof["rounds"] == 1_536_000_000
    assert shown.rtp_proof["package"]["manifest_sha256"] == "cd" * 32


def test_exact_games_say_so_and_simulated_ones_without_a_record_say_declared():
    fof = get_game("forge-of-fortunes")
    b = fof.load_build("96.2")
    assert fof.help(b).rtp_proof["method"] == "exact" and fof.help(b).rtp == fof.exact(b).rtp


def test_every_shipped_certified_record_proves_a_published_build():
    """Every record in a game folder is of a published build version's content and its interval proves the name."""
    for g in all_games():
        records = proofs.load_records(proofs.certified_record_path(g))
        for content_hash, entry in records.items():
            assert set(entry) == set(proofs.RECORD_KEYS), (g.id, content_hash)
            b = g.load_build(entry["build"], entry["version"])
            assert b.identity.content_hash == content_hash, f"{g.id} {entry['build']}: a record of other content"
            proof = proofs.certified_proof(entry)
            assert proofs.band_problem(Fraction(b.rtp), proof.low, proof.high) is None, (g.id, entry)
            assert proof.low <= proof.value <= proof.high
