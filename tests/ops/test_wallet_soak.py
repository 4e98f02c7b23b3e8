"""A short run of the seamless wallet soak (the long one is ``reelforge wallet-soak``, docs/RELIABILITY.md). Each
run asks for the kills it checks (``min_kills``): on a loaded machine a restart takes seconds, and a run bounded by
time alone could end before them."""

from __future__ import annotations

import pytest

from reelforge.ops.wallet_soak import run_wallet_soak


@pytest.mark.slow
def test_killing_the_game_server_and_the_wallet_under_faults_loses_and_duplicates_nothing(db_url):
    result = run_wallet_soak(db=db_url, players=3, seconds=10, kill_every=2.5, seed=3, min_kills=2)
    assert result["problems"] == [] and result["unexpected"] == []
    assert result["lost_or_duplicated_money"] == 0 and result["outbox_left"] == 0
    assert result["reconcile_differences"] == 0 and result["verify_failures"] == 0
    assert result["server_kills"] >= 1 and result["wallet_kills"] >= 1 and result["rounds"] > 0
    assert sum(result["faults_injected"].values()) > 0
    assert result["reconciled"]


@pytest.mark.slow
def test_two_brands_on_one_database_with_their_own_servers_and_wallets_reconcile_per_brand(db_url):
    result = run_wallet_soak(db=db_url, players=4, seconds=12, kill_every=2.0, seed=4, brands=2,
                             min_kills=2)
    assert result["problems"] == [] and result["unexpected"] == []
    assert result["lost_or_duplicated_money"] == 0 and result["outbox_left"] == 0
    assert set(result["per_brand"]) == {"brand-a", "brand-b"}
    for brand in result["per_brand"].values():  # each brand's calls against its own wallet, nothing else there
        assert brand["reconcile_differences"] == 0 and brand["wallet_calls"] == brand["operator_transactions"] > 0
    assert result["server_kills"] >= 2 and result["rounds"] > 0  # both brands' servers killed during play
    assert result["reconciled"]


@pytest.mark.slow
def test_free_round_campaigns_under_kills_and_faults_credit_every_total_exactly_once(db_url):
    # Two of three players play free rounds of campaigns they make (3 rounds each, paid at the end or per win);
    # each kill waits for a free round to be played, so the kills fall among them.
    result = run_wallet_soak(db=db_url, players=3, seconds=5, kill_every=1.0, seed=5, campaign_players=2,
                             min_kills=1)
    assert result["problems"] == [] and result["unexpected"] == []
    assert result["lost_or_duplicated_money"] == 0 and result["outbox_left"] == 0
    assert result["reconcile_differences"] == 0 and result["verify_failures"] == 0
    assert result["free_rounds"] > 0 and result["campaigns"] >= 2
    assert result["server_kills"] >= 1  # the first kill is the game server's, after a free round was played
    assert result["reconciled"]
