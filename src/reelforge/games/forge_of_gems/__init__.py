"""Forge of Gems: 5x3 cascading ways game with split cells, the FORGE REEL, GEMBOX and free spins."""
