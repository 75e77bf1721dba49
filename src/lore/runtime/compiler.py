"""Compiling a checked program: every rule, function, accessor, alter and lambda becomes a
Python function generated as source, so a rule runs at the speed of ordinary Python.

Generated functions take the session's runtime ``rt`` first, then the object (``self``)
for members of forms, then the parameters. Each generated line remembers the Lore span
it came from, so the engine can turn a Python traceback into a Lore call stack.

The checker's results drive the code: the type of every expression picks the operation
(integer division, unit conversions, text joining) and what every name stands for picks
the access (local, member of ``self``, section value, rule).
"""

from __future__ import annotations

import hashlib
import itertools
import operator
import os
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from types import CodeType
from typing import Any

from lore.runtime import lists, ops
from lore.runtime.builtin_code import GLOBAL_CODE, code_for
from lore.runtime.dice import MAX_DICE, MAX_SIDES, Dice
from lore.runtime.quantity import Quantity
from lore.runtime.values import EnumInfo, EnumValue, FormInfo, RuntimeType, TypedString
from lore.semantics import builtins
from lore.semantics.check import CheckResult
from lore.semantics.expressions import Ref
from lore.semantics.symbols import (
    CallableSymbol,
    Container,
    EnumSymbol,
    EnumValueSymbol,
    FieldSymbol,
    FormSymbol,
    LocalSymbol,
    SectionSymbol,
    Symbol,
    VarSymbol,
)
from lore.semantics.types import (
    INTEGER,
    STRING,
    AnonFormT,
    AnyT,
    DictT,
    EnumT,
    FormT,
    FuncT,
    ListT,
    Prim,
    RangeT,
    Type,
    TypeOf,
    UnitT,
)
from lore.syntax import ast
from lore.syntax.recursion import collector_paused, deeper
from lore.syntax.source import SourceFile, Span
from lore.syntax.walk import walk

ENGINE_VALUES = ("GM", "schedule", "system")
# The engine's rules that a call of a prelude form's function member goes straight to, as
# ``rt.<method>(obj, ...)`` (the engine's runtime has each as a method), when the object
# is ``self`` or ``GM`` and nothing in the program can give an object a value or a rule of
# that name (see ``Compiler.native_method``): the look-up of ``ops.field_callee`` at
# every call would find that rule.
NATIVE_METHODS = {
    ("Actor", "message"): "actor_message",
    ("Actor", "query"): "actor_query",
    ("Participant", "message"): "participant_message",
    ("Participant", "query"): "participant_query",
}
NATIVE_NAMES = frozenset(name for _, name in NATIVE_METHODS)
MAX_PENDING = 64  # expressions waiting to be found on a line (one statement's, usually)
# How compiled code names them: objects of the engine, there before any rule runs.
_ENGINE_OBJECTS = frozenset(f"rt.{name}" for name in ENGINE_VALUES)
# What generated code that may run compiled code contains: a call passing ``rt`` (rules,
# functions, lambdas, accessors, list operations with a lambda) or one of these.
_CALLS_CODE = ("(rt,", "(rt)", "rt.method(", "rt.call_field(", "rt.new(", "rt.foreach(")


# What a handler's one-event variant cannot hold outside the requests and the event it
# replaces: other requests and events, and what reads or writes them.
_ONE_OUTSIDE = (
    "rt.first_request", "rt.request", "rt.adds", "rt.add_at(", "rt.add_event(",
    "rt.pending_events(", "_handler_call", "_GROUPED",
)  # fmt: skip


# The locals a one-event variant still needs after its body (see ``_inlined_apply``).
_VARIANT_LOCALS = re.compile(r"\b(_n|_r|_a|_z)\b")
# A line of a handler's top level that rolls one die into a local (see ``_first_die``).
_ONE_DIE = re.compile(r"    (l_\w+) = rt\.roll\((\d+)\)")
# The words of the dice streams (as ``engine/randomness.py`` draws them): 64 bits.
_WORDS = 1 << 64

Tail = list[tuple[str, "Span | None", tuple["Place", ...], "tuple[str, SourceFile] | None"]]


def _inlined_apply(
    apply: tuple[str, list[str], list[str], LineMap],
    name: str,
    span: Span | None,
    values_read: bool,
) -> Tail:
    """The lines of a one-event variant that run the plain apply ``apply`` of its alter
    ``name`` where the object's alter is that apply (else the variant calls it): the
    apply's body, with the value in a one-element tuple as its parameter (as the apply
    is called; the value itself where the body only sums that list; the variant's
    ``_v`` where ``values_read``: it holds the object's values already), then the alter
    noted and the event given back. Each line of the body
    keeps the place the apply's own line gives an error (its span, or the span of a line
    before it, as ``Session.frame_at`` looks one up, and its Lore name and file). Empty
    when it cannot be written in: a body that returns, or that uses the variant's locals,
    or a line that could fail at no place."""
    function, params, lines, line_map = apply
    if len(params) != 1:
        return []
    (param,) = params
    # A list of whole numbers only summed (``sum`` is what its ``.sum`` compiles to for
    # whole numbers alone): the sum of the one value is the value, with no tuple.
    summed = f"sum({param})"
    named = re.compile(rf"\b{param}\b")
    only_summed = sum(len(named.findall(line)) for line in lines) == sum(
        line.count(summed) for line in lines
    )
    body: Tail = []
    before: Span | None = None  # the last span of the apply's lines so far
    origin = (line_map.rule, line_map.source)
    for index, line in enumerate(lines, start=1):  # (index 0: the apply's header)
        text = line.strip()
        if text.startswith(("return", "yield")) or _VARIANT_LOCALS.search(line):
            return []
        own = line_map.spans[index] if index < len(line_map.spans) else None
        resolved = own if own is not None else before
        if resolved is None and not (text == "_v = self.values" or text.startswith("#")):
            return []
        if own is not None:
            before = own
        places = line_map.places[index] if index < len(line_map.places) else ()
        if text == "_v = self.values" and values_read:
            continue  # (the variant's own: the same object)
        moved = tuple((start + 8, end + 8, place) for start, end, place in places)
        if only_summed and summed in line:
            old = "        " + line
            new = old.replace(summed, "_r")
            body.append((new, resolved, _shortened(moved, old, summed, "_r"), origin))
        else:
            body.append(("        " + line, resolved, moved, origin))
    value: Tail = [] if only_summed else [(f"            {param} = (_r,)", span, (), None)]
    return [
        (f"        if _a is {function}:", span, (), None),
        *value,
        *body,
        (f"            if {name} not in self.altered:", span, (), None),
        (f"                rt.session.note_altered(((self, {name}),))", span, (), None),
        ("            return _n", span, (), None),
    ]


def _first_die(
    local: str, sides: int, places: tuple[Place, ...]
) -> list[tuple[str, tuple[Place, ...]]]:
    """The lines of a one-event variant, with their places, that roll its first die of
    ``sides`` sides into ``local`` as ``Runtime.roll`` does (the first die of a step of
    one event: word 0 of the step, from the first words of its group), with no call:
    the word when it is below the dice limit of ``sides``; else (a word past the limit,
    or no first words of the step's group yet) the call itself, as the handler makes it.
    A variant runs only as a step's one event with the dice of the seed (see
    ``Session.singles``), so its first die is that one."""
    call = f"        {local} = rt.roll({sides})"
    return [
        ("    try: _z = rt.firsts[rt.session.steps - rt.first_step]", ()),
        (f"    except IndexError: _z = {_WORDS}", ()),  # (past every limit: the call)
        (f"    if _z < {_WORDS - _WORDS % sides}:", ()),
        ("        rt.state = _z", ()),
        (f"        {local} = 1 + _z % {sides}", ()),
        ("    else:", ()),
        (call, tuple((start + 4, end + 4, place) for start, end, place in places)),
    ]


def _shortened(places: tuple[Place, ...], line: str, old: str, new: str) -> tuple[Place, ...]:
    """``places`` of ``line`` once every ``old`` in it is written ``new``: each moved by
    what the replacements before it took away (a place within an ``old``, whose code is
    gone, is dropped)."""
    found = [at for at in range(len(line)) if line.startswith(old, at)]
    cut = len(old) - len(new)

    def moved(at: int) -> int:
        return at - cut * sum(1 for start in found if start + len(old) <= at)

    return tuple(
        (moved(start), moved(end), span)
        for start, end, span in places
        if all(
            end <= at or start >= at + len(old) or (start <= at and end >= at + len(old))
            for at in found
        )
    )


def _moved(places: tuple[Place, ...], old: str, new: str) -> tuple[Place, ...]:
    """``places`` of line ``old`` where their code is on line ``new`` (each found once)."""
    before, after = old.encode(), new.encode()
    found: list[Place] = []
    for start, end, span in places:
        at = after.find(before[start:end])
        if at >= 0:
            found.append((at, at + end - start, span))
    return tuple(found)


# A line of an alter's body's top level that modifies a member (see apply_function).
_MODIFY_LINE = re.compile(r"    _mods\[('[^'\\]*')\] = ")
# The runtime named in a line of generated code (a plain apply never names it).
_RUNTIME = re.compile(r"\brt\b")
# Where, in one generated line, the code of a Lore expression is: its first and last
# byte (Python's traceback positions count bytes), and the expression's span.
Place = tuple[int, int, Span]


@dataclass
class LineMap:
    """For one generated function: its Lore name, file, the span of each line (its
    statement), and where on each line the code of each expression is."""

    rule: str
    source: SourceFile
    spans: list[Span | None]
    places: list[tuple[Place, ...]] = field(default_factory=list)
    # Lines whose code is another function's (an alter's apply written into a handler's
    # one-event variant), by index: that function's Lore name and file.
    origins: dict[int, tuple[str, SourceFile]] = field(default_factory=dict)

    def origin(self, index: int) -> tuple[str, SourceFile]:
        """The Lore name and file of the code on line ``index``."""
        return self.origins.get(index) or (self.rule, self.source)

    def span_at(self, index: int, code: CodeType, instruction: int) -> Span | None:
        """The span of the innermost expression whose code holds the instruction at
        ``instruction`` (a traceback's ``tb_lasti``) on line ``index``; None if unknown."""
        if not 0 <= index < len(self.places) or not self.places[index]:
            return None
        positions = list(code.co_positions())
        at = instruction // 2
        if not 0 <= at < len(positions):
            return None
        first_line, last_line, start, end = positions[at]
        if first_line != last_line or start is None or end is None:
            return None
        holding = [place for place in self.places[index] if place[0] <= start and end <= place[1]]
        if not holding:
            return None
        return min(holding, key=lambda place: place[1] - place[0])[2]


