"""Per-job outcomes and summary metrics, as pure functions of the outcome table."""

from cosched.metrics.summary import (
    DURATION_CLASSES,
    by_class,
    outcomes,
    summarize,
)

__all__ = ["DURATION_CLASSES", "by_class", "outcomes", "summarize"]
