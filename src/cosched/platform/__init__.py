"""Cluster descriptions: how many nodes, how many cores each, and how jobs take them."""

from cosched.platform.machine import Allocation, Platform

__all__ = ["Allocation", "Platform"]
