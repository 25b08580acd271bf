"""The lease job queue the workers share (DESIGN 12): core/jobs/queue.py, core/jobs/runner.py."""
