"""The daily revenue report (docs/OPERATORS.md, "Daily revenue report"): per brand, game, currency and kind of
round, the rounds, stakes, wins, refunds and GGR of the rounds staked on one UTC day, optionally converted
into a reporting currency at rates the operator gives; as JSON or CSV.

The figures are those of ``/metrics`` (:func:`reelforge.server.tally.contribution` counts both): a round's stake
counts when it is staked, its win when it finished, its refund when it was voided; GGR = stakes - wins - refunds.
The sum of every day's report is the ``/metrics`` totals; a day's figures still change while rounds staked on it
are open (``rounds_open`` says how many).

Conversion is exact: each rate is a decimal (``1 GBP = 1.1650 EUR``), an amount is converted as a fraction and
rounded once, to the reporting currency's minor unit, half to even; converted GGR is converted stakes minus
converted wins minus converted refunds, so every row adds up exactly, and the totals are the rows' sums.
"""

from __future__ import annotations

import csv
import io
import re
from dataclasses import dataclass, field
from datetime import UTC, date, datetime, timedelta
from decimal import Decimal, InvalidOperation
from fractions import Fraction
from typing import Any

from sqlalchemy import Engine, case, func, literal, select

from reelforge.server.db import read_transaction
from reelforge.server.schema import players, rounds
from reelforge.server.tally import contribution

ROUND_KIND = case((rounds.c.campaign_id.is_not(None), literal("campaign")), else_=literal("paid"))
"""The kind of a round in the report: ``paid`` (staked from the player's balance) or ``campaign`` (a free round
of an operator's campaign: no stake, its wins the campaign's cost; never mixed into the paid rows)."""
ROUNDING = ("each amount converted exactly at its decimal rate and rounded once to the reporting currency's minor "
            "unit, half to even; converted GGR = converted stakes - converted wins - converted refunds; totals are "
            "the sums of the rows")
_CODE = re.compile(r"^[A-Z]{3}$")
_DAY = re.compile(r"^\d{4}-\d{2}-\d{2}$")


class ReportError(ValueError):
    """Bad report input (a date, a rate, a currency), in words for the operator."""


@dataclass
class RevenueRow:
    """One brand, game, currency and kind of round: amounts in minor units of ``currency``."""

    brand: str
    game: str
    currency: str
    kind: str
    rounds: int = 0
    rounds_open: int = 0
    stakes: int = 0
    wins: int = 0
    refunds: int = 0
    converted: dict[str, int] = field(default_factory=dict)
    """``stakes``, ``wins``, ``refunds`` and ``ggr`` in minor units of the reporting currency (empty: none)."""

    @property
    def ggr(self) -> int:
        return self.stakes - self.wins - self.refunds


def parse_day(text: str) -> date:
    """A report's day (``YYYY-MM-DD``)."""
    try:
        if _DAY.fullmatch(text):
            return date.fromisoformat(text)
    except ValueError:
        pass
    raise ReportError(f"date: {text!r} is not a day as YYYY-MM-DD (e.g. 2026-12-04)")


def parse_rates(raw: Any, to: str, currencies: dict[str, int]) -> dict[str, Fraction]:
    """Rates ``{CODE: decimal}`` (strings like ``"1.1650"``, integers, or exact decimals; ``1 CODE = rate`` of
    ``to``) as exact fractions, the reporting currency's own rate 1 included."""
    if not _CODE.fullmatch(to) or to not in currencies:
        raise ReportError(f"to: {to!r} is not a currency this server knows (a 3-letter ISO 4217 code)")
    if not isinstance(raw, dict):
        raise ReportError('rates: an object of currency codes and decimal rates, e.g. {"GBP": "1.1650"}')
    out = {to: Fraction(1)}
    for code, value in raw.items():
        if not isinstance(code, str) or not _CODE.fullmatch(code) or code not in currencies:
            raise ReportError(f"rates: {code!r} is not a currency this server knows")
        if isinstance(value, bool) or not isinstance(value, (str, int, Decimal)):
            raise ReportError(f"rates: {code}: a rate is a decimal written as a string, e.g. \"1.1650\" "
                              f"(got {value!r}); binary floating point is not taken")
        try:
            rate = Decimal(value.strip()) if isinstance(value, str) else Decimal(value)
        except InvalidOperation:
            raise ReportError(f"rates: {code}: {value!r} is not a decimal number") from None
        if not rate.is_finite() or rate <= 0:
            raise ReportError(f"rates: {code}: a rate must be a positive decimal, got {value!r}")
        if code == to and rate != 1:
            raise ReportError(f"rates: {code} is the reporting currency: its rate is 1, got {value!r}")
        out[code] = Fraction(rate)
    return out


