"""Multi-core node sharing with malleable configurations (issue 5)."""
