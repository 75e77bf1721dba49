"""Room on the Python stack for walking deeply nested (but allowed) Lore code.

The parser accepts up to 200 levels of nesting; walking such a tree recursively (to print,
check or compile it) takes several Python frames a level, more than Python's default
limit of 1000. Each walker runs inside ``deeper()``.
"""

from __future__ import annotations

import sys
from collections.abc import Iterator
from contextlib import contextmanager

RECURSION_LIMIT = 10_000


@contextmanager
def deeper() -> Iterator[None]:
    limit = sys.getrecursionlimit()
    if limit < RECURSION_LIMIT:
        sys.setrecursionlimit(RECURSION_LIMIT)
    try:
        yield
    finally:
        if limit < RECURSION_LIMIT:
            sys.setrecursionlimit(limit)
