"""Stake Engine packages: a game's modes as Stake's static math files (docs/STAKE.md).

:mod:`.format` writes, reads and checks the files; :mod:`.table` turns a game's win distribution into
a lookup table on Stake's 0.1x grid; :mod:`.books` turns a game's rounds into books; :mod:`.export`
puts them together for ``reelforge export stake``.
"""
