"""Benchmarks: the kernels' rounds per second against the raw RNG rate of the same run
(:mod:`.kernels`, ``reelforge bench``) and the game server's throughput through HTTP (:mod:`.server`).
The scripts that are not commands live in the repository's ``bench/`` folder."""
