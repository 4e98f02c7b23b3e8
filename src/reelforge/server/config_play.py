"""The ``[responsible_play]`` and ``[profiles.<name>]`` sections of the operator configuration
(:mod:`reelforge.server.config`): the responsible-play rules and the jurisdiction profiles."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from reelforge.server.config_values import MAX_BET, ConfigError, integer, number, section_keys


@dataclass(frozen=True)
class PlayRules:
    """Responsible-play and jurisdiction rules the operator sets (``[responsible_play]``): a named
    profile (:data:`PROFILES`) with per-key overrides."""

    profile: str = "default"
    """The jurisdiction profile these rules start from."""
    reality_check_minutes: float = 0.0
    """Minutes between reality checks; 0: off. The server refuses a round start once a check is due until
    the player acknowledges it (``POST /api/v1/reality-check``)."""
    session_limit_minutes: float = 0.0
    """The server refuses a round start this long after the session opened; 0: off."""
    turbo: bool = True
    """Whether the client offers Turbo (shortened animations)."""
    min_round_seconds: float = 0.0
    """The server refuses a new round sooner than this after the player's previous round started."""
    autoplay: bool = False
    """Whether the client offers autoplay."""
    autoplay_max_rounds: int = 100
    """The most rounds one autoplay may run (the client keeps to it)."""
    max_bet: int | None = None
    """The highest total bet (minor units); every bet ladder is capped to it."""
    max_stake: int | None = None
    """The most that leaves the balance for one round (minor units): the stake, or a feature buy's price.
    None: ``max_bet``."""
    loss_limit: int | None = None
    """The most a player may lose (staked minus won, minor units) in one play session; None: no limit."""
    feature_buy: bool = True
    """Whether the feature buy is offered (a jurisdiction that forbids it: false; a buy is then refused with 403
    ``feature_buy_not_allowed`` and the client shows no buy button)."""
    session_break_minutes: float = 30.0
    """How long a player must be away (no session opened, or the play session ended that long ago) before a
    new play session starts with fresh clocks: a reload or a new launch sooner continues the current one."""
    overrides: tuple[str, ...] = ()
    """The keys the configuration sets over its ``profile``'s rules (startup logs them; ``/settings`` shows them)."""

    @property
    def stake_limit(self) -> int | None:
        """What may leave the balance for one round (``max_stake``, else ``max_bet``; None: no limit)."""
        return self.max_stake if self.max_stake is not None else self.max_bet

    def public(self) -> dict[str, Any]:
        """What the client shows and keeps to (``GET /api/v1/settings``)."""
        body: dict[str, Any] = {
            "profile": self.profile, "reality_check_minutes": self.reality_check_minutes,
            "session_limit_minutes": self.session_limit_minutes, "turbo": self.turbo,
            "min_round_seconds": self.min_round_seconds, "autoplay": self.autoplay,
            "autoplay_max_rounds": self.autoplay_max_rounds, "max_bet": self.max_bet, "max_stake": self.stake_limit,
            "feature_buy": self.feature_buy}
        if self.loss_limit is not None:
            body["loss_limit"] = self.loss_limit
        if self.overrides:
            body["profile_overrides"] = list(self.overrides)
        return body

    def stricter(self, other: PlayRules, profile: str | None = None) -> PlayRules:
        """The rules holding both ``self`` and ``other``: for every key the stricter value (a limit that is
        off counts as the loosest); named ``profile`` (default: ``other``'s)."""
        return PlayRules(
            profile=profile or other.profile,
            reality_check_minutes=_tightest(self.reality_check_minutes or None, other.reality_check_minutes or None)
            or 0.0,
            session_limit_minutes=_tightest(self.session_limit_minutes or None, other.session_limit_minutes or None)
            or 0.0,
            turbo=self.turbo and other.turbo, autoplay=self.autoplay and other.autoplay,
            feature_buy=self.feature_buy and other.feature_buy,
            min_round_seconds=max(self.min_round_seconds, other.min_round_seconds),
            autoplay_max_rounds=min(self.autoplay_max_rounds, other.autoplay_max_rounds),
            max_bet=_tightest(self.max_bet, other.max_bet),
            # both unset: the stake limit follows the (tighter) max_bet
            max_stake=None if self.max_stake is None and other.max_stake is None else
            _tightest(self.stake_limit, other.stake_limit),
            loss_limit=_tightest(self.loss_limit, other.loss_limit),
            session_break_minutes=max(self.session_break_minutes, other.session_break_minutes),
            overrides=other.overrides)

    def tightened(self, limits: dict[str, Any], strict: bool = True) -> PlayRules:
        """These rules with an operator's launch ``limits`` (:data:`LAUNCH_LIMITS`, None: not set) over them.
        A limit that would loosen them raises :class:`ValueError` naming it (``strict``) or is ignored."""
        values = {}
        for key in LAUNCH_LIMITS:
            wanted = limits.get(key)
            if wanted is None:
                continue
            have = self.stake_limit if key == "max_stake" else getattr(self, key)
            if have and wanted > have:  # 0 or None: off, so anything tightens it
                if not strict:
                    continue
                raise ValueError(f"{key} {wanted:g} is looser than the {have:g} this brand's rules set; "
                                 "a launch can only tighten the limits")
            values[key] = wanted
        if not values:
            return self
        merged = {**self.__dict__, **values}
        if "max_stake" not in values and self.max_stake is None:
            merged["max_stake"] = None  # still follows max_bet
        return PlayRules(**merged)


