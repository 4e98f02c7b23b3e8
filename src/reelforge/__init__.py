"""reelforge: slot-game mathematics engine and game server."""

__version__ = "0.1.0"
