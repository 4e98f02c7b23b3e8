"""Golden Vault: a 5x3 hold-and-respin (cash collect) game."""
