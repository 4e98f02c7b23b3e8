"""What the OpenAPI description adds to what FastAPI derives from the routes."""

from __future__ import annotations

import json
from typing import Any

from fastapi import FastAPI

from reelforge.games.registry import GAME_CLASSES
from reelforge.server.api.common import IDEMPOTENCY_KEY_PATTERN
from reelforge.server.api.rounds import MONEY_MODELS
from reelforge.server.offer import ActiveGame
from reelforge.server.rounds import RoundService


def describe_offered_games(app: FastAPI, service: RoundService) -> None:
    """Make the OpenAPI description state what the server checks per game.

    A round request is valid only with a bet of its game's ladder and a
    feature buy the game has; a ``{game}`` path template cannot say so. So
    each ``/games/{game}/...`` operation is described once per offered game
    (its path spelled out), the round request with that game's bet ladder as
    an ``enum`` and its feature buys; the history filter and the step
    ``action`` list what exists. A request the description allows is then
    refused only for the state it meets (balance, an unfinished round, a used
    key: 402 and 409), never as invalid.
    """
    original = app.openapi
    cache: dict[str, Any] = {}

    def openapi() -> dict[str, Any]:
        if "schema" in cache:
            return cache["schema"]
        schema = original()
        components = schema.setdefault("components", {}).setdefault("schemas", {})
        for model in MONEY_MODELS:  # the plain routes' bodies (see api.rounds.PlainRoute)
            components[model.__name__] = model.model_json_schema(ref_template="#/components/schemas/{model}")
        paths = schema["paths"]
        for template in [p for p in paths if "{game}" in p]:
            item = paths.pop(template)
            for game_id, active in service.games.items():
                concrete = {}
                for method, operation in item.items():
                    operation = json.loads(json.dumps(operation))
                    operation["operationId"] = f"{operation['operationId']}_{game_id.replace('-', '_')}"
                    operation["parameters"] = [q for q in operation.get("parameters", []) if q["name"] != "game"]
                    if "requestBody" in operation and template.endswith("/rounds"):  # a round start's body
                        operation["requestBody"]["content"]["application/json"]["schema"] = \
                            _round_request_schema(active, service)
                    concrete[method] = operation
                paths[template.replace("{game}", game_id)] = concrete
        actions = sorted({a for active in service.games.values() for a in active.game.step_actions})
        for item in paths.values():
            for operation in item.values():
                for parameter in operation.get("parameters", []):
                    if parameter["name"] == "Idempotency-Key":
                        parameter["required"] = True  # refused (400) without one
                        parameter["schema"] = {"type": "string", "minLength": 1, "maxLength": 200,
                                               "pattern": IDEMPOTENCY_KEY_PATTERN}
                    if parameter["name"] == "game" and parameter["in"] == "query":
                        parameter["schema"] = {"anyOf": [{"type": "string", "enum": sorted(GAME_CLASSES)},
                                                         {"type": "null"}]}
        components["StepRequest"]["properties"]["action"] = {
            "anyOf": [{"type": "string", "enum": actions}, {"type": "null"}],
            "description": "a step action of the round's game (GET /games: step_actions); refused (409) where "
                           "its step takes none"}
        cache["schema"] = app.openapi_schema = schema
        return schema

    app.openapi = openapi


def _round_request_schema(active: ActiveGame, service: RoundService) -> dict[str, Any]:
    """The body of a round request of one game: its bet ladder, and its feature buys if it has any, each at the
    bets whose price the server's stake limit allows (a dearer buy is refused, 422)."""
    buys = [m for m in active.game.modes if m != "paid"] if active.game.feature_buy_price_x(active.build) else []
    ladder = list(active.config.bet_ladder)
    buy: dict[str, Any] = {"anyOf": [{"type": "boolean", "enum": [False]}, {"type": "null"}]}
    if buys:
        buy["anyOf"].append({"type": "string", "enum": buys})
    if len(buys) == 1:  # true names the feature buy only where there is one
        buy["anyOf"].append({"type": "boolean", "enum": [True]})
    schema: dict[str, Any] = {
        "type": "object", "additionalProperties": False, "required": ["bet"], "title": "StartRoundRequest",
        "properties": {
            "bet": {"type": "integer", "enum": ladder,
                    "description": "total bet in minor units, a value of the game's bet ladder"},
            "auto_adjust_bet": {"type": "boolean", "default": False,
                                "description": "lower the bet to the highest the balance covers"},
            "buy_feature": {**buy, "description": "true (or the mode name) to buy the game's feature"}}}
    limit = service.config.rules(None).stake_limit
    allowed = {m: [b for b in ladder if (c := service.cost(active, b, m)) is not None and (limit is None or c <= limit)]
               for m in buys}
    if any(bets != ladder for bets in allowed.values()):  # a buy the stake limit allows at some bets only
        variants: list[dict[str, Any]] = [{"properties": {"buy_feature": {"anyOf": buy["anyOf"][:2]}}}]
        for mode, bets in allowed.items():
            names: list[dict[str, Any]] = [{"type": "string", "enum": [mode]}]
            if len(buys) == 1:
                names.append({"type": "boolean", "enum": [True]})
            if bets:
                variants.append({"required": ["bet", "buy_feature"], "properties": {
                    "bet": {"enum": bets}, "buy_feature": {"anyOf": names}}})
        schema["anyOf"] = variants
    return schema
