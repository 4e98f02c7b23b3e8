"""PAR-sheet content of a build: paytable, strips or weights with symbol frequencies per reel, the hit
frequency and RTP contribution of each pay (base game and features apart), the feature's trigger
frequency, average win and win distribution, and the cap with its frequency.

Everything is read from the build data, so a retuned build flows through. Every game gets the generic
sheet built from its win events (:mod:`reelforge.analysis.par_events`); a game whose pays say more than
its win events (exact mathematics, multipliers, instant prizes) gives its own through
:meth:`reelforge.game.reporting.Reporting.par_sheet`, made with the toolkit of :mod:`reelforge.game.parsheet`.
"""

from __future__ import annotations

from typing import Any

from reelforge.game.contract import Game
from reelforge.game.parsheet import PAR_SAMPLE_ROUNDS, kernel_pay_rounds, section


def par_sheet(game: Game, build: Any, summary: dict[str, Any], rounds: int = PAR_SAMPLE_ROUNDS,
              seed: int = 2026) -> dict[str, Any]:
    """The PAR-sheet content of ``build`` (``{"sample", "sections"}``, see :mod:`reelforge.game.parsheet`);
    ``rounds`` rounds back the per-pay figures of simulated games (the per-pay kernel's where the game has one,
    else the reference engine's)."""
    if rounds < 1:
        raise ValueError("the PAR sample needs at least one round")
    sheet = game.report().par_sheet(build, summary, rounds, seed)
    if sheet is None:
        from reelforge.analysis.par_events import event_par_sheet

        sheet = event_par_sheet(game, build, summary, rounds, seed)
    if not any(s["title"].startswith("Build data") for s in sheet["sections"]):
        params = build_parameter_section(game, build)
        if params is not None:
            sheet["sections"].append(params)
    rules = game.report().rule_sources(build)
    if rules:
        note = ("Every rule the engine plays, with the document and section it is read from; where the rules are "
                "silent, the design document decides." if game.rules_document is not None else
                f"{game.title} has no published rules document: every rule the engine plays is read from the design "
                "document the supplier declares (the game's reference rules, help text and build file, and its "
                "declared targets), named with its section.")
        sheet["sections"].insert(1, section("The rules and where each comes from", ["rule", "document", "section"], rules,
                                            note))
    return sheet


def default_par_rounds(game: Game, figures: dict[str, Any]) -> int:
    """Rounds behind a package's per-pay figures: for a game with a per-pay kernel, sized from the round's SD (the
    larger of the certified summary's and its plain sample's) for a 99% half-width of
    :data:`~reelforge.game.parsheet.KERNEL_PAY_HALF_WIDTH_PP` on the tables' total; else :data:`PAR_SAMPLE_ROUNDS`
    reference-engine rounds."""
    if getattr(game, "pay_loop", None) is None:
        return PAR_SAMPLE_ROUNDS
    sd = max(s["sd"] for s in (figures["summary"], figures.get("sample_summary") or figures["summary"]))
    stake = float(game.stake_x(game.load_build(figures["build"]), figures["mode"]))
    return max(PAR_SAMPLE_ROUNDS, kernel_pay_rounds(sd, stake))


def build_parameter_section(game: Game, build: Any) -> dict[str, Any] | None:
    """Every parameter of the build file with its unit: the game's words for it
    (:attr:`~reelforge.game.contract.Reporting.parameter_units`), else the comment the build file puts beside it or
    above its table; a strip (a long text) by its length, given in stop order elsewhere in the sheet."""
    import re
    import tomllib
    from pathlib import Path

    import reelforge
    from reelforge.analysis.manifest import build_identity

    files = build_identity(game, build)["files"]
    if not files:
        return None
    text = (Path(reelforge.__file__).parent / files[0]["path"]).read_text()
    comments: dict[str, str] = {}
    table = ""
    for line in text.splitlines():  # the comment beside a table or a key says its unit
        if m := re.match(r"\[([^\]]+)\]\s*(?:#\s*(.*))?$", line.strip()):
            table = m.group(1).replace('"', "")
            if m.group(2):
                comments[table] = m.group(2)
        elif (m := re.match(r'"?([\w.-]+)"?\s*=.*#\s*(.*)$', line.strip())) and "[" not in m.group(1):
            comments[f"{table}.{m.group(1)}" if table else m.group(1)] = m.group(2)
    units = game.report().parameter_units
    data = {k: v for k, v in tomllib.loads(text).items() if k not in ("game", "name", "rtp", "tunable", "version", "rules")}
    rows = []
    for key, value in flat_parameters(data):
        parts = key.split(".")
        paths = [".".join(parts[:i]) for i in range(len(parts), 0, -1)]  # the key, then the tables above it
        # the game's words first (a build file's comment may name internal keys), then the file's comment
        unit = next((table[p] for table in (units, comments) for p in paths if table.get(p)), "-")
        rows.append([key.replace("_", " "), value, unit])
    return section("Build parameters (the build file's values, each with its unit)", ["key", "value", "unit and meaning"],
                   rows, "Every parameter of the build file as the engine reads it (its keys with spaces for "
                         "underscores); strips are given by their length here and symbol by symbol in stop order above.")


def flat_parameters(data: Any, prefix: str = "") -> list[tuple[str, str]]:
    """A build file's data as ``(key path, value)`` (lists inline; a strip, a long text, by its length)."""
    if isinstance(data, dict):
        return [row for k, v in data.items() for row in flat_parameters(v, f"{prefix}{k}.")]
    if isinstance(data, list) and data and all(isinstance(x, str) and len(x) > 20 for x in data):
        return [(prefix.rstrip("."), ", ".join(f"reel {i + 1}: strip of {len(x)} stops" for i, x in enumerate(data)))]
    return [(prefix.rstrip("."), ", ".join(map(str, data)) if isinstance(data, list) else str(data))]
