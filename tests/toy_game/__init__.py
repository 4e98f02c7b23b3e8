"""Toy Line: a 3x3 one-payline game written as CONTRIBUTING.md's "adding a game" example."""
