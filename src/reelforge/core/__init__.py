"""The core every layer stands on: random draws (:mod:`.draws`), the statistics of a tally
(:mod:`.stats`), numbers as the reports write them (:mod:`.numbers`), seeded chunks (:mod:`.chunks`),
tuning and calibration arithmetic (:mod:`.tuning`, :mod:`.calibration`). Knows no game."""