def convert(minor: int, decimals: int, rate: Fraction, to_decimals: int) -> int:
    """``minor`` units of a currency with ``decimals`` in minor units of the reporting currency at ``rate``,
    rounded half to even (exact before the one rounding)."""
    return round(Fraction(minor, 10 ** decimals) * rate * 10 ** to_decimals)


def revenue_rows(engine: Engine, day: date, brand: str | None = None) -> list[RevenueRow]:
    """The day's rows (rounds staked from its 00:00 UTC to the next day's), ordered by brand, game, currency
    and kind; ``brand``: only that brand's."""
    start = datetime.combine(day, datetime.min.time(), UTC)
    kind = ROUND_KIND.label("kind")
    groups = (rounds.c.brand, rounds.c.game, players.c.currency, kind, rounds.c.status)
    query = (select(*groups, func.count(), func.coalesce(func.sum(rounds.c.cost), 0),
                    func.coalesce(func.sum(rounds.c.win), 0))
             .select_from(rounds.join(players, players.c.id == rounds.c.player_id))
             .where(rounds.c.created_at >= start, rounds.c.created_at < start + timedelta(days=1))
             .group_by(*groups))
    if brand is not None:
        query = query.where(rounds.c.brand == brand)
    rows: dict[tuple[str, str, str, str], RevenueRow] = {}
    with read_transaction(engine) as conn:
        for b, game, currency, k, status, n, cost, win in conn.execute(query):
            t = contribution(status, False, False, int(n), int(cost), int(win), 0.0)  # what /metrics counts
            row = rows.setdefault((b, game, currency, k), RevenueRow(b, game, currency, k))
            row.rounds += t.started
            row.rounds_open += t.open
            row.stakes += t.stakes
            row.wins += t.wins
            row.refunds += t.refunds
    return [rows[k] for k in sorted(rows)]


