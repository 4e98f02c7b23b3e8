"""problab's demo_cascade (5x5 clusters with tumbles), reproduced from the peer's published configuration."""
