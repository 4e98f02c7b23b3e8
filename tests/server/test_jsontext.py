"""The server's once-built JSON encoders write the text ``json.dumps`` writes, byte for byte."""

import json
from fractions import Fraction

import numpy as np

from reelforge.server.jsontext import encoder
from reelforge.server.round_json import to_jsonable

VALUES = [
    {"win_x": Fraction(3, 2), "items": [1, 2.5, -0.0, 1e-05, 1e300, None, True, False], "n": np.int64(3),
     "pair": (1, 2), "text": 'é \u2028 "quoted" \\ \n \x00 ☃ 😀', "nested": {"b": [], "a": {}}},
    "a bare string é", 3, 2.2250738585072014e-308, None, [np.float64(0.1), np.arange(3)], {},
]


def test_every_option_writes_what_json_dumps_writes() -> None:
    for options in ({}, {"separators": (", ", ": "), "ensure_ascii": True, "sort_keys": True},
                    {"ensure_ascii": True}, {"sort_keys": True}):
        fast = encoder(to_jsonable, **options)
        for value in VALUES:
            assert fast(value) == json.dumps(value, default=to_jsonable, **{"separators": (",", ":"),
                                                                          "ensure_ascii": False, **options})


def test_unserialisable_values_are_refused_as_json_refuses_them() -> None:
    fast = encoder()
    for bad in ({"x": object()}, {(1, 2): 3}):
        try:
            json.dumps(bad, separators=(",", ":"), ensure_ascii=False)
        except TypeError as expected:
            try:
                fast(bad)
            except TypeError as got:
                assert str(got) == str(expected)
            else:
                raise AssertionError(f"{bad!r} was encoded")
    assert encoder(str)({"when": Fraction(1, 3)}) == '{"when":"1/3"}'  # the log lines' default
