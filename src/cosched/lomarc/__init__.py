"""LOMARC: pair coscheduling on standard and hyperthreaded nodes (issue 4)."""
