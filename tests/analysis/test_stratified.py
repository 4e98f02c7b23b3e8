"""The stratified estimate reaches summary through the generic Game hook."""

import json
import subprocess
import sys


def test_gemstones_gold_stratified_summary_reports_parts_with_intervals():
    proc = subprocess.run([sys.executable, "-m", "reelforge", "summary", "gemstones-gold", "--stratified",
                           "--rounds", "200000", "--seed", "7", "--json"], capture_output=True, text=True,
                          timeout=600)
    assert proc.returncode == 0, proc.stderr
    s = json.loads(proc.stdout)
    assert s["method"] == "stratified" and s["rounds"] == 200_000
    lo, hi = s["rtp_ci99"]
    assert lo < s["rtp"] < hi
    parts = s["rtp_split"]
    assert abs(parts["paid_spins"] + parts["free_spins"] - s["rtp"]) < 1e-12
    for name, (plo, phi) in s["rtp_split_ci99"].items():
        assert plo < parts[name] < phi
    assert 0 < s["feature_rate"] < s["hit_rate"] < 1


def test_games_without_a_stratified_estimate_say_so():
    proc = subprocess.run([sys.executable, "-m", "reelforge", "summary", "forge-of-fortunes", "--stratified"],
                          capture_output=True, text=True, timeout=300)
    assert proc.returncode == 2
    assert "no stratified estimate" in proc.stderr


def test_forge_of_gems_stratified_summary():
    proc = subprocess.run([sys.executable, "-m", "reelforge", "summary", "forge-of-gems", "--build", "94.2",
                           "--stratified", "--rounds", "300000", "--seed", "3", "--json"],
                          capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stderr
    s = json.loads(proc.stdout)
    lo, hi = s["rtp_ci99"]
    assert s["method"] == "stratified" and lo < s["rtp"] < hi
    assert abs(sum(s["rtp_split"].values()) - s["rtp"]) < 1e-9
    assert s["feature_rate"] > 0
