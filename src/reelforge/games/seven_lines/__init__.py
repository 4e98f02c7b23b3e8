"""Seven Lines: a classic 5x3, 10-line video slot with a wild and scatter-triggered free spins."""
