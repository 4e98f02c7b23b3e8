"""Operations tools, apart from the runtime server: the one API client (:mod:`reelforge.ops.client`),
the load and crash soak with exact reconciliation (:mod:`reelforge.ops.soak`, the supervisor that
SIGKILLs and restarts real server processes, :mod:`reelforge.ops.supervisor`), the reference
operator wallet and its fault soak (:mod:`reelforge.ops.refwallet`, :mod:`reelforge.ops.wallet_soak`),
a durable PostgreSQL cluster (:mod:`reelforge.ops.pgcluster`) and the statistical battery for the
live draw source (:mod:`reelforge.ops.rng`).
"""
