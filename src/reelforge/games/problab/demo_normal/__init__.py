"""problab's demo_normal (5x3 lines), reproduced from the peer's published configuration."""
