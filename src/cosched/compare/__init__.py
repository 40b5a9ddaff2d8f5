"""The operator's question on one trace: baselines against coscheduling, with a report."""
