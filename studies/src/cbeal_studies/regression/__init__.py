"""The regression benchmark (issue 20): workloads, strategies, runs and report
(studies/REGRESSION.md)."""
