"""Synthetic workload models (currently the Lublin-Feitelson 2003 model)."""

from cosched.workload.models.lublin import (
    BATCH_DEFAULTS,
    INTERACTIVE_DEFAULTS,
    QUEUE_BATCH,
    QUEUE_INTERACTIVE,
    TYPELESS_DEFAULTS,
    LublinChunks,
    LublinClassParams,
    LublinParams,
    daily_cycle_weights,
    generate_lublin,
    lublin_chunks,
)

__all__ = [
    "BATCH_DEFAULTS",
    "INTERACTIVE_DEFAULTS",
    "QUEUE_BATCH",
    "QUEUE_INTERACTIVE",
    "TYPELESS_DEFAULTS",
    "LublinChunks",
    "LublinClassParams",
    "LublinParams",
    "daily_cycle_weights",
    "generate_lublin",
    "lublin_chunks",
]