@dataclass
class CompiledProgram:
    result: CheckResult
    namespace: dict[str, Any]
    line_maps: dict[str, LineMap]
    forms: dict[int, FormInfo]
    enums: dict[int, EnumInfo]
    # Section values in the order to evaluate them: (symbol, index, init function).
    values: list[tuple[VarSymbol, int, Any]] = field(default_factory=list)
    value_index: dict[int, int] = field(default_factory=dict)
    events: list[int] = field(default_factory=list)  # indexes of top-level Events
    form_by_name: dict[str, FormInfo] = field(default_factory=dict)
    # Every generated function by a name that stays the same when the same files are
    # compiled again ("rule a.Hero.turn#0", "lambda in rule a.Hero.turn#1"), and back:
    # how a snapshot names the handlers and rules it holds.
    functions: dict[str, Any] = field(default_factory=dict)
    function_names: dict[Any, str] = field(default_factory=dict)
    # A handler's one-event variant, by handler (see ``Emitter.one_variant``): what a
    # step of that one event runs in its place.
    ones: dict[Any, Any] = field(default_factory=dict)
    # Files read while compiling (the XML of ``loadXML``): path and text.
    read_files: dict[Path, str] = field(default_factory=dict)
    # What the engine works out once for all the sessions of the program (set, once, by
    # lore.engine.natives.prepare; the program does not change after that).
    engine: Any = None
    # ``files()`` once worked out (with the number of files read then): every snapshot
    # of a session names them, and hashing the library's text each time was most of
    # what a small session's snapshot cost.
    _files: tuple[int, list[tuple[str, str]]] | None = field(
        default=None, repr=False, compare=False
    )

    def form(self, name: str) -> FormInfo:
        return self.form_by_name[name]

    def files(self) -> list[tuple[str, str]]:
        """The files the program was made from, each as (name, SHA-256 of its text): the
        Lore files loaded (the library's as ``<lore>/name``, the others relative to the
        folder of the first file that is not a saved session) and the XML files read.
        Saves of ``lore run`` are left out: they hold a session, not rules."""
        known = self._files
        if known is not None and known[0] == len(self.read_files):
            return list(known[1])
        modules = [m for m in self.result.program.modules if not is_save_module(m.tree)]
        base = next(
            (m.source.path.parent for m in modules if not m.is_library and m.source.path),
            None,
        )
        found = [(file_name(m.source.name, m.source.path, base), m.source.text) for m in modules]
        found += [(file_name(str(p), p, base), text) for p, text in self.read_files.items()]
        made = [(name, hashlib.sha256(text.encode("utf-8")).hexdigest()) for name, text in found]
        self._files = (len(self.read_files), made)
        return list(made)

    def digest(self) -> str:
        """One SHA-256 of ``files()``: equal for programs made from the same files."""
        lines = "".join(f"{name}\0{sha}\n" for name, sha in self.files())
        return hashlib.sha256(lines.encode("utf-8")).hexdigest()


def is_save_module(tree: ast.Module) -> bool:
    """Whether a file is a save of ``lore run`` (a top-level ``section _auto_stored``
    with a ``seed``; a save in the paper's format holds a schedule to start from, so it
    counts among the files a session is made from)."""
    return any(
        isinstance(d, ast.SectionDef)
        and d.path == ("_auto_stored",)
        and any(isinstance(m, ast.VarDef) and m.name == "seed" for m in d.members)
        for d in tree.body
    )


def file_name(shown: str, path: Path | None, base: Path | None) -> str:
    """How ``files()`` names a file: the library's by their shown name, others relative to
    ``base`` (with ``/``)."""
    if path is None or shown.startswith("<") or base is None:
        return shown
    try:
        return Path(os.path.relpath(path.resolve(), base.resolve())).as_posix()
    except ValueError:
        return path.resolve().as_posix()


def mangle(name: str) -> str:
    python = "l_" + name
    if python.isidentifier() and python.isascii():
        return python
    return "l_" + "_".join(f"{ord(c):x}" for c in name)


