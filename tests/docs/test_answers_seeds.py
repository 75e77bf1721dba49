"""The authoring guide names the seed each sample's answers file plays through with, as
the file's ``"$test"`` header does."""

from __future__ import annotations

import json
import re
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]


def test_the_guide_names_each_samples_seed() -> None:
    guide = (REPO / "docs" / "authoring.md").read_text(encoding="utf-8")
    named = dict(re.findall(r"`examples/(\w+)`\s+seed\s+(\d+)", guide))
    assert named, "the guide names no sample's seed"
    for path in sorted((REPO / "examples").glob("*/answers.json")):
        seed = json.loads(path.read_text(encoding="utf-8"))["$test"]["seed"]
        assert int(named.get(path.parent.name, 0)) == seed, path
