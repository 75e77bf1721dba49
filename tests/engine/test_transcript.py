"""A transcript keeps every record added, and calls each listener with the records added
after it listens, however ``add`` is made (a transcript nobody listens to appends with
no Python call)."""

from __future__ import annotations

from lore.engine.transcript import Record, Transcript


def test_records_are_kept_and_listeners_called_from_when_they_listen() -> None:
    transcript = Transcript()
    transcript.add({"tick": 0, "kind": "message", "text": "a"})
    heard: list[Record] = []
    also: list[Record] = []
    transcript.listen(heard.append)
    transcript.add({"tick": 1, "kind": "message", "text": "b"})
    transcript.listen(also.append)
    transcript.add({"tick": 2, "kind": "message", "text": "c"})
    assert [r["text"] for r in transcript.records] == ["a", "b", "c"]
    assert [r["text"] for r in heard] == ["b", "c"]
    assert [r["text"] for r in also] == ["c"]


def test_a_transcript_given_listeners_calls_them() -> None:
    heard: list[Record] = []
    transcript = Transcript([], (heard.append,))
    transcript.add({"tick": 0, "kind": "end"})
    assert heard == transcript.records == [{"tick": 0, "kind": "end"}]


class Counting(Transcript):
    def add(self, record: Record) -> None:
        self.records.append({**record, "counted": True})


def test_a_subclass_adds_its_own_way() -> None:
    transcript = Counting()
    transcript.add({"tick": 0, "kind": "end"})
    assert transcript.records == [{"tick": 0, "kind": "end", "counted": True}]