class Compiler:
    def __init__(self, result: CheckResult) -> None:
        self.result = result
        self.checker = result.checker
        self.types = self.checker.bodies.types
        self.refs = self.checker.bodies.refs
        self.namespace: dict[str, Any] = {"_ops": ops, "_Closure": ops.Closure}
        for name in ("lt", "le", "gt", "ge"):
            self.namespace[f"_order_{name}"] = getattr(operator, name)
        for module in (ops, lists):
            for name in dir(module):
                if not name.startswith("_"):
                    self.namespace["_" + name] = getattr(module, name)
        self.line_maps: dict[str, LineMap] = {}
        self.counter = itertools.count()
        self.titles: dict[str, int] = {}  # how many functions of each title so far
        self.constants: dict[tuple[str, Any], str] = {}
        self.forms: dict[int, FormInfo] = {}
        self.enums: dict[int, EnumInfo] = {}
        # (form, rule) -> the global that names its compiled rule (see ``rule_alias``)
        self.aliases: dict[tuple[int, str], str | None] = {}
        # The member names some definition or modification of the program gives a value
        # or a rule (see ``native_method``): found once, when first needed.
        self.written: frozenset[str] | None = None
        # Handlers that may have a one-event variant, with their form: built once every
        # alter is compiled (a variant writes its alter's apply in itself: see
        # ``Emitter.one_variant``).
        self.pending_ones: list[tuple[Emitter, Any, FormSymbol]] = []
        # A plain apply's name, parameters, lines (no header) and line map, by apply.
        self.apply_code: dict[Any, tuple[str, list[str], list[str], LineMap]] = {}
        self.program = CompiledProgram(
            result, self.namespace, self.line_maps, self.forms, self.enums
        )

    # ------------------------------------------------------------ driver

    def compile(self) -> CompiledProgram:
        self.number_values(self.checker.root)
        for form in self.checker.declarer.forms:
            self.form_info(form)
        for enum in self.checker.declarer.enums:
            self.enum_info(enum)
        for form in self.checker.declarer.forms:
            self.compile_form(form)
        for (form_id, name), alias in self.aliases.items():
            if alias is not None:
                self.namespace[alias] = self.forms[form_id].methods[name]
        for emitter, compiled, form in self.pending_ones:
            one = emitter.one_variant(self.plain_apply_of(form, emitter.own_alter()))
            if one is not None:
                self.program.ones[compiled] = one
        for enum in self.checker.declarer.enums:
            self.fill_enum(enum)
        self.compile_container(self.checker.root)
        self.order_values()
        return self.program

    def plain_apply_of(
        self, form: FormSymbol, alter: str | None
    ) -> tuple[str, list[str], list[str], LineMap] | None:
        """The code of the plain apply of ``form``'s alter ``alter`` (see ``apply_code``),
        the one its objects run unless a subform overrides the alter; None if it has none."""
        symbol = form.lookup(alter) if alter is not None else None
        if not isinstance(symbol, CallableSymbol) or not isinstance(symbol.parent, FormSymbol):
            return None
        info = self.forms.get(id(symbol.parent))
        fn = info.methods.get(alter) if info is not None and alter is not None else None
        apply = info.applies.get(fn) if info is not None and fn is not None else None
        if info is None or apply is None or apply not in info.plain:
            return None
        return self.apply_code.get(apply)

    def rule_alias(self, symbol: CallableSymbol, name: str) -> str | None:
        """A global naming the compiled rule ``name`` (``symbol``) of a user's form, when
        every form that extends that form has it as its rule ``name`` (none overrides it):
        the rule of any object of those forms is then that function, with no look-up.
        None: a form overrides it (its objects' forms are looked up when the code runs)."""
        parent = symbol.parent
        if not isinstance(parent, FormSymbol) or symbol.node is None or _is_prelude(symbol):
            return None
        key = (id(parent), name)
        if key not in self.aliases:
            overridden = any(
                form is not parent
                and form.is_subform_of(parent)
                and form.lookup(name) is not symbol
                for form in self.checker.declarer.forms
            )
            self.aliases[key] = None if overridden else f"_fixed_rule{len(self.aliases)}"
        return self.aliases[key]

    def native_method(self, symbol: FieldSymbol, target: str) -> str | None:
        """The engine's rule (``NATIVE_METHODS``) that a call of the prelude's function
        member ``symbol`` of ``target`` always runs, or None. ``self`` is an object of a
        form that has the member (the checker found it there), and ``GM`` the engine's
        participant; neither is ever null. The rule found is the one ``field_callee``
        finds when the object holds no value of that name and no form gives it another
        rule: so when nothing in any file of the program (the prelude's declaration
        aside) defines, modifies or assigns a member of that name. (An object's values
        come from its literal, its form's defaults and alters only.)"""
        parent = symbol.parent
        if not isinstance(parent, FormSymbol) or not _is_prelude(symbol):
            return None
        method = NATIVE_METHODS.get((parent.name, symbol.name))
        if method is None or target not in ("self", "rt.GM"):
            return None
        if target == "rt.GM" and parent.name != "Participant":
            return None
        if self.written is None:
            self.written = frozenset(self.written_names())
        return None if symbol.name in self.written else method

    def written_names(self) -> set[str]:
        """Of ``NATIVE_NAMES``, those that the program gives a value or a rule (or declares
        again): by a form's definitions, an object literal's (but an anonymous object's,
        as a question's description: no form's object), or a modification. Files that
        do not name them are not looked into, nor is the prelude (it only declares them)."""
        found: set[str] = set()
        for module in self.result.program.modules:
            if module.is_prelude or not any(n in module.source.text for n in NATIVE_NAMES):
                continue  # (the prelude gives none a value: tests/runtime say so)
            found |= self.members_written(module.tree)
        return found & NATIVE_NAMES

    def members_written(self, tree: ast.Module, declared: bool = True) -> set[str]:
        """The member names ``tree`` defines, modifies or gives a value in an object
        literal (of a form: an anonymous object is no form's); ``declared``: or declares."""
        found: set[str] = set()
        kinds = _WRITING if declared else _DEFINITIONS
        for node in walk(tree):
            if isinstance(node, ast.FormDef):
                found.update(m.name for m in node.members if isinstance(m, kinds))
            elif isinstance(node, ast.FormLit):
                made = self.types.get(id(node))
                if made is None or isinstance(made, FormT):
                    found.update(m.name for m in node.members if isinstance(m, _DEFINITIONS))
            elif isinstance(node, ast.Modify) or (
                isinstance(node, ast.Assign) and isinstance(node.target, ast.Member)
            ):
                found.add(node.target.name)
        return found

    def form_info(self, form: FormSymbol) -> FormInfo:
        info = self.forms.get(id(form))
        if info is None:
            info = FormInfo(form.qualified_name)
            self.forms[id(form)] = info
            self.program.form_by_name.setdefault(form.qualified_name, info)
            if form.extends is not None:
                info.parent = self.form_info(form.extends)
        return info

    def enum_info(self, enum: EnumSymbol) -> EnumInfo:
        info = self.enums.get(id(enum))
        if info is None:
            info = EnumInfo(enum.qualified_name)
            self.enums[id(enum)] = info
            if enum.extends is not None:
                # The values of the enum it extends come first (`B.values`, `B.input`).
                info.parent = self.enum_info(enum.extends)
                info.values.update(info.parent.values)
            for name in enum.values:
                if name not in info.values:
                    info.values[name] = EnumValue(info, name, len(info.values))
        return info

    def fill_enum(self, enum: EnumSymbol) -> None:
        info = self.enum_info(enum)
        for name, value in enum.values.items():
            if value.node is None:
                continue
            for member in value.node.members:
                if isinstance(member, ast.VarDef):
                    fn = self.compile_value(
                        member.value, enum, value.source, f"{enum.name}.{name}.{member.name}"
                    )
                    info.values[name].members[member.name] = fn(None)
        for member_name, shared in enum.members.items():
            expr = None
            if isinstance(shared, VarSymbol) and shared.node is not None:
                expr = shared.node.value
            elif isinstance(shared, FieldSymbol) and shared.default is not None:
                expr = shared.default.value
            if expr is not None:
                fn = self.compile_value(expr, enum, shared.source, member_name)
                for enum_value in info.values.values():
                    enum_value.members.setdefault(member_name, fn(None))
            elif isinstance(shared, CallableSymbol) and shared.node is not None:
                # A rule, function or accessor every value shares: called with the value
                # as ``self`` (``Emitter.call``), under its symbol's global name.
                compiled = self.compile_callable(shared, None, enum_member=True)
                self.namespace[self.global_name(shared)] = compiled

    def compile_form(self, form: FormSymbol) -> None:
        info = self.form_info(form)
        for name, member in form.members.items():
            if isinstance(member, FieldSymbol):
                info.fields.append(name)
                if member.default is not None:
                    info.defaults[name] = self.compile_default(
                        member.default.value, form, member, name
                    )
            elif isinstance(member, VarSymbol) and member.node is not None:
                info.defaults[name] = self.compile_default(member.node.value, form, member, name)
            elif isinstance(member, CallableSymbol) and member.node is not None:
                modified: set[str] = set()
                applies: list[Any] = []
                info.methods[name] = self.compile_callable(member, form, modified, applies)
                if isinstance(member.node, ast.AccessorDef | ast.FunctionDef):
                    info.accessors.add(name)
                if isinstance(member.node, ast.AlterDef):
                    info.alters[name] = frozenset(modified)
                    if applies:
                        apply, plain, value = applies[0]
                        info.applies[info.methods[name]] = apply
                        if plain:
                            info.plain.add(apply)
                        if value is not None:
                            info.values[info.methods[name]] = value

    def compile_container(self, container: Container) -> None:
        for member in container.members.values():
            if isinstance(member, SectionSymbol):
                self.compile_container(member)
            elif isinstance(member, VarSymbol) and member.node is not None:
                index = self.program.value_index[id(member)]
                init = self.compile_value(
                    member.node.value, container, member.source, member.qualified_name, member.type
                )
                self.program.values.append((member, index, init))
            elif isinstance(member, CallableSymbol) and member.node is not None:
                self.namespace[self.global_name(member)] = self.compile_callable(member, None)

    def number_values(self, container: Container) -> None:
        """Give every section value its slot before any code refers to it."""
        for member in container.members.values():
            if isinstance(member, SectionSymbol):
                self.number_values(member)
            elif isinstance(member, VarSymbol) and member.node is not None:
                self.program.value_index[id(member)] = len(self.program.value_index)

    def order_values(self) -> None:
        """Evaluate section values so that each comes after the values it uses."""
        by_id = {id(sym): (sym, index, init) for sym, index, init in self.program.values}
        ordered: list[tuple[VarSymbol, int, Any]] = []
        state: dict[int, int] = {}

        def visit(key: int) -> None:
            if state.get(key) is not None:
                return
            state[key] = 1
            symbol, _, _ = by_id[key]
            assert symbol.node is not None
            for node in _value_dependencies(symbol.node.value):
                ref = self.refs.get(id(node))
                if ref is not None and ref.symbol is not None and id(ref.symbol) in by_id:
                    visit(id(ref.symbol))
            state[key] = 2
            ordered.append(by_id[key])

        # A save of lore run holds a session, not rules: its values are never made (the
        # values of a session and the places of their dice are the same with it or not).
        saves = {id(m.source) for m in self.result.program.modules if is_save_module(m.tree)}
        for symbol, _, _ in self.program.values:
            if id(symbol.source) not in saves:
                visit(id(symbol))
        self.program.values = ordered
        event = self.checker.root.members.get("Event")
        # Only the scenario's events start the session: an imported file is a library.
        scenarios = {id(module.source) for module in self.result.program.scenarios()}
        for symbol, index, _ in ordered:
            if (
                isinstance(symbol.type, FormT)
                and isinstance(event, FormSymbol)
                and symbol.type.symbol.is_subform_of(event)
                and id(symbol.source) in scenarios
            ):
                self.program.events.append(index)

    # ------------------------------------------------------------ naming

    def global_name(self, symbol: Symbol) -> str:
        return f"_r{id(symbol):x}"

    def constant(self, value: Any, key: Any = None) -> str:
        marker = ("k", key if key is not None else id(value))
        name = self.constants.get(marker)
        if name is None:
            name = f"_k{len(self.constants)}"
            self.constants[marker] = name
            self.namespace[name] = value
        return name

    def runtime_type(self, t: Type) -> RuntimeType:
        if isinstance(t, Prim):
            return RuntimeType("prim", t.name)
        if isinstance(t, UnitT):
            return RuntimeType("unit", f"unit[{t.unit}]", unit=t.unit, family=t.family)
        if isinstance(t, EnumT):
            return RuntimeType("enum", t.symbol.qualified_name, enum=self.enum_info(t.symbol))
        if isinstance(t, FormT):
            return RuntimeType("form", t.symbol.qualified_name, form=self.form_info(t.symbol))
        if isinstance(t, ListT):
            return RuntimeType("list", "list", element=self.runtime_type(t.element))
        if isinstance(t, RangeT):
            return RuntimeType("range", "range", element=self.runtime_type(t.element))
        if isinstance(t, DictT):
            return RuntimeType("dict", "dict")
        if isinstance(t, FuncT):
            return RuntimeType("function", "function")
        return RuntimeType("any", "any")

    # ------------------------------------------------------------ functions

    def compile_callable(
        self,
        symbol: CallableSymbol,
        form: FormSymbol | None,
        modified: set[str] | None = None,
        applies: list[Any] | None = None,
        enum_member: bool = False,
    ) -> Any:
        """Compile a rule, function, accessor or alter; ``modified`` gets the names of the
        members an alter modifies, and ``applies`` its apply when it has one (see
        ``Emitter.apply_function``); ``enum_member``: a member of an enum, whose ``self``
        is the enum value it is called on."""
        node = symbol.node
        assert node is not None
        params = [p.name for p in node.params or ()]
        kind = (
            "alter"
            if isinstance(node, ast.AlterDef)
            else "function"
            if isinstance(node, ast.FunctionDef | ast.AccessorDef)
            else "rule"
        )
        title = f"{symbol.kind} {symbol.qualified_name}"
        emitter = Emitter(
            self,
            symbol.source,
            title,
            has_self=form is not None or enum_member,
            kind=kind,
            result_type=symbol.result,
        )
        param_types = symbol.params or ()
        compiled = emitter.function(params, node.body, param_types)
        if emitter.one_candidate and form is not None:
            self.pending_ones.append((emitter, compiled, form))
        if modified is not None:
            modified.update(emitter.modified)
        if applies is not None and kind == "alter":
            apply = emitter.apply_function(params)
            if apply is not None:
                applies.append(apply)
        return compiled

    def compile_value(
        self,
        expr: ast.Expr,
        container: Container,
        source: SourceFile,
        title: str,
        expected: Type | None = None,
    ) -> Any:
        """A section value or enum member: a function ``(rt) -> value``."""
        emitter = Emitter(
            self, source, f"value {title}", has_self=False, kind="value", result_type=expected
        )
        return emitter.value_function(expr, expected)

    def compile_default(self, expr: ast.Expr, form: FormSymbol, symbol: Symbol, name: str) -> Any:
        """A member default of a form: a function ``(rt, self) -> value``."""
        expected: Type | None = None
        if isinstance(symbol, FieldSymbol | VarSymbol):
            expected = symbol.type
        emitter = Emitter(
            self,
            symbol.source,
            f"member {form.name}.{name}",
            has_self=True,
            kind="default",
            result_type=expected,
        )
        return emitter.value_function(expr, expected, with_self=True)

    def register(self, source_code: str, name: str, line_map: LineMap, named: bool = True) -> Any:
        """Compile a generated function; ``named``: give it its stable name (what saves
        call a handler by), which a variant never queued (an alter's apply) goes without."""
        filename = f"<lore:{name}>"
        code = compile(source_code, filename, "exec")
        exec(code, self.namespace)
        self.line_maps[filename] = line_map
        function = self.namespace[name]
        if not named:
            return function
        # Its stable name: its Lore title and how many functions of that title came before.
        number = self.titles.get(line_map.rule, 0)
        self.titles[line_map.rule] = number + 1
        stable = f"{line_map.rule}#{number}"
        self.program.functions[stable] = function
        self.program.function_names[function] = stable
        return function


_BOUNDS = ("min", "max", "default")  # the names ``T.input`` takes its arguments by


def write_in_place(
    lines: list[str], places: list[tuple[Place, ...]], names: dict[str, str]
) -> bool:
    """For the apply of a plain alter that modifies one member once, as its last line
    before ``return _mods``: make that line write the member itself (no local and no
    write after it; nothing reads the member after it). Whether it did."""
    ((member, local),) = names.items()
    target = f"    {local} = "
    if len(lines) < 2 or not lines[-2].startswith(target) or "    _v = self.values" not in lines:
        return False
    if sum(line.startswith(target) for line in lines) != 1:
        return False
    delta = len(f"_v[{member}]") - len(local)
    lines[-2] = f"    _v[{member}] = {lines[-2][len(target) :]}"
    places[-2] = tuple((start + delta, end + delta, span) for start, end, span in places[-2])
    return True


def _value_dependencies(expr: ast.Expr) -> list[ast.Node]:
    """Names and members used by a value, outside lambda bodies (which run later)."""
    found: list[ast.Node] = []
    stack: list[Any] = [expr]
    while stack:
        node = stack.pop()
        if isinstance(node, ast.Lambda):
            continue
        if isinstance(node, ast.Name | ast.Member):
            found.append(node)
        if isinstance(node, ast.Node):
            for name in node.__dataclass_fields__:
                value = getattr(node, name)
                if isinstance(value, ast.Node):
                    stack.append(value)
                elif isinstance(value, tuple):
                    stack.extend(v for v in value if isinstance(v, ast.Node))
    return found


