"""``python -m lore``: the same as the ``lore`` command."""

from __future__ import annotations

import sys

from lore.cli.main import main

sys.exit(main())
