"""A player's own chart: its file read and checked, and the combats it resolves."""