class Emitter:
    """Generates one Python function from one Lore body."""

    def __init__(
        self,
        compiler: Compiler,
        source: SourceFile,
        title: str,
        has_self: bool,
        kind: str,
        result_type: Type | None,
    ) -> None:
        self.compiler = compiler
        self.source = source
        self.title = title
        self.has_self = has_self
        self.kind = kind
        self.result_type = result_type
        self.lines: list[str] = []
        self.spans: list[Span | None] = []
        self.places: list[tuple[Place, ...]] = []
        # The code of the expressions compiled and not yet found on an emitted line.
        self.fragments: list[tuple[str, Span]] = []
        self.indent = 1
        self.temps = itertools.count()
        self.scopes: list[dict[str, str]] = [{}]
        self.result_var: list[str] = ["_result"]
        self.result_types: list[Type | None] = [result_type]
        self.name = f"_f{next(compiler.counter)}"
        self.modified: set[str] = set()  # the members an alter's body modifies
        # What a handler's one-event variant replaces (see ``one_variant``): the first
        # line of each request of an own alter, with the alter and the value's local;
        # the first line of each event written in place, with its parts.
        self.own_requests: dict[str, tuple[str, str]] = {}
        self.own_adds: dict[str, tuple[str, str, str, str]] = {}
        self.one_candidate = False  # a handler that may have one (set by ``function``)

    # ------------------------------------------------------------ output

    def emit(self, text: str, span: Span | None) -> None:
        line = "    " * self.indent + text
        self.lines.append(line)
        self.spans.append(span)
        self.places.append(self.place_fragments(line))

    def place_fragments(self, line: str) -> tuple[Place, ...]:
        """Where on ``line`` the expressions compiled since are (the k-th of equal code
        at its k-th occurrence: equal code is compiled left to right)."""
        found: list[Place] = []
        kept: list[tuple[str, Span]] = []
        used: dict[str, int] = {}
        for fragment, span in self.fragments:
            at = -1
            for _ in range(used.get(fragment, 0) + 1):
                at = line.find(fragment, at + 1)
                if at < 0:
                    break
            if at < 0:
                kept.append((fragment, span))
                continue
            used[fragment] = used.get(fragment, 0) + 1
            start = len(line[:at].encode())
            found.append((start, start + len(fragment.encode()), span))
        self.fragments = kept[-MAX_PENDING:]
        return tuple(found)

    def temp(self) -> str:
        return f"_t{next(self.temps)}"

    def finish(self, header: str) -> Any:
        if any("_v[" in line for line in self.lines):
            # The object's own members are read through its values, fetched once: they
            # cannot change while a rule runs (changes wait for the update phase).
            at = 1 if self.lines[0].lstrip().endswith("= _cap") else 0
            self.lines.insert(at, "    _v = self.values")
            self.spans.insert(at, None)
            self.places.insert(at, ())
        body = self.lines or ["    pass"]
        source_code = header + "\n" + "\n".join(body) + "\n"
        spans: list[Span | None] = [None, *self.spans]
        line_map = LineMap(self.title, self.source, spans, [(), *self.places])
        return self.compiler.register(source_code, self.name, line_map)

    def apply_function(self, params: list[str]) -> Any:
        """The apply of the alter just compiled (``function``), whether it is plain, and its
        value function (see ``new_value_function``), or None: the same body, but the members
        it modifies are kept in locals and written to the object at its end (all reads come
        first, as when its modifications apply after it ran), when it requested no alter
        (else it returns its modifications, as the alter does). The engine runs it for a
        step's one alter. Only an alter that
        modifies each member unconditionally (every ``_mods`` line in its body's top level)
        and does not move its object (``location``: the world follows a move) has one."""
        if "location" in self.modified or not self.lines:
            return None
        names: dict[str, str] = {}  # a member's repr -> its local
        lines: list[str] = []
        places: list[tuple[Place, ...]] = []
        for line, place in zip(self.lines, self.places, strict=True):
            found = _MODIFY_LINE.match(line)
            if found is not None:
                local = names.setdefault(found[1], f"_m{len(names)}")
                delta = len(local) - len(f"_mods[{found[1]}]".encode())
                line = f"    {local} = {line[found.end() :]}"
                place = tuple((start + delta, end + delta, span) for start, end, span in place)
            elif line == "    _mods = {}":
                line = "    # (no dict of modifications)"  # (a line kept: the spans are by line)
            elif "_mods" in line and line != "    return _mods":
                return None
            lines.append(line)
            places.append(place)
        if lines[-1] != "    return _mods":
            return None
        pairs = ", ".join(f"{name}: {local}" for name, local in names.items())
        writes = [f"    _v[{name}] = {local}" for name, local in names.items()]
        if writes and "    _v = self.values" not in lines:
            writes.insert(0, "    _v = self.values")
        # A body that never names the runtime (no dice, rule call, question or request)
        # writes what it modifies unconditionally: it is plain (see ``FormInfo.plain``).
        plain = not any(_RUNTIME.search(line) for line in lines[:-1])
        check = [] if plain else [f"    if rt.first_request is not None: return {{{pairs}}}"]
        value = self.new_value_function(params, lines, places, names) if plain else None
        if plain and len(writes) == 1 and write_in_place(lines, places, names):
            # Its one modification, the body's last line, writes the member.
            del lines[-1], places[-1]
        else:
            lines[-1:] = [*check, *writes] or ["    pass"]
        added = len(lines) - len(self.lines)
        spans: list[Span | None] = [None, *self.spans, *([None] * added)]
        places.extend([()] * added)
        name = f"{self.name}_apply"
        header = f"def {name}(rt, self, {', '.join(mangle(p) for p in params)}):"
        line_map = LineMap(self.title, self.source, spans, [(), *places])
        source_code = header + "\n" + "\n".join(lines) + "\n"
        apply = self.compiler.register(source_code, name, line_map, named=False)
        if plain:
            self.compiler.apply_code[apply] = (name, [mangle(p) for p in params], lines, line_map)
        return apply, plain, value

    def new_value_function(
        self,
        params: list[str],
        lines: list[str],
        places: list[tuple[Place, ...]],
        names: dict[str, str],
    ) -> tuple[Any, str] | None:
        """For a plain alter that modifies one member: a function of the same parameters
        giving the member's new value (its apply's body, returning instead of writing), and
        the member's name, or None. An update runs it for each alter of a round of plain
        alters, and writes the values once all ran (no dict of modifications per alter)."""
        if len(names) != 1:
            return None
        ((member, local),) = names.items()
        body = [*lines[: len(self.lines) - 1], f"    return {local}"]
        name = f"{self.name}_value"
        header = f"def {name}(rt, self, {', '.join(mangle(p) for p in params)}):"
        line_map = LineMap(self.title, self.source, [None, *self.spans], [(), *places[: len(body)]])
        source_code = header + "\n" + "\n".join(body) + "\n"
        return self.compiler.register(source_code, name, line_map, named=False), member[1:-1]

    def prologue(self, span: Span) -> None:
        """Count the call against the handler's limits (see ``leaf``)."""
        self.emit("rt.depth = _depth = rt.depth + 1", span)
        self.emit("rt.ops = _ops = rt.ops + 1", span)
        self.emit("if _depth > rt.max_depth or _ops > rt.max_ops: rt.limit()", span)

    def leaf(self, start: int) -> bool:
        """Whether the body emitted from line ``start`` on calls no compiled code (no
        rule, function, lambda, accessor or default, no list step). Such a body cannot
        nest calls or loop, so it is not counted against the limits: its prologue and
        epilogue are left out (its caller, or the list step that runs it, is counted)."""
        return not any(marker in line for line in self.lines[start:] for marker in _CALLS_CODE)

    def drop_prologue(self, at: int) -> None:
        del self.lines[at : at + 3]
        del self.spans[at : at + 3]
        del self.places[at : at + 3]

    def function(self, params: list[str], body: ast.Block, param_types: tuple[Type, ...]) -> Any:
        names = [self.declare(p) for p in params]
        at = len(self.lines)
        self.prologue(body.span)
        if self.kind == "alter":
            self.emit("_mods = {}", body.span)
        if self.kind == "function":
            self.emit("_result = None", body.span)
        self.block(body)
        if self.leaf(at):
            self.drop_prologue(at)
        else:
            self.emit("rt.depth -= 1", None)
        if self.kind == "alter":
            self.emit("return _mods", None)
        elif self.kind == "function":
            self.emit("return _result", None)
        self_param = "self, " if self.has_self else ""
        header = f"def {self.name}(rt, {self_param}{', '.join(names)}):"
        compiled = self.finish(header)
        self.one_candidate = self.kind == "rule" and self.has_self and not params and self.leaf(0)
        return compiled

    def own_alter(self) -> str | None:
        """The one alter of its own object the body requests (None: none, or several)."""
        alters = {alter for alter, _ in self.own_requests.values()}
        return alters.pop() if len(alters) == 1 else None

    def one_variant(self, apply: tuple[str, list[str], list[str], LineMap] | None = None) -> Any:
        """For a handler that calls no compiled code (``leaf``), requests alters of its own
        object only (one alter), and ends by writing one event in place (its last line at
        the top level): the same body run as a step's one event, taking no part in the
        step's requests and additions while it holds one request. Its end applies the
        request itself when the object's alter is plain (as the update would: after the
        body, the event's time, rule and object read before it) and gives back the event
        as (ticks, priority, rule, object); else it hands both to the step as the handler
        does and gives back None. None: the handler has no such variant. ``apply``: the
        code of the plain apply of the alter for the handler's own form (see
        ``Compiler.apply_code``), written into the variant for the objects whose alter it
        is (no call, no tuple of values); its lines keep their places."""
        lines, spans, places = self.lines, self.spans, self.places
        if len(self.own_adds) != 1 or len(lines) < 2 or lines[-2] not in self.own_adds:
            return None
        if lines[-2].startswith("     "):  # (in a block: it may not run)
            return None
        alters = {alter for alter, _ in self.own_requests.values()}
        if len(alters) > 1:
            return None
        requests = [i for i, line in enumerate(lines) if line in self.own_requests]
        replaced = {i + k for i in requests for k in range(6)} | {len(lines) - 2, len(lines) - 1}
        for i, line in enumerate(lines):
            if i in replaced:
                continue
            text = line.strip()
            if text.startswith(("return", "yield")) or any(
                marker in line for marker in _ONE_OUTSIDE
            ):
                return None
        new_lines = ["    _r = _NO_REQUEST"]
        new_spans: list[Span | None] = [None]
        new_places: list[tuple[Place, ...]] = [()]
        i = 0
        while i < len(lines) - 2:
            line = lines[i]
            if line in self.own_requests:
                alter, held = self.own_requests[line]
                indent = line[: len(line) - len(line.lstrip())]
                block = [
                    f"{indent}if _r is _NO_REQUEST: _r = {held}",
                    f"{indent}else: _r = _more_requests(rt, self, {alter!r}, _r, {held})",
                ]
                new_lines.extend(block)
                new_spans.extend([spans[i]] * 2)
                new_places.extend([(), ()])
                i += 6
                continue
            die = _ONE_DIE.fullmatch(line)
            if die is not None and all(
                line in ("    _r = _NO_REQUEST", "    _v = self.values") for line in new_lines
            ):
                first = _first_die(die.group(1), int(die.group(2)), places[i])
                new_lines.extend(text for text, _ in first)
                new_spans.extend([spans[i]] * len(first))
                new_places.extend(moved for _, moved in first)
                i += 1
                continue
            new_lines.append(line)
            new_spans.append(spans[i])
            new_places.append(places[i])
            i += 1
        ticks, priority, fn, arg = self.own_adds[lines[-2]]
        span = spans[-2]
        end = [
            f"    _n = ({ticks}, {priority}, {fn}, {arg})",
            "    if _r is _NO_REQUEST: return _n",
        ]
        # The lines after the body: each with its span, places and origin (None: the
        # handler's own).
        tail: Tail = [(line, span, (), None) for line in end]
        tail[0] = (end[0], span, _moved(places[-2], lines[-2], end[0]), None)
        if alters:
            (alter,) = alters
            name = repr(alter)
            tail += [
                ("    if _r is not _MANY_REQUESTS:", span, (), None),
                (f"        _a = self.form.plain_table.get({name})", span, (), None),
            ]
            if apply is not None:
                values_read = "    _v = self.values" in new_lines and not any(
                    line.lstrip().startswith("_v =")
                    for line in new_lines[1:]
                    if line != "    _v = self.values"
                )
                tail += _inlined_apply(apply, name, span, values_read)
            tail += [
                (line, span, (), None)
                for line in (
                    "        if _a is not None:",
                    "            _a(rt, self, (_r,))",
                    f"            if {name} not in self.altered:",
                    f"                rt.session.note_altered(((self, {name}),))",
                    "            return _n",
                    f"        rt.first_request = (self, {name}, _r)",
                )
            ]
        tail += [
            (line, span, (), None)
            for line in (
                "    rt.adds.append(_n)",
                "    if len(rt.adds) > rt.max_adds: rt.too_many_adds()",
            )
        ]
        origins: dict[int, tuple[str, SourceFile]] = {}
        for line, line_span, line_places, origin in tail:
            new_lines.append(line)
            new_spans.append(line_span)
            new_places.append(line_places)
            if origin is not None:
                origins[len(new_lines)] = origin  # (the header is index 0)
        name = f"{self.name}_one"
        source_code = f"def {name}(rt, self):\n" + "\n".join(new_lines) + "\n"
        line_map = LineMap(self.title, self.source, [None, *new_spans], [(), *new_places], origins)
        return self.compiler.register(source_code, name, line_map, named=False)

    def value_function(self, expr: ast.Expr, expected: Type | None, with_self: bool = False) -> Any:
        value = self.convert(self.expr(expr), expr, expected)
        self.emit(f"return {value}", expr.span)
        header = f"def {self.name}(rt, self):" if with_self else f"def {self.name}(rt):"
        return self.finish(header)

    # ------------------------------------------------------------ scopes

    def declare(self, name: str) -> str:
        python = mangle(name)
        self.scopes[-1][name] = python
        return python

    def local(self, name: str) -> str | None:
        for scope in reversed(self.scopes):
            if name in scope:
                return scope[name]
        return None

    def visible_locals(self) -> list[tuple[str, str]]:
        seen: dict[str, str] = {}
        for scope in self.scopes:
            seen.update(scope)
        return list(seen.items())

    # ------------------------------------------------------------ statements

    def block(self, block: ast.Block) -> None:
        self.scopes.append({})
        for statement in block.statements:
            self.statement(statement)
        self.scopes.pop()

    def statement(self, node: ast.Statement) -> None:
        if isinstance(node, ast.Assign):
            self.assign(node)
        elif isinstance(node, ast.Modify):
            self.modify(node.target, node.value, node.span)
        elif isinstance(node, ast.ExprStmt):
            if isinstance(node.expr, ast.Select):
                self.select(node.expr, None)
            else:
                code = self.expr(node.expr)
                if code != "None":  # what only emits statements (an alter request)
                    self.emit(code, node.span)
        elif isinstance(node, ast.If):
            self.if_statement(node)
        elif isinstance(node, ast.For):
            self.for_statement(node)
        elif isinstance(node, ast.TypedLocal):
            expected = self.compiler.types.get(id(node))
            value = self.convert(self.expr(node.value), node.value, expected)
            self.emit(f"{self.declare(node.name)} = {value}", node.span)
        else:
            self.local_definition(node.definition)

    def for_statement(self, node: ast.For) -> None:
        """Each step of the loop counts as an operation (as a list step with a lambda)."""
        items = self.expr(node.items)
        if isinstance(self.type_of(node.items), RangeT):
            items = f"_range_numbers({items})"
        self.scopes.append({})
        name = self.declare(node.name)
        self.emit(f"for {name} in {items}:", node.span)
        self.indent += 1
        self.emit("rt.ops = _o = rt.ops + 1", node.span)
        self.emit("if _o > rt.max_ops: rt.limit(False)", node.span)
        self.block(node.body)
        self.indent -= 1
        self.scopes.pop()

    def assign(self, node: ast.Assign) -> None:
        target = node.target
        if isinstance(target, ast.Member):
            self.modify(target, node.value, node.span)
            return
        if target.name == "result":
            expected = self.result_types[-1]
            value = self.convert(self.expr(node.value), node.value, expected)
            self.emit(f"{self.result_var[-1]} = {value}", node.span)
            return
        value = self.expr(node.value)
        python = self.local(target.name) or self.declare(target.name)
        self.emit(f"{python} = {value}", node.span)

    def modify(self, target: ast.Name | ast.Member, value: ast.Expr, span: Span) -> None:
        name = target.name
        ref = self.compiler.refs.get(id(target))
        expected = ref.type if ref is not None else None
        compiled = self.convert(self.expr(value), value, expected)
        self.emit(f"_mods[{name!r}] = {compiled}", span)
        self.modified.add(name)

    def if_statement(self, node: ast.If) -> None:
        """``if``, then each ``else if`` as an ``elif`` (so a long chain does not nest),
        unless its condition needs statements first: they go in an ``else``."""
        condition = self.expr(node.condition)
        self.emit(f"if {condition}:", node.condition.span)
        self.nested_block(node.then)
        indent = self.indent
        otherwise = node.otherwise
        while isinstance(otherwise, ast.If):
            mark = len(self.lines)
            condition = self.expr(otherwise.condition)
            if len(self.lines) > mark:  # statements for the condition: in an else
                self.lines[mark:] = ["    " + line for line in self.lines[mark:]]
                self.lines.insert(mark, "    " * self.indent + "else:")
                self.spans.insert(mark, None)
                self.indent += 1
                self.emit(f"if {condition}:", otherwise.condition.span)
            else:
                self.emit(f"elif {condition}:", otherwise.condition.span)
            self.nested_block(otherwise.then)
            otherwise = otherwise.otherwise
        if otherwise is not None:
            self.emit("else:", None)
            self.nested_block(otherwise)
        self.indent = indent

    def nested_block(self, block: ast.Block) -> None:
        self.indent += 1
        self.block_or_pass(block)
        self.indent -= 1

    def block_or_pass(self, block: ast.Block) -> None:
        before = len(self.lines)
        self.block(block)
        if len(self.lines) == before:
            self.emit("pass", None)

    def case_test(self, pattern: str, subject: str) -> str:
        """Whether ``case(pattern)`` matches: an enum value (compared by identity) is
        first looked at as itself, with no call (``case_match`` would find the same)."""
        value = self.compiler.namespace.get(pattern) if pattern.startswith("_k") else None
        if value.__class__ is EnumValue:
            return f"({pattern} is {subject} or _case_match({pattern}, {subject}))"
        return f"_case_match({pattern}, {subject})"

    def local_definition(self, definition: ast.Definition) -> None:
        if not isinstance(definition, ast.RuleDef | ast.FunctionDef):
            return
        params = tuple(ast.Param(p.span, p.name, p.type) for p in definition.params or ())
        result = definition.result if isinstance(definition, ast.FunctionDef) else None
        lam = ast.Lambda(definition.span, params, result, definition.body)
        closure = self.lambda_value(lam)
        python = self.declare(definition.name)
        self.emit(f"{python} = {closure}", definition.span)

    def select(self, node: ast.Select, result: str | None) -> None:
        subject = self.temp()
        self.emit(f"{subject} = {self.expr(node.subject)}", node.subject.span)
        keyword = "if"
        for arm in node.arms:
            if isinstance(arm, ast.CaseArm):
                tests = " or ".join(self.case_test(self.expr(v), subject) for v in arm.values)
                self.emit(f"{keyword} {tests}:", arm.span)
                self.indent += 1
                self.block_or_pass(arm.body)
                self.indent -= 1
            else:
                bound = self.compiler.types.get(id(arm)) or AnyT()
                rtype = self.compiler.constant(
                    self.compiler.runtime_type(bound), ("rtype", str(bound), id(arm))
                )
                self.emit(f"{keyword} _is_a({subject}, {rtype}):", arm.span)
                self.indent += 1
                self.scopes.append({})
                python = self.declare(arm.name)
                self.emit(f"{python} = {subject}", arm.span)
                self.block_or_pass(arm.body)
                self.scopes.pop()
                self.indent -= 1
            keyword = "elif"
        if node.default is not None:
            if keyword == "if":
                self.block(node.default)
            else:
                self.emit("else:", node.default.span)
                self.nested_block(node.default)

    # ------------------------------------------------------------ expressions

    def type_of(self, expr: ast.Expr) -> Type | None:
        return self.compiler.types.get(id(expr))

    def convert(self, value: str, expr: ast.Expr, expected: Type | None) -> str:
        """Insert a unit conversion where a quantity goes to another unit of its family."""
        found = self.type_of(expr)
        if isinstance(expected, UnitT) and isinstance(found, UnitT):
            if found.unit != expected.unit:
                return f"_convert({value}, {expected.unit!r})"
        elif isinstance(expected, UnitT) and found == INTEGER:
            return f"_with_unit({value}, {expected.unit!r}, {self.family(expected)})"
        elif (
            expected is not None
            and isinstance(expected, Prim)
            and expected.name == "real"
            and found == INTEGER
        ):
            return f"float({value})"
        return value

    def family(self, t: UnitT) -> str:
        return self.compiler.constant(t.family, ("family", id(t.family)))

    def expr(self, node: ast.Expr) -> str:
        method = getattr(self, "expr_" + type(node).__name__)
        return self.noted(method(node), node)

    def noted(self, result: str, node: ast.Expr) -> str:
        """``result``, the code of ``node``, noted for the places of errors in the line."""
        if len(result) > 4 and ("(" in result or "[" in result):  # code that can fail
            self.fragments.append((result, node.span))
        return result

    def expr_IntLit(self, node: ast.IntLit) -> str:
        return repr(node.value)

    def expr_RealLit(self, node: ast.RealLit) -> str:
        return repr(node.value)

    def expr_BoolLit(self, node: ast.BoolLit) -> str:
        return "True" if node.value else "False"

    def expr_StringLit(self, node: ast.StringLit) -> str:
        if node.kind is None or node.kind == "string":
            return repr(node.value)
        return self.compiler.constant(
            TypedString(node.kind, node.value), ("typed", node.kind, node.value)
        )

    def expr_DiceLit(self, node: ast.DiceLit) -> str:
        if node.sides < 1 or node.count > 10_000:
            return f"_dice_of({node.count}, {node.sides})"
        return self.compiler.constant(
            Dice.of(node.count, node.sides), ("dice", node.count, node.sides)
        )

    def expr_DiceOf(self, node: ast.DiceOf) -> str:
        return f"_dice_of({self.expr(node.count)}, {self.expr(node.sides)})"

    def expr_WithUnit(self, node: ast.WithUnit) -> str:
        unit_type = self.type_of(node)
        if not isinstance(unit_type, UnitT):
            return "None"
        value = node.value
        if isinstance(value, ast.IntLit | ast.RealLit):
            quantity = Quantity.of(value.value, node.unit, unit_type.family)
            return self.compiler.constant(quantity, ("q", value.value, node.unit))
        return f"_with_unit({self.expr(value)}, {node.unit!r}, {self.family(unit_type)})"

    def expr_RangeExpr(self, node: ast.RangeExpr) -> str:
        return (
            f"_range_of({self.expr(node.low)}, {self.expr(node.high)}, "
            f"{node.low_open}, {node.high_open})"
        )

    def expr_ListLit(self, node: ast.ListLit) -> str:
        items = [self.expr(item) for item in node.items]
        return "(" + "".join(f"{item}, " for item in items) + ")"

    def expr_FormLit(self, node: ast.FormLit) -> str:
        form_type = self.type_of(node)
        if isinstance(form_type, ListT):
            return "()"  # `{}` where a list is expected
        values = []
        form = form_type.symbol if isinstance(form_type, FormT) else None
        for member in node.members:
            if not isinstance(member, ast.VarDef):
                continue
            expected = None
            if form is not None:
                target = form.lookup(member.name)
                expected = target.type if isinstance(target, FieldSymbol | VarSymbol) else None
            value = self.convert(self.expr(member.value), member.value, expected)
            values.append(f"{member.name!r}: {value}")
        mapping = "{" + ", ".join(values) + "}"
        if form is None:
            return f"rt.anon({mapping})"
        info = self.compiler.constant(self.compiler.form_info(form), ("form", id(form)))
        return f"rt.new({info}, {mapping})"

    def expr_TypeValue(self, node: ast.TypeValue) -> str:
        found = self.type_of(node)
        inner = found.type if isinstance(found, TypeOf) else found
        if inner is None:
            return "None"
        return self.compiler.constant(
            self.compiler.runtime_type(inner), ("rtype", str(inner), id(node))
        )

    def expr_Lambda(self, node: ast.Lambda) -> str:
        return self.lambda_value(node)

    def lambda_parts(self, node: ast.Lambda) -> tuple[str, str]:
        """Compile a lambda: the name of its code and the tuple of values it captures."""
        captured = self.visible_locals()
        found = self.type_of(node)
        result_type = found.result if isinstance(found, FuncT) else None
        inner = Emitter(
            self.compiler,
            self.source,
            f"lambda in {self.title}",
            has_self=False,
            kind="lambda",
            result_type=result_type,
        )
        capture_names = [python for _, python in captured]
        if self.has_self:
            capture_names.insert(0, "self")
        inner.scopes = [dict(captured)]
        inner.has_self = self.has_self
        params = [inner.declare(p.name) for p in node.params]
        inner.prologue(node.span)
        if isinstance(node.body, ast.Block):
            inner.emit("_result = None", node.span)
            inner.block(node.body)
            ending = "return _result"
        else:
            value = inner.expr(node.body)
            ending = f"return {value}"
        if inner.leaf(0):
            inner.drop_prologue(0)
        else:
            inner.emit("rt.depth -= 1", None)
        inner.emit(ending, None if isinstance(node.body, ast.Block) else node.body.span)
        # Capture only what the body uses (nested lambdas' captures included).
        code = "\n".join(inner.lines)
        capture_names = [
            name
            for name in capture_names
            if re.search(rf"\b{re.escape(name)}\b", code) or (name == "self" and "_v[" in code)
        ]
        if capture_names:
            inner.lines.insert(0, f"    {', '.join(capture_names)}, = _cap")
            inner.spans.insert(0, node.span)
            inner.places.insert(0, ())
        header = f"def {inner.name}(rt, _cap, {', '.join(params)}):"
        inner.finish(header)
        capture = "(" + "".join(f"{name}, " for name in capture_names) + ")"
        return inner.name, capture

    def lambda_value(self, node: ast.Lambda) -> str:
        """A lambda's value. ``@{ x.rule; }`` is the rule and the object, as when it is
        written in place in ``schedule.add`` (see ``bound_rule``): an event runs the same
        code however its handler was made, so the limits that look at handlers (the
        waiting events of a step that multiplies) treat both alike."""
        bound = None if node.params else self.bound_rule(node)
        code, capture = bound if bound is not None else self.lambda_parts(node)
        return f"_Closure({code}, {capture}, {id(node)})"

    def expr_Select(self, node: ast.Select) -> str:
        holder = self.temp()
        self.emit(f"{holder} = None", node.span)
        self.result_var.append(holder)
        self.result_types.append(self.type_of(node))
        self.select(node, holder)
        self.result_var.pop()
        self.result_types.pop()
        return holder

    def expr_Conditional(self, node: ast.Conditional) -> str:
        """``if (c) a else b``: an inline Python conditional, or statements when a branch
        needs some (a select, a request): only the chosen branch may run them."""
        condition = self.expr(node.condition)
        start = len(self.lines)
        then = self.expr(node.then)
        middle = len(self.lines)
        otherwise = self.expr(node.otherwise)
        if len(self.lines) == start:
            return f"({then} if {condition} else {otherwise})"
        then_lines = self.lines[start:middle], self.spans[start:middle], self.places[start:middle]
        else_lines = self.lines[middle:], self.spans[middle:], self.places[middle:]
        del self.lines[start:], self.spans[start:], self.places[start:]
        holder = self.temp()
        self.emit(f"if {condition}:", node.condition.span)
        for (lines, spans, places), value, branch in (
            (then_lines, then, node.then),
            (else_lines, otherwise, node.otherwise),
        ):
            if branch is node.otherwise:
                self.emit("else:", None)
            self.lines.extend("    " + line for line in lines)
            self.spans.extend(spans)
            self.places.extend(tuple((a + 4, b + 4, s) for a, b, s in p) for p in places)
            self.indent += 1
            self.emit(f"{holder} = {value}", branch.span)
            self.indent -= 1
        return holder

    def expr_Unary(self, node: ast.Unary) -> str:
        operand = self.expr(node.operand)
        if node.op == "!":
            return f"(not {operand})"
        return f"(-{operand})"

    def expr_Binary(self, node: ast.Binary) -> str:
        """A binary operation. A chain of ``&`` (or of ``|``) becomes one Python ``and``
        (``or``), and a long chain of other operations (``a + b - c + ...``, which
        nests to the left) is folded by ``ops.fold``: generated code nests no deeper for
        a chain of a thousand terms than for two (Python bounds both)."""
        op = node.op
        if op in ("&", "|"):
            operands = [node.right]
            left = node.left
            while isinstance(left, ast.Binary) and left.op == op:
                operands.append(left.right)
                left = left.left
            operands.append(left)
            word = " and " if op == "&" else " or "
            return "(" + word.join(self.expr(item) for item in reversed(operands)) + ")"
        chain: list[ast.Binary] = []
        bottom: ast.Expr = node
        while isinstance(bottom, ast.Binary) and bottom.op not in ("&", "|"):
            chain.append(bottom)
            bottom = bottom.left
        if len(chain) > FOLD_CHAINS_OVER:
            chain.reverse()
            values = [self.expr(bottom), *(self.expr(link.right) for link in chain)]
            names = tuple(self.operation(link)[0] for link in chain)
            functions = self.compiler.constant(
                tuple(_FOLDED[name] for name in names), ("fold", names)
            )
            return f"_fold(({', '.join(values)},), {functions})"
        if op == "+" and isinstance(node.left, ast.Binary):
            joined = self.concat_chain(node)
            if joined is not None:
                return joined
        compared = self.sum_compared(node)
        if compared is not None:
            return compared
        template = self.operation(node)[1]
        return template.format(l=self.expr(node.left), r=self.expr(node.right), op=op)

    def sum_compared(self, node: ast.Binary) -> str | None:
        """``a + b < c`` (or ``<=``, ``>``, ``>=``) of quantities, ``c`` a read of a value,
        as ``ops.sum_compared`` (no quantity made for the sum); None for other code."""
        compare = _ORDERS.get(node.op)
        total = node.left
        if compare is None or not isinstance(total, ast.Binary) or total.op != "+":
            return None
        parts = (total.left, total.right, node.right)
        if not all(isinstance(self.type_of(part), UnitT) for part in parts):
            return None
        first, second, limit = map(self.expr, parts)
        if _INERT.match(limit) or _READ.match(limit):  # (it may be worked out first)
            return f"_sum_compared({first}, {second}, {limit}, {compare})"
        summed = self.noted(self.operation(total)[1].format(l=first, r=second, op="+"), total)
        return self.operation(node)[1].format(l=summed, r=limit, op=node.op)

    def concat_chain(self, node: ast.Binary) -> str | None:
        """A chain of texts joined, ``a + " is " + b + "."``, as ``joined`` parts (three or
        four parts joined at once, not one call per ``+``); None
        when ``node`` joins fewer than three. Each call's first two parts may be any
        code, the others only code that does nothing but read a value (a literal, a
        local, a constant, a member of ``self``): the parts are worked out in the same
        order as by nested ``concat`` calls, and a length check, which a text longer
        than ``MAX_TEXT`` fails, only moves past such reads."""
        links: list[ast.Binary] = []
        bottom: ast.Expr = node
        while (
            isinstance(bottom, ast.Binary)
            and bottom.op == "+"
            and self.operation(bottom)[0] == "concat"
        ):
            links.append(bottom)
            bottom = bottom.left
        if len(links) < 2:
            return None
        parts = [self.expr(bottom), *(self.expr(link.right) for link in reversed(links))]
        joined, rest = parts[0], parts[1:]
        while rest:
            size = 1
            while size < 3 and size < len(rest) and _INERT.match(rest[size]):
                size += 1
            group, rest = rest[:size], rest[size:]
            if size == 1:
                joined = f"_concat({joined}, {group[0]})"
            else:  # (three or four parts)
                joined = self.joined([joined, *group])
        return joined

    def joined(self, parts: list[str]) -> str:
        """``concat(concat(concat(a, b), c), d)`` of ``parts`` (three or four) written out
        in the rule's code: a text literal is joined as it is, any other part as a text
        (a whole number as ``str`` shows it, anything else as ``ops.text_of`` does), and
        the text made is checked once against the limit (a text only grows as parts join
        it, so the last length checked is the longest)."""
        # As one f-string (adjacent literals are one) when every part can be written in
        # one: the text is made at once, not again for each part joined, and a whole
        # number is formatted as ``str`` writes it, with no call.
        formatted = not any(_NOT_IN_F_STRING.search(p) for p in parts if not _TEXT_LITERAL.match(p))
        pieces = []
        for part in parts:
            if _TEXT_LITERAL.match(part):
                pieces.append(part)
                continue
            if _NAME.match(part):  # (a local or a constant: read again)
                held = first = part
            else:
                held = self.temp()
                first = f"({held} := {part})"
            if formatted:
                pieces.append(
                    f'f"{{({held} if {first}.__class__ is str or {held}.__class__ is int'
                    f' else _text_of({held}))}}"'
                )
                continue
            pieces.append(
                f"({held} if {first}.__class__ is str else str({held})"
                f" if {held}.__class__ is int else _text_of({held}))"
            )
        text = self.temp()
        made = " ".join(pieces) if formatted else " + ".join(pieces)
        return f"({text} if len({text} := {made}) <= _MAX_TEXT else _text_too_long())"

    def operation(self, node: ast.Binary) -> tuple[str, str]:
        """What a binary operation (not ``&`` or ``|``) does, by the types of its
        operands: a name in ``_FOLDED`` and the code, with ``{l}``, ``{r}`` and
        ``{op}`` for the operands and the operator."""
        op = node.op
        left_type, right_type = self.type_of(node.left), self.type_of(node.right)
        if op == "+" and (left_type == STRING or right_type == STRING):
            return "concat", "_concat({l}, {r})"
        if op == "*" and left_type == INTEGER and right_type == INTEGER:
            return "int_mul", "_int_mul({l}, {r})"
        if op == "/":
            if left_type == INTEGER and right_type == INTEGER:
                return "int_div", "_int_div({l}, {r})"
            return "num_div", "_num_div({l}, {r})"
        if op == "%":
            if left_type == INTEGER and right_type == INTEGER:
                return "int_mod", "_int_mod({l}, {r})"
            return "num_mod", "_num_mod({l}, {r})"
        return op, "({l} {op} {r})"

    # ------------------------------------------------------------ names and calls

    def expr_Name(self, node: ast.Name) -> str:
        return self.reference(node, None)

    def expr_Member(self, node: ast.Member) -> str:
        return self.reference(node, None)

    def expr_Call(self, node: ast.Call) -> str:
        return self.reference(node.func, node.args)

    def reference(self, node: ast.Expr, args: tuple[ast.Expr, ...] | None) -> str:
        """A name or member, called with ``args`` (None: not called, or no parentheses)."""
        ref = self.compiler.refs.get(id(node))
        if not isinstance(node, ast.Name | ast.Member) or ref is None:
            pair, arguments = self.temp(), self.arguments(args or (), None)
            extra = f", {arguments}" if arguments else ""
            return f"({pair} := _callee({self.expr(node)}))[0](rt, {pair}[1]{extra})"
        if isinstance(node, ast.Name) and node.name == "self":
            return "self"
        if isinstance(node, ast.Name) and node.name == "result":
            return self.result_var[-1]
        if (
            isinstance(node, ast.Member)
            and node.name == "loadXML"
            and isinstance(node.target, ast.StringLit)
        ):
            return self.load_xml(node.target)
        if ref.call is not None:
            return self.call(node, ref, args or ())
        value = self.value(node, ref)
        if args is not None:
            param_types = ref.type.params if isinstance(ref.type, FuncT) else None
            return self.call_value(node, value, args, param_types)
        return value

    def arguments(self, args: tuple[ast.Expr, ...], params: tuple[Type, ...] | None) -> str:
        compiled = []
        for index, arg in enumerate(args):
            expected = params[index] if params is not None and index < len(params) else None
            compiled.append(self.convert(self.expr(arg), arg, expected))
        return ", ".join(compiled)

    def call_value(
        self,
        node: ast.Name | ast.Member,
        value: str,
        args: tuple[ast.Expr, ...],
        params: tuple[Type, ...] | None,
    ) -> str:
        ref = self.compiler.refs.get(id(node))
        symbol = ref.symbol if ref is not None else None
        if (
            isinstance(symbol, FieldSymbol)
            and isinstance(node, ast.Member)
            and symbol.name == "add"
            and _is_prelude(symbol)
            and len(args) == 1
            and isinstance(args[0], ast.FormLit)
            and self.target_of(node) == "rt.schedule"
        ):
            in_place = self.add_in_place(args[0], node.span)  # the engine's own schedule.add
            if in_place is not None:
                return in_place
        arguments = self.arguments(args, params)
        extra = f", {arguments}" if arguments else ""
        if isinstance(symbol, FieldSymbol) and isinstance(symbol.parent, FormSymbol):
            target = self.target_of(node)
            if target == "rt.schedule" and symbol.name == "add" and _is_prelude(symbol):
                return f"rt.add_event({arguments})"  # the engine's own schedule.add
            method = self.compiler.native_method(symbol, target)
            if method is not None:
                return f"rt.{method}({target}{extra})"
            pair = self.temp()
            return f"({pair} := _field_callee({target}, {symbol.name!r}))[0](rt, {pair}[1]{extra})"
        pair = self.temp()
        return f"({pair} := _callee({value}))[0](rt, {pair}[1]{extra})"

    def request_own(self, alter: str, value: str, span: Span) -> str:
        """Request ``self``'s alter ``alter`` with ``value``, as ``Runtime.request`` does
        (the first request of a step waits alone; once grouped, the others go straight to
        their group); emits statements only."""
        first, values, new = self.temp(), self.temp(), self.temp()
        if value.isidentifier():
            held = value  # a local (its value cannot change before it is used)
        else:
            held = self.temp()
            self.emit(f"{held} = {value}", span)
        self.emit(f"{first} = rt.first_request", span)
        self.own_requests[self.lines[-1]] = (alter, held)
        self.emit(f"if {first} is None: rt.first_request = (self, {alter!r}, {held})", span)
        self.emit(f"elif {first} is _GROUPED:", span)
        self.indent += 1
        # (One look-up of the key: most keys are new, in a step of many events.)
        self.emit(f"{values} = rt.requests.setdefault((self, {alter!r}), {new} := [{held}])", span)
        self.emit(f"if {values} is not {new}: {values}.append({held})", span)
        self.indent -= 1
        self.emit(f"else: rt.request(self, {alter!r}, {held})", span)
        return "None"

    def add_in_place(self, literal: ast.FormLit, span: Span) -> str | None:
        """``schedule.add({ticks = ...; priority = ...; handler = @{...};}:Event)``, the
        usual way to schedule: the event goes to the engine as its time and handler, with
        no Event object made (``schedule.events`` makes one if a rule asks). None: not
        that form. ``span``: the call's place."""
        form_type = self.type_of(literal)
        if not isinstance(form_type, FormT) or form_type.symbol.name != "Event":
            return None
        if not _is_prelude(form_type.symbol):
            return None
        members: dict[str, ast.Expr] = {}
        for member in literal.members:
            if not isinstance(member, ast.VarDef) or member.type is not None:
                return None
            if member.name not in ("ticks", "priority", "handler") or member.name in members:
                return None
            members[member.name] = member.value
        if "ticks" not in members:
            return None
        ticks, _, later = self.ticks(members["ticks"])
        priority = self.expr(members["priority"]) if "priority" in members else "0"
        handler = members.get("handler")
        if handler is None:
            fn, arg = "_no_handler", "None"
        elif isinstance(handler, ast.Lambda) and not handler.params:
            bound = self.bound_rule(handler)
            if bound is not None:
                fn, arg = bound
            else:
                fn, arg = self.lambda_parts(handler)
        else:
            held = self.temp()
            self.emit(f"{held} = _handler_call({self.expr(handler)})", handler.span)
            fn, arg = f"{held}[0]", f"{held}[1]"
        if later and _small_whole(priority):
            # Now or later by a constant, at a constant priority: nothing to look at. The
            # handler may schedule so many (Runtime.max_adds): counted here, at the place.
            adds = self.temp()
            self.emit(f"({adds} := rt.adds).append(({ticks}, {priority}, {fn}, {arg}))", span)
            self.own_adds[self.lines[-1]] = (ticks, priority, fn, arg)
            self.emit(f"if len({adds}) > rt.max_adds: rt.too_many_adds()", span)
            return "None"
        return f"rt.add_at({ticks}, {priority}, {fn}, {arg})"

    def ticks(self, expr: ast.Expr) -> tuple[str, int | None, bool]:
        """A game time as whole ticks: the code, its value when it is a constant, and
        whether it is surely not before the step's time (``schedule.current`` plus a
        constant that is not negative). Sums and differences of times are added as ticks
        (a quantity keeps its magnitude in ticks, so this is what its ``+`` does)."""
        if isinstance(expr, ast.Binary) and expr.op in ("+", "-"):
            left, right = self.type_of(expr.left), self.type_of(expr.right)
            if isinstance(left, UnitT) and isinstance(right, UnitT) and left.family is right.family:
                code_l, const_l, later_l = self.ticks(expr.left)
                code_r, const_r, later_r = self.ticks(expr.right)
                code = f"({code_l} {expr.op} {code_r})"
                const = None
                if const_l is not None and const_r is not None:
                    const = const_l - const_r if expr.op == "-" else const_l + const_r
                if expr.op == "-":
                    later = later_l and const_r is not None and const_r <= 0
                else:
                    later = (later_l and const_r is not None and const_r >= 0) or (
                        later_r and const_l is not None and const_l >= 0
                    )
                return code, const, later
        if isinstance(expr, ast.WithUnit) and isinstance(expr.value, ast.IntLit | ast.RealLit):
            found = self.type_of(expr)
            if isinstance(found, UnitT) and found.family.integer:
                value = Quantity.of(expr.value.value, expr.unit, found.family).value
                if isinstance(value, int):
                    return repr(value), value, False
        code = self.convert(self.expr(expr), expr, self.type_of(expr))
        if code == "rt.now":
            return "rt.tick", None, True
        return f"_ticks_of({code})", None, False

    def bound_rule(self, handler: ast.Lambda) -> tuple[str, str] | None:
        """For a handler ``@{ x.rule; }`` (a rule with no parameters, of an object the
        handler can see): the rule and the object, looked up now (a form's rules never
        change, and the lambda would capture ``x`` as it is now)."""
        body = handler.body
        if not isinstance(body, ast.Block) or len(body.statements) != 1:
            return None
        statement = body.statements[0]
        if not isinstance(statement, ast.ExprStmt):
            return None
        called = statement.expr
        if isinstance(called, ast.Call):
            if called.args:
                return None
            called = called.func
        if not isinstance(called, ast.Name | ast.Member):
            return None
        ref = self.compiler.refs.get(id(called))
        if ref is None or ref.call is None or ref.call.kind == "member" or ref.call.alter:
            return None
        symbol = ref.symbol
        if not (
            isinstance(symbol, CallableSymbol)
            and isinstance(symbol.parent, FormSymbol)
            and not ref.call.params
            and not _is_prelude(symbol)
        ):
            return None
        if isinstance(called, ast.Member) and not self.fixed_name(called.target):
            return None  # x.y.rule, or a member y.rule: y is read when the handler runs
        target = self.target_of(called)
        if target == "self" and not self.has_self:
            return None
        name = repr(ref.call.name)
        if target == "self":
            alias = self.compiler.rule_alias(symbol, ref.call.name)
            if alias is not None:  # (self is never absent: no error to raise on the way)
                return alias, "self"
            return f"(self.form.vtable.get({name}) or _rule_of(self, {name}))", "self"
        held = self.temp()
        self.emit(f"{held} = {target}", handler.span)
        return f"_rule_of({held}, {name})", held

    def fixed_name(self, node: ast.Expr) -> bool:
        """Whether ``node`` names a value that stays the same while a lambda waits: a local
        (a lambda captures its value), ``self`` or a value of a section."""
        if not isinstance(node, ast.Name):
            return False
        if node.name == "self":
            return self.has_self
        ref = self.compiler.refs.get(id(node))
        symbol = ref.symbol if ref is not None else None
        if isinstance(symbol, LocalSymbol):
            return True
        return isinstance(symbol, VarSymbol) and not isinstance(
            symbol.parent, FormSymbol | EnumSymbol
        )

    def target_of(self, node: ast.Name | ast.Member) -> str:
        if isinstance(node, ast.Member):
            return self.expr(node.target)
        return "self"

    def value(self, node: ast.Name | ast.Member, ref: Ref) -> str:
        symbol = ref.symbol
        if isinstance(node, ast.Name) and isinstance(symbol, LocalSymbol):
            python = self.local(node.name)
            return python if python is not None else mangle(node.name)
        if isinstance(symbol, VarSymbol) and not isinstance(symbol.parent, FormSymbol | EnumSymbol):
            return f"rt.g[{self.compiler.program.value_index[id(symbol)]}]"
        if isinstance(symbol, FieldSymbol) and not isinstance(
            symbol.parent, FormSymbol | EnumSymbol
        ):
            if symbol.name in ENGINE_VALUES:
                return f"rt.{symbol.name}"
            return f"rt.engine_value({symbol.name!r})"
        if isinstance(symbol, FieldSymbol | VarSymbol):
            target = self.target_of(node)
            if target == "rt.schedule" and symbol.name == "events" and _is_prelude(symbol):
                return "rt.pending_events()"  # the engine's queue, as Event objects
            if target == "self" and self.has_self:
                # The object's own member: read at once. (When it has no value, the engine
                # turns the KeyError of this line into a RuleError that says so.)
                return f"_v[{symbol.name!r}]"
            return f"_member({target}, {symbol.name!r})"
        if isinstance(symbol, SectionSymbol):
            return "None"
        if isinstance(symbol, EnumValueSymbol) and symbol.enum is not None:
            info = self.compiler.enum_info(symbol.enum)
            return self.compiler.constant(info.values[symbol.name], ("enum", id(symbol)))
        if isinstance(ref.type, TypeOf):
            return self.compiler.constant(
                self.compiler.runtime_type(ref.type.type), ("rtype", str(ref.type.type), id(node))
            )
        if not isinstance(node, ast.Member):
            return "None"
        target_type = self.type_of(node.target)
        if node.name == "inherited" and isinstance(target_type, TypeOf):
            return self.compiler.constant("inherited", ("inherited",))
        if isinstance(target_type, EnumT | AnonFormT | AnyT) or isinstance(ref.type, AnyT):
            return f"_member({self.expr(node.target)}, {node.name!r})"
        return "None"

    def call(self, node: ast.Name | ast.Member, ref: Ref, args: tuple[ast.Expr, ...]) -> str:
        assert ref.call is not None
        symbol = ref.symbol
        signature = ref.call
        if signature.kind in ("member", "builtin"):
            return self.builtin(node, signature.name, args)
        params = signature.params
        if signature.alter:
            target = (
                self.target_of(node)
                if isinstance(node, ast.Member)
                or symbol is None
                or isinstance(symbol.parent, FormSymbol)
                else "None"
            )
            element = params[0].element if params and isinstance(params[0], ListT) else None
            value = self.convert(self.expr(args[0]), args[0], element) if args else "None"
            if target == "self" and self.has_self:
                # The object's own alter (the checker found it): grouped right here, as
                # Runtime.request does.
                return self.request_own(signature.name, value, node.span)
            return f"rt.request({target}, {signature.name!r}, {value})"
        arguments = self.arguments(args, params)
        extra = f", {arguments}" if arguments else ""
        if isinstance(symbol, CallableSymbol) and isinstance(symbol.parent, FormSymbol):
            target = self.target_of(node)
            if target == "rt.schedule" and signature.name == "current" and _is_prelude(symbol):
                return "rt.now"  # the prelude's accessor `current`: the time of the step
            if (target == "self" and self.has_self) or target in _ENGINE_OBJECTS:
                # A rule of the object's own form, or of an object the engine made (always
                # there): looked up in its form's table at once.
                name = repr(signature.name)
                return (
                    f"({target}.form.vtable.get({name}) or _rule_of({target}, {name}))"
                    f"(rt, {target}{extra})"
                )
            held = self.temp()
            return f"_rule_of({held} := {target}, {signature.name!r})(rt, {held}{extra})"
        if isinstance(symbol, CallableSymbol) and isinstance(symbol.parent, EnumSymbol):
            # An enum's own rule (see ``Compiler.fill_enum``), with its value as ``self``.
            return f"{self.compiler.global_name(symbol)}(rt, {self.target_of(node)}{extra})"
        if isinstance(symbol, CallableSymbol):
            return f"{self.compiler.global_name(symbol)}(rt{extra})"
        return "None"

    def builtin(self, node: ast.Name | ast.Member, name: str, args: tuple[ast.Expr, ...]) -> str:
        if any(isinstance(arg, ast.NamedArg) for arg in args) and isinstance(node, ast.Member):
            # ``T.input(min = a, max = b, default = d)``: each given by name (or None).
            named = {arg.name: arg.value for arg in args if isinstance(arg, ast.NamedArg)}
            given = [self.expr(named[n]) if n in named else "None" for n in _BOUNDS]
            return f"_bounded_input_marker({self.expr(node.target)}, {', '.join(given)})"
        compiled = [self.expr(arg) for arg in args]
        if isinstance(node, ast.Name):  # min(a, b), max(a, b, c)
            return GLOBAL_CODE[name].format(a=", ".join(compiled))
        receiver_type = self.type_of(node.target)
        target = self.expr(node.target)
        if name == "type":
            return f"rt.type_of({target})"
        if isinstance(receiver_type, TypeOf):
            return self.type_builtin(receiver_type.type, target, name, compiled, args)
        if name == "sum" and isinstance(receiver_type, ListT) and receiver_type.element == INTEGER:
            return f"sum({target})"  # what _list_sum does, for whole numbers
        if name == "roll" and receiver_type == Prim("dice"):
            dice = node.target
            if isinstance(dice, ast.DiceLit) and dice.count == 1 and 1 <= dice.sides <= MAX_SIDES:
                return f"rt.roll({dice.sides})"  # one die: what Dice.roll does
            if (
                isinstance(dice, ast.DiceLit)
                and 2 <= dice.count <= MAX_DICE
                and 1 <= dice.sides <= MAX_SIDES
            ):
                return f"_roll_dice(rt, {dice.count}, {dice.sides})"  # what _dice_roll does
        family = builtins.family_of(receiver_type) if receiver_type is not None else None
        template = code_for(family, name) if family is not None else None
        if template is None:
            return "None"
        return template.format(
            t=target,
            a=", ".join(compiled),
            a0=compiled[0] if compiled else "None",
            a1=compiled[1] if len(compiled) > 1 else "None",
        )

    def type_builtin(
        self, inner: Type, target: str, name: str, compiled: list[str], args: tuple[ast.Expr, ...]
    ) -> str:
        if name == "input" and not compiled and re.fullmatch(r"_k\d+", target):
            # ``T.input`` of a type written in the program: one marker, made once (it is
            # immutable, and a question is asked with it each time its rule runs).
            marker = ops.input_marker(self.compiler.namespace[target])
            return self.compiler.constant(marker, ("input", target))
        if name in ("input", "choice", "choices"):
            extra = "".join(f", {value}" for value in compiled)
            return f"_{name}_marker({target}{extra})"
        if name == "empty":
            return "_EMPTY_DICT" if isinstance(inner, DictT) else "()"
        if name == "values" and isinstance(inner, EnumT):
            info = self.compiler.enum_info(inner.symbol)
            return self.compiler.constant(tuple(info.values.values()), ("values", id(info)))
        if isinstance(inner, UnitT) and name in ("ceil", "floor", "round"):
            return f"{compiled[0]}.rounded({inner.unit!r}, {name!r})"
        return "None"

    def load_xml(self, url: ast.StringLit) -> str:
        # The file as the checker read it (it is not read again).
        found = self.compiler.result.checker.xml_files.get(id(url))
        text = found.text if found is not None else ""
        if found is not None and found.path is not None:
            self.compiler.program.read_files[found.path.resolve()] = text
        return self.compiler.constant(TypedString("xml", text), ("xmlfile", id(url)))


