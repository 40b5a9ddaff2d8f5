"""Coupled machines: paired jobs across independent schedulers (issue 6)."""
