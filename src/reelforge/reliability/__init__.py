"""Reliability and security evidence for the game server: load and crash soak
(:mod:`reelforge.reliability.soak`), the server supervisor that SIGKILLs and
restarts real server processes (:mod:`reelforge.reliability.supervisor`), and
the statistical battery for the live draw source (:mod:`reelforge.reliability.rng`).
"""
