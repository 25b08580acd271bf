"""A fake platform's metrics rate limit: at most `limit` calls per `window` seconds per key (a
user's token, or the app), in fixed windows aligned on the epoch (as X's and Mastodon's are:
their reset is the window's end). A call beyond it is refused (429) and counted in `exceeded`,
so a test can tell a client that kept within the limit from one the platform had to stop."""

from __future__ import annotations

import math
import threading
import time
from collections import Counter
from dataclasses import dataclass, field


@dataclass
class Verdict:
    allowed: bool
    limit: int
    remaining: int
    reset: float  # epoch seconds, the window's end


@dataclass
class MetricsLimit:
    limit: int = 1_000_000
    window: float = 900.0
    counts: Counter[tuple[str, int]] = field(default_factory=Counter)
    exceeded: int = 0
    lock: threading.Lock = field(default_factory=threading.Lock)

    def take(self, key: str, now: float | None = None) -> Verdict:
        """Counts a call of `key` now: allowed while the window has room."""
        now = time.time() if now is None else now
        index = math.floor(now / self.window)
        reset = (index + 1) * self.window
        with self.lock:
            used = self.counts[(key, index)]
            if used >= self.limit:
                self.exceeded += 1
                return Verdict(False, self.limit, 0, reset)
            self.counts[(key, index)] = used + 1
            return Verdict(True, self.limit, self.limit - used - 1, reset)

    def most_in_a_window(self) -> int:
        """The most calls any key was allowed in one window."""
        with self.lock:
            return max(self.counts.values(), default=0)

    def reset_counts(self, limit: int | None = None, window: float | None = None) -> None:
        with self.lock:
            self.counts.clear()
            self.exceeded = 0
            self.limit = self.limit if limit is None else limit
            self.window = self.window if window is None else window
