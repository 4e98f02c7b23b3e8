"""A game's own sounds: ``sounds.toml`` in its folder declares effects as Web Audio voices (no sound files).

The browser client plays the effects by name (``web/js/sound.js``: a spin, a reel stop, wins by size, a feature's
start, ...). A game may give any of them its own sound, written as the voices the client synthesises: tones, struck
bells, filtered noise and brass chords, each with its pitch, start, length and loudness. An effect the game does
not declare is the client's generic one. The server checks the file when it starts and serves it as JSON
(``GET /api/v1/games/{id}/client/sounds.json``)::

    [effects]
    winSmall = [{ voice = "bell", freq = [784, 1175], step = 0.09, length = 0.5, peak = 0.35 }]
"""

from __future__ import annotations

import tomllib
from pathlib import Path
from typing import Any

SOUNDS_FILE = "sounds.toml"
"""The file in a game's folder that declares its own sounds."""

EFFECTS = ("spin", "stop", "tease", "winSmall", "winMedium", "winLarge", "feature", "tick", "bigwin", "click")
"""The effects the client plays (the keys of ``EFFECTS`` in web/js/sound.js): each a game may declare."""

WAVES = ("sine", "triangle", "square", "sawtooth")
FILTERS = ("lowpass", "highpass", "bandpass")
HZ = (20.0, 16_000.0)
SECONDS = (0.0, 8.0)

# Every field a voice may have: its kind (a number range, a choice, a list of frequencies) and whether it must.
_RANGES: dict[str, tuple[float, float]] = {
    "at": SECONDS, "length": (0.005, 8.0), "peak": (0.0, 1.0), "step": (0.0, 2.0), "attack": (0.001, 2.0),
    "slide_to": HZ, "from": HZ, "to": HZ, "q": (0.01, 50.0)}
VOICES: dict[str, dict[str, bool]] = {
    "tone": {"freq": True, "length": True, "at": False, "wave": False, "peak": False, "slide_to": False,
             "attack": False, "step": False},
    "bell": {"freq": True, "length": True, "at": False, "peak": False, "step": False},
    "hiss": {"from": True, "length": True, "filter": True, "at": False, "peak": False, "to": False, "q": False,
             "attack": False},
    "brass": {"freq": True, "length": True, "at": False, "peak": False},
}
"""The voices (web/js/sound.js's ``tone``, ``bell``, ``hiss``, ``brass``) and their fields (True: required).
``freq`` is a frequency in Hz or a list of them: a tone's or a bell's notes one ``step`` (s) after another, a
brass voice's chord."""


class SoundsError(ValueError):
    """A sounds file that cannot be played as written: the message names the file, the effect and the voice."""


def sounds_path(folder: Path) -> Path | None:
    """The game's ``sounds.toml`` in ``folder``, or None where it ships none."""
    path = folder / SOUNDS_FILE
    return path if path.is_file() else None


def load_sounds(path: Path) -> dict[str, list[dict[str, Any]]]:
    """The effects ``path`` declares, checked (effect names, voices, fields and their ranges): effect name -> its
    voices, as the client plays them. Raises :class:`SoundsError` in one line naming what is wrong."""
    try:
        data = tomllib.loads(path.read_text())
    except (OSError, tomllib.TOMLDecodeError) as exc:
        raise SoundsError(f"{path}: not a readable TOML file: {exc}") from exc
    extra = sorted(set(data) - {"effects"})
    effects = data.get("effects")
    if extra or not isinstance(effects, dict) or not effects:
        raise SoundsError(f"{path}: wants one table [effects] with at least one effect"
                          + (f", not {', '.join(extra)}" if extra else ""))
    out = {}
    for name, voices in effects.items():
        where = f"{path}: effect {name!r}"
        if name not in EFFECTS:
            raise SoundsError(f"{where} is not an effect the client plays; effects: {', '.join(EFFECTS)}")
        if not isinstance(voices, list) or not voices:
            raise SoundsError(f"{where}: wants a list of voices ({{ voice = \"bell\", ... }})")
        out[name] = [_voice(v, f"{where}, voice {i + 1}") for i, v in enumerate(voices)]
    return out


def _voice(voice: Any, where: str) -> dict[str, Any]:
    if not isinstance(voice, dict) or voice.get("voice") not in VOICES:
        raise SoundsError(f"{where}: wants voice = one of {', '.join(VOICES)}")
    fields = VOICES[voice["voice"]]
    unknown = sorted(set(voice) - set(fields) - {"voice"})
    missing = sorted(f for f, required in fields.items() if required and f not in voice)
    if unknown or missing:
        raise SoundsError(f"{where} ({voice['voice']}): " + "; ".join(
            ([f"unknown {', '.join(unknown)} (fields: {', '.join(fields)})"] if unknown else [])
            + ([f"missing {', '.join(missing)}"] if missing else [])))
    for key, value in voice.items():
        if key == "voice":
            continue
        if key == "wave" and value not in WAVES or key == "filter" and value not in FILTERS:
            raise SoundsError(f"{where}: {key} {value!r} is not one of {', '.join(WAVES if key == 'wave' else FILTERS)}")
        if key == "freq":
            freqs = value if isinstance(value, list) else [value]
            if not freqs or not all(_number_in(f, HZ) for f in freqs):
                raise SoundsError(f"{where}: freq wants a frequency or a list of them, each {HZ[0]:g}-{HZ[1]:g} Hz")
        elif key in _RANGES and not _number_in(value, _RANGES[key]):
            low, high = _RANGES[key]
            raise SoundsError(f"{where}: {key} {value!r} is not a number from {low:g} to {high:g}")
    return dict(voice)


def _number_in(value: Any, bounds: tuple[float, float]) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool) and bounds[0] <= value <= bounds[1]
