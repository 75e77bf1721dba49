"""The table's declarations: the sheets and the trackers a program's rules declare.

Every top-level ``Sheet`` value of the program (libraries too) says which members of the
objects of one form make their sheet, in sections, with labels in both languages, bars
for pairs such as HP of max HP, and who sees each line. Every top-level ``Tracker`` value
is an order of play the rules keep up to date. They are read once, when the session's
values exist; the checker (``semantics/table_check.py``) has said what is wrong in them.
"""

from __future__ import annotations

import weakref
from typing import TYPE_CHECKING, Any

from lore.runtime.values import EnumValue, FormInfo, LoreObject

if TYPE_CHECKING:
    from lore.engine.session import Session

OWNER, EVERYONE, GM_ONLY = "owner", "everyone", "gm"


class Entry:
    """A line of a sheet: the member shown, its labels, the bar's maximum ("" for
    none), and who sees it (``OWNER``, ``EVERYONE`` or ``GM_ONLY``)."""

    __slots__ = ("label", "label_ja", "max", "member", "ruled_by", "shown")

    def __init__(
        self, member: str, label: str, label_ja: str, max: str, shown: str, ruled_by: str = ""
    ) -> None:
        self.member = member
        self.label = label
        self.label_ja = label_ja
        self.max = max
        self.shown = shown
        self.ruled_by = ruled_by  # the alter a GM's ruling goes through ("": none)


class Section:
    __slots__ = ("entries", "label", "label_ja")

    def __init__(self, label: str, label_ja: str, entries: tuple[Entry, ...]) -> None:
        self.label = label
        self.label_ja = label_ja
        self.entries = entries


class SheetDecl:
    """A sheet: the form whose objects have it, its sections, and the members its lines
    read (``reads``: each line's member and bar's maximum, once)."""

    __slots__ = ("form", "label", "reads", "sections")

    def __init__(self, label: str, form: FormInfo, sections: tuple[Section, ...]) -> None:
        self.label = label
        self.form = form
        self.sections = sections
        names = [n for s in sections for e in s.entries for n in (e.member, e.max) if n]
        self.reads = tuple(dict.fromkeys(names))


class TableDecls:
    """A program's sheets and trackers (the trackers as the objects the rules alter)."""

    __slots__ = ("sheets", "trackers")

    def __init__(self, sheets: tuple[SheetDecl, ...], trackers: tuple[LoreObject, ...]) -> None:
        self.sheets = sheets
        self.trackers = trackers

    def sheet_of(self, obj: LoreObject) -> SheetDecl | None:
        """The sheet of an object: the first declared for its form or a form it extends."""
        form = obj.form
        if form is None:
            return None
        for sheet in self.sheets:
            if form.is_subform_of(sheet.form):
                return sheet
        return None


NONE = TableDecls((), ())
_DECLS: weakref.WeakKeyDictionary[Session, TableDecls] = weakref.WeakKeyDictionary()


def table_decls(session: Session) -> TableDecls:
    """The session's sheets and trackers (none before its values exist)."""
    found = _DECLS.get(session)
    if found is None:
        if not session.rt.g:
            return NONE
        found = _DECLS[session] = read_decls(session)
    return found


def values_of(session: Session, form_name: str | FormInfo) -> list[tuple[Any, LoreObject]]:
    """The program's top-level values of the prelude's form ``form_name`` (or of a form
    given itself; or of a form extending it), with their symbols, in the order of the
    program's values (none before the values exist)."""
    form = session.program.form_by_name.get(form_name) if isinstance(form_name, str) else form_name
    if form is None or not session.rt.g:
        return []
    found = []
    for symbol, index, _ in session.program.values:
        value = session.rt.g[index]
        if isinstance(value, LoreObject) and value.form and value.form.is_subform_of(form):
            found.append((symbol, value))
    return found


def read_decls(session: Session) -> TableDecls:
    program = session.program
    sheet_form = program.form_by_name.get("Sheet")
    tracker_form = program.form_by_name.get("Tracker")
    sheets: list[SheetDecl] = []
    trackers: list[LoreObject] = []
    for symbol, index, _ in program.values:
        value = session.rt.g[index]
        if not isinstance(value, LoreObject) or value.form is None:
            continue
        if sheet_form is not None and value.form.is_subform_of(sheet_form):
            sheet = read_sheet(symbol.qualified_name, value, program.form_by_name)
            if sheet is not None:
                sheets.append(sheet)
        elif tracker_form is not None and value.form.is_subform_of(tracker_form):
            if value.label is None:
                value.label = symbol.qualified_name
            trackers.append(value)
    return TableDecls(tuple(sheets), tuple(trackers))


def read_sheet(label: str, value: LoreObject, forms: dict[str, FormInfo]) -> SheetDecl | None:
    """A sheet value as the table reads it (None when its form is no form: the checker
    said so)."""
    form = form_named(_text(value.values.get("of")), forms)
    if form is None:
        return None
    sections = []
    for section in value.values.get("sections") or ():
        if not isinstance(section, LoreObject):
            continue
        entries = tuple(
            _entry(entry) for entry in section.values.get("entries") or () if _is_object(entry)
        )
        sections.append(
            Section(
                _text(section.values.get("label")),
                _text(section.values.get("labelJa")),
                entries,
            )
        )
    return SheetDecl(label, form, tuple(sections))


def form_named(name: str, forms: dict[str, FormInfo]) -> FormInfo | None:
    """The form a sheet names: by its qualified name, or by its own name when one form
    alone has it."""
    found = forms.get(name)
    if found is not None or not name:
        return found
    tail = "." + name
    named = [form for qualified, form in forms.items() if qualified.endswith(tail)]
    return named[0] if len(named) == 1 else None


def _entry(entry: LoreObject) -> Entry:
    values = entry.values
    shown = values.get("shown")
    return Entry(
        _text(values.get("member")),
        _text(values.get("label")),
        _text(values.get("labelJa")),
        _text(values.get("max")),
        shown.name if isinstance(shown, EnumValue) else OWNER,
        _text(values.get("ruledBy")),
    )


def _is_object(value: object) -> bool:
    return isinstance(value, LoreObject)


def _text(value: object) -> str:
    return value if isinstance(value, str) else ""