# Code that only reads a value (a text or number literal, a local, a constant, a member of
# ``self``): what ``Emitter.concat_chain`` may read before a length check.
_TEXT_LITERAL = re.compile(r"""(?:'[^'\\]*'|"[^"\\]*")\Z""")
# The engine's values and the program's, read (see ``Emitter.sum_compared``).
_READ = re.compile(r"rt\.(?:now|tick|g\[\d+\])\Z")
# A comparison of numbers: the function of the operator module that makes it.
_ORDERS = {"<": "_order_lt", "<=": "_order_le", ">": "_order_gt", ">=": "_order_ge"}
_NAME = re.compile(r"(?:l_\w+|_k\d+)\Z")
# What the code of an f-string's field cannot hold (Python 3.11): the f-string's quote, a
# backslash, a comment.
_NOT_IN_F_STRING = re.compile(r'["\\#]')
_INERT = re.compile(r"""(?:'[^'\\]*'|"[^"\\]*"|-?\d+|l_\w+|_k\d+|_v\['[^'\\]*'\])\Z""")

# A chain of more binary operations than this is folded (see ``Emitter.expr_Binary``).
FOLD_CHAINS_OVER = 16
# The operations a folded chain may hold.
_FOLDED: dict[str, Callable[[Any, Any], Any]] = {
    "concat": ops.concat,
    "int_mul": ops.int_mul,
    "int_div": ops.int_div,
    "num_div": ops.num_div,
    "int_mod": ops.int_mod,
    "num_mod": ops.num_mod,
    "+": operator.add,
    "-": operator.sub,
    "*": operator.mul,
    "==": operator.eq,
    "!=": operator.ne,
    "<": operator.lt,
    ">": operator.gt,
    "<=": operator.le,
    ">=": operator.ge,
}


def compile_program(result: CheckResult) -> CompiledProgram:
    """Compile a checked program (it must have no errors)."""
    with deeper(), collector_paused():
        return Compiler(result).compile()


def _small_whole(code: str) -> bool:
    """Whether ``code`` is a whole number the queue takes as a priority with no look (one
    of its narrow layout: see ``ops.NARROW_PRIORITY``)."""
    try:
        value = int(code.strip("()"))
    except ValueError:
        return False
    return -ops.NARROW_PRIORITY <= value < ops.NARROW_PRIORITY


# The definitions that give a member of their name a value or a rule.
_DEFINITIONS = (ast.VarDef, ast.RuleDef, ast.FunctionDef, ast.AccessorDef, ast.AlterDef)
# ... and those that make a form's member of their name another (a declaration).
_WRITING = (*_DEFINITIONS, ast.FieldDecl)


def _is_prelude(symbol: Symbol) -> bool:
    """Whether a symbol is declared by the bundled prelude (the engine implements it)."""
    return symbol.source.name.startswith("<")
