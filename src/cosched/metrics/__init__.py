"""Per-job outcomes and summary metrics, as pure functions of the outcome table."""

from cosched.metrics.saturation import Saturation, accepted_saturation, saturation_point
from cosched.metrics.summary import (
    DURATION_CLASSES,
    JobClasses,
    by_class,
    class_metrics,
    node_busy_seconds,
    outcomes,
    summarize,
)

__all__ = [
    "DURATION_CLASSES",
    "JobClasses",
    "Saturation",
    "accepted_saturation",
    "by_class",
    "class_metrics",
    "node_busy_seconds",
    "outcomes",
    "saturation_point",
    "summarize",
]
