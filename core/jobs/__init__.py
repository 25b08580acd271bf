"""The lease job queue the workers share (docs/decisions.md, "Background work shares one lease
primitive"): core/jobs/queue.py, core/jobs/runner.py."""