LAUNCH_LIMITS = ("max_bet", "max_stake", "session_limit_minutes", "reality_check_minutes", "loss_limit")
"""The limits an operator may pass per launch (each only ever tightening the brand's)."""


def _tightest(a: Any, b: Any) -> Any:
    """The smaller of two limits where None means no limit."""
    if a is None:
        return b
    return a if b is None else min(a, b)


PROFILES: dict[str, dict[str, Any]] = {
    "default": {},
    # UK-style (UKGC remote games design rules): no Turbo, no autoplay, at least 2.5 s a round, a reality
    # check every hour.
    "uk": {"turbo": False, "autoplay": False, "autoplay_max_rounds": 0, "min_round_seconds": 2.5,
           "reality_check_minutes": 60},
}
"""Named jurisdiction profiles of ``[responsible_play]``: each the keys it sets over :class:`PlayRules`'s
defaults (the ``default`` profile is the permissive one). A configuration's keys override its profile's."""


_PLAY_KEYS = {"profile", "reality_check_minutes", "session_limit_minutes", "turbo", "min_round_seconds",
              "autoplay", "autoplay_max_rounds", "max_bet", "max_stake", "loss_limit", "session_break_minutes",
              "feature_buy"}


PROFILE_TEMPLATE: dict[str, Any] = {
    # Every key a profile may set, at the permissive default's values: copy it under [profiles.<name>]
    # and change what the market's rules require (docs/JURISDICTIONS.md names a source per rule).
    "reality_check_minutes": 0, "session_limit_minutes": 0, "turbo": True, "min_round_seconds": 0,
    "autoplay": False, "autoplay_max_rounds": 100, "feature_buy": True,
}


def parse_profiles(raw: Any, where: str) -> dict[str, PlayRules]:
    """Every profile a session may name: the shipped ones (:data:`PROFILES`, and ``template``) and
    ``[profiles.<name>]`` (keys as ``[responsible_play]``; ``profile`` names the one it starts from)."""
    if not isinstance(raw, dict):
        raise ConfigError(f"{where} [profiles]: must be a table of [profiles.<name>] tables")
    out = {name: parse_play_rules({"profile": name}, where) for name in PROFILES}
    out["template"] = parse_play_rules(dict(PROFILE_TEMPLATE), where)
    for name, section in raw.items():
        if not isinstance(name, str) or not name.replace("-", "").replace("_", "").isalnum() or len(name) > 32:
            raise ConfigError(f"{where} [profiles]: a profile name is 1-32 letters, digits, - and _, got {name!r}")
        if not isinstance(section, dict):
            raise ConfigError(f"{where} [profiles.{name}]: must be a table")
        rules = parse_play_rules(section, f"{where} [profiles.{name}]")
        out[name] = PlayRules(**{**rules.__dict__, "profile": name})
    return out


def parse_play_rules(raw: Any, where: str) -> PlayRules:
    """Validate the ``[responsible_play]`` section (absent: the default profile): its ``profile``'s
    rules with the section's other keys over them (:attr:`PlayRules.overrides` names those that differ)."""
    where = f"{where} [responsible_play]"
    section_keys(raw, _PLAY_KEYS, where)
    profile = raw.get("profile", "default")
    if profile not in PROFILES:
        raise ConfigError(f"{where}: unknown profile {profile!r}; profiles: {', '.join(PROFILES)}")
    merged = {**PROFILES[profile], **{k: v for k, v in raw.items() if k != "profile"}}
    values: dict[str, Any] = {"profile": profile}
    for key in ("turbo", "autoplay", "feature_buy"):
        value = merged.get(key, getattr(PlayRules, key))
        if not isinstance(value, bool):
            raise ConfigError(f"{where}: {key} must be true or false, got {value!r}")
        values[key] = value
    for key, top in (("max_bet", MAX_BET), ("max_stake", 2**62), ("loss_limit", 2**62)):
        value = merged.get(key)
        if value is not None and (isinstance(value, bool) or not isinstance(value, int) or not 1 <= value <= top):
            raise ConfigError(f"{where}: {key} must be an integer in [1, {top}] minor units, got {value!r}")
        values[key] = value
    values["autoplay_max_rounds"] = integer(merged, "autoplay_max_rounds", PlayRules.autoplay_max_rounds, 0,
                                             100_000, where)
    limits = {"reality_check_minutes": 24 * 60, "session_limit_minutes": 7 * 24 * 60, "min_round_seconds": 3600,
              "session_break_minutes": 7 * 24 * 60}
    for key, top in limits.items():
        value = float(number(merged, key, getattr(PlayRules, key), where, positive=False))
        if not value <= top:  # also refuses nan and inf
            raise ConfigError(f"{where}: '{key}' must be at most {top}, got {value}")
        values[key] = value
    # the keys set below the profile that change one of its rules (the same value set again changes nothing)
    shipped = PlayRules(**{"profile": profile, **PROFILES[profile]})
    values["overrides"] = tuple(sorted(k for k in raw if k != "profile" and values[k] != getattr(shipped, k)))
    return PlayRules(**values)