@dataclass
class RevenueReport:
    """A day's report, converted into ``to`` at ``rates`` when given."""

    day: date
    rows: list[RevenueRow]
    decimals: dict[str, int]
    to: str | None = None
    rates: dict[str, Fraction] = field(default_factory=dict)
    rate_text: dict[str, str] = field(default_factory=dict)

    def convert_rows(self) -> None:
        """Fill every row's ``converted`` (a currency without a rate: :class:`ReportError`)."""
        if self.to is None:
            return
        missing = sorted({r.currency for r in self.rows} - set(self.rates))
        if missing:
            raise ReportError(f"rates: no rate for {', '.join(missing)} (the day's rounds are in it); give "
                              f"1 {missing[0]} in {self.to}")
        to_decimals = self.decimals[self.to]
        for row in self.rows:
            rate = self.rates[row.currency]
            c = {name: convert(getattr(row, name), self.decimals[row.currency], rate, to_decimals)
                 for name in ("stakes", "wins", "refunds")}
            row.converted = {**c, "ggr": c["stakes"] - c["wins"] - c["refunds"]}

    def totals(self) -> dict[str, Any]:
        """Per currency (never added across currencies) and, converted, in the reporting currency."""
        per: dict[str, dict[str, int]] = {}
        for row in self.rows:
            t = per.setdefault(row.currency, dict.fromkeys(("rounds", "rounds_open", "stakes", "wins", "refunds",
                                                            "ggr"), 0))
            for name in t:
                t[name] += getattr(row, name)
        out: dict[str, Any] = {"per_currency": [{"currency": code, "decimals": self.decimals[code], **t}
                                                for code, t in sorted(per.items())]}
        if self.to is not None:
            out["converted"] = {"currency": self.to, "decimals": self.decimals[self.to],
                                **{name: sum(r.converted[name] for r in self.rows)
                                   for name in ("stakes", "wins", "refunds", "ggr")}}
        return out

    def to_json(self) -> dict[str, Any]:
        return {
            "date": self.day.isoformat(), "time_zone": "UTC",
            "basis": "rounds staked on the date (UTC); a stake counts when staked, a win when its round finished, "
                     "a refund when it was voided; GGR = stakes - wins - refunds (the figures of /metrics)",
            "amounts": "minor units of the row's currency",
            "reporting_currency": self.to, "rates": self.rate_text if self.to else None,
            "rounding": ROUNDING if self.to else None,
            "rows": [{"brand": r.brand, "game": r.game, "currency": r.currency, "decimals": self.decimals[r.currency],
                      "kind": r.kind, "rounds": r.rounds, "rounds_open": r.rounds_open, "stakes": r.stakes,
                      "wins": r.wins, "refunds": r.refunds, "ggr": r.ggr,
                      "converted": {"currency": self.to, **r.converted} if self.to else None} for r in self.rows],
            "totals": self.totals(),
        }

    def to_csv(self) -> str:
        """One line per row; amounts as exact decimals of their currency (``12.30``), the converted ones of the
        reporting currency."""
        out = io.StringIO()
        writer = csv.writer(out, lineterminator="\n")
        head = ["date", "brand", "game", "currency", "kind", "rounds", "rounds_open", "stakes", "wins", "refunds",
                "ggr"]
        if self.to:
            head += ["reporting_currency", "rate", "stakes_converted", "wins_converted", "refunds_converted",
                     "ggr_converted"]
        writer.writerow(head)
        for r in self.rows:
            dec = self.decimals[r.currency]
            line = [self.day.isoformat(), r.brand, r.game, r.currency, r.kind, r.rounds, r.rounds_open,
                    *(decimal_text(getattr(r, n), dec) for n in ("stakes", "wins", "refunds", "ggr"))]
            if self.to:
                line += [self.to, self.rate_text.get(r.currency, "1"),
                         *(decimal_text(r.converted[n], self.decimals[self.to])
                           for n in ("stakes", "wins", "refunds", "ggr"))]
            writer.writerow(line)
        return out.getvalue()


def decimal_text(minor: int, decimals: int) -> str:
    """Minor units as an exact decimal of the currency (``1230``, 2 decimals: ``12.30``; JPY: ``1230``)."""
    sign, minor = ("-" if minor < 0 else ""), abs(minor)
    if not decimals:
        return f"{sign}{minor}"
    whole, part = divmod(minor, 10 ** decimals)
    return f"{sign}{whole}.{part:0{decimals}d}"


def revenue_report(engine: Engine, currencies: dict[str, int], day: date, brand: str | None = None,
                   to: str | None = None, rates: Any = None) -> RevenueReport:
    """The report of ``day`` (``brand``: only that brand's), converted into ``to`` at ``rates`` when ``to`` is
    given (:class:`ReportError` on a bad rate or one missing)."""
    parsed = parse_rates(rates or {}, to, currencies) if to is not None else {}
    if to is None and rates:
        raise ReportError("rates given without a reporting currency (to)")
    report = RevenueReport(day, revenue_rows(engine, day, brand), currencies, to, parsed,
                           {code: str(value if isinstance(value, str) else Decimal(value)).strip()
                            for code, value in (rates or {}).items()})
    report.convert_rows()
    return report


def parse_rates_text(text: str) -> dict[str, str]:
    """Rates written ``GBP:1.1650,JPY:0.0061`` (a query parameter) as ``{code: decimal text}``."""
    out: dict[str, str] = {}
    for part in filter(None, (p.strip() for p in text.split(","))):
        code, sep, value = part.partition(":")
        if not sep:
            raise ReportError(f"rates: {part!r} is not CODE:RATE (e.g. GBP:1.1650)")
        out[code.strip()] = value.strip()
    return out
