"""The checker: declarations, types and names of a whole program.

It walks every symbol once: resolves the types that definitions name, infers the types
of values (lazily, so order does not matter, and circular values are reported), checks
forms (extends, override), enums (every value has the same members) and every body
(see :mod:`lore.semantics.bodies`). It reports all problems, not the first.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator

from lore.semantics.context import Context
from lore.semantics.declare import Declarer
from lore.semantics.nesting import check_nesting
from lore.semantics.program import Module, Program
from lore.semantics.symbols import (
    BuiltinTypeSymbol,
    CallableSymbol,
    Container,
    EnumSymbol,
    EnumValueSymbol,
    FieldSymbol,
    FormSymbol,
    SectionSymbol,
    Symbol,
    VarSymbol,
)
from lore.semantics.table_check import check_sheets
from lore.semantics.types import (
    ANY,
    BOOLEAN,
    PRIMITIVES,
    UNKNOWN,
    VOID,
    DictT,
    EnumT,
    FormT,
    FuncT,
    ListT,
    RangeT,
    Type,
    UnitT,
    assignable,
    common_type,
    has_unknown,
    is_lenient,
)
from lore.semantics.units import UnitError, UnitRegistry, basic_units
from lore.syntax import ast
from lore.syntax.diagnostics import Diagnostic, Severity, with_article
from lore.syntax.source import SourceFile, Span

BUILTIN_TYPES: dict[str, Type] = {"boolean": BOOLEAN, "any": ANY}
MAX_DIAGNOSTICS = 1000
# How many values (`a = b; b = c; ...`) the inference of one value follows at a time.
MAX_VALUE_CHAIN = 64

CIRCLE_HINT = "values may not be defined in a circle (rules and forms may be): make one a rule"


class Checker:
    """Check a loaded program; ``diagnostics`` holds what it found."""

    def __init__(self, program: Program) -> None:
        from lore.semantics.bodies import BodyChecker

        self.program = program
        self.diagnostics: list[Diagnostic] = list(program.diagnostics)
        prelude = program.prelude.source
        self.root = SectionSymbol("", prelude, Span(0, 0), None, root=True)
        for name, type_ in BUILTIN_TYPES.items():
            self.root.members[name] = BuiltinTypeSymbol(
                name, prelude, Span(0, 0), self.root, type=type_
            )
        self.units = UnitRegistry()
        self.declarer = Declarer(self.root, self.units, self.diagnostics)
        for index, module in enumerate(program.modules):
            self.declarer.declare_module(module, index)
        self.bodies = BodyChecker(self)
        self.deferred: list[Callable[[], None]] = []
        # The values whose types are being inferred, innermost last (to show a circle).
        self.value_stack: list[VarSymbol] = []
        # The files of ``loadXML`` as read (None: refused), by the id of the url literal.
        self.xml_files: dict[int, SourceFile | None] = {}

    # ------------------------------------------------------------ reporting

    def report(
        self,
        severity: Severity,
        code: str,
        message: str,
        source: SourceFile,
        span: Span,
        hint: str | None = None,
    ) -> None:
        if len(self.diagnostics) < MAX_DIAGNOSTICS:
            self.diagnostics.append(Diagnostic(severity, code, message, source, span, hint))

    def error(
        self,
        ctx: Context | SourceFile,
        span: Span,
        code: str,
        message: str,
        hint: str | None = None,
    ) -> None:
        source = ctx if isinstance(ctx, SourceFile) else ctx.source
        self.report(Severity.ERROR, code, message, source, span, hint)

    def warning(
        self,
        ctx: Context | SourceFile,
        span: Span,
        code: str,
        message: str,
        hint: str | None = None,
    ) -> None:
        source = ctx if isinstance(ctx, SourceFile) else ctx.source
        self.report(Severity.WARNING, code, message, source, span, hint)

    # ------------------------------------------------------------ driver

    def run(self) -> list[Diagnostic]:
        for unit in list(self.units.definitions):
            self.unit_family(unit, None, None)
        for form in self.declarer.forms:
            self.resolve_extends(form)
        for enum in self.declarer.enums:
            self.check_enum(enum)
        for module in self.program.modules:
            self.check_header(module.source, module.tree.header)
            if not module.is_library:
                self.diagnostics.extend(check_nesting(module.tree, module.source))
        self.check_container(self.root)
        while self.deferred:
            pending, self.deferred = self.deferred, []
            for task in pending:
                task()
        for module in self.program.modules:  # (the sheets' names: semantics/table_check.py)
            self.check_tables(module)
        return self.diagnostics

    def check_tables(self, module: Module) -> None:
        check_sheets(
            module.tree, module.source, self.declarer.forms, self.table_error, self.did_you_mean
        )

    def table_error(
        self, source: SourceFile, span: Span, code: str, message: str, hint: str | None
    ) -> None:
        self.error(source, span, code, message, hint)

    def check_header(self, source: SourceFile, header: Iterable[ast.Header]) -> None:
        """The typed strings of a file's header (dates, urls, jids); imports are
        checked when they are loaded."""
        ctx = Context(source, self.root)
        for item in header:
            values: list[ast.Expr] = []
            if isinstance(item, ast.DocInfo):
                values = [entry.value for entry in item.entries]
            elif isinstance(item, ast.Desc):
                values = [item.title, *item.body]
            elif isinstance(item, ast.Author):
                values = [item.name, *item.contacts]
            elif isinstance(item, ast.History):
                values = [item.date, *(entry.value for entry in item.entries)]
            for value in values:
                if isinstance(value, ast.StringLit) and value.kind is not None:
                    self.bodies.check_expr(value, ctx)

    def check_container(self, container: Container) -> None:
        """Check every definition in ``container`` and the sections, forms and enums in
        it, depth first (with a stack of its own: sections may nest deeply)."""
        pending: list[Iterator[Symbol]] = [iter(list(container.members.values()))]
        while pending:
            symbol = next(pending[-1], None)
            if symbol is None:
                pending.pop()
                continue
            try:
                self.check_symbol(symbol)
            except RecursionError:
                self.error(
                    symbol.source,
                    symbol.span,
                    "check.too-deep",
                    f"'{symbol.name}' is nested too deeply to be checked",
                    "split it into smaller definitions",
                )
            if isinstance(symbol, SectionSymbol | FormSymbol | EnumSymbol):
                pending.append(iter(list(symbol.members.values())))

    def check_symbol(self, symbol: Symbol) -> None:
        if isinstance(symbol, VarSymbol):
            self.var_type(symbol)
        elif isinstance(symbol, FieldSymbol):
            self.check_field(symbol)
        elif isinstance(symbol, CallableSymbol):
            self.signature(symbol)
            self.check_override(symbol)
            self.bodies.check_callable(symbol)
        elif isinstance(symbol, EnumSymbol):
            for value in symbol.values.values():
                if value.node is not None:
                    for member in value.node.members:
                        self.check_enum_value_member(symbol, value, member)

    def context_for(self, container: Container, source: SourceFile) -> Context:
        if isinstance(container, FormSymbol):
            return Context(source, container, self_type=FormT(container), self_form=container)
        if isinstance(container, EnumSymbol):
            return Context(source, container, self_type=EnumT(container))
        return Context(source, container)

    # ------------------------------------------------------------ units

    def unit_family(self, unit: str, ctx: Context | None, span: Span | None) -> UnitT | None:
        """The type of a quantity in ``unit``; reports an unknown or broken unit."""
        try:
            return UnitT(self.units.family(unit), unit)
        except UnitError as problem:
            if problem.silent:
                return None  # a broken definition, reported where it is
            if problem.source is not None and problem.span is not None:
                self.error(
                    problem.source, problem.span, "check.unit", problem.message, problem.hint
                )
            elif ctx is not None and span is not None:
                self.error(
                    ctx, span, "check.unknown-unit", problem.message, self.unknown_unit_hint(unit)
                )
            return None

    def unknown_unit_hint(self, unit: str) -> str | None:
        if unit in basic_units():
            return 'import "basic.lore":url; defines it'
        return self.did_you_mean(unit, self.units.definitions, "[{}]") or (
            f"define it, like [{unit}] = 1; or import the file that defines it"
        )

    # ------------------------------------------------------------ names

    def lookup(self, name: str, ctx: Context) -> Symbol | None:
        """An unqualified name, innermost first: locals, ``self``'s members, the
        enclosing forms and sections, the top level, then a unique member of a
        top-level section."""
        local = ctx.scope.lookup(name)
        if local is not None:
            return local
        if ctx.self_form is not None:
            found = ctx.self_form.lookup(name)
            if found is not None:
                return found
        container: Container | None = ctx.container
        while container is not None:
            found = (
                container.lookup(name)
                if isinstance(container, FormSymbol)
                else container.members.get(name)
            )
            if found is not None:
                return found
            container = container.parent
        return self.fallback(name, ctx)

    def fallback(self, name: str, ctx: Context) -> Symbol | None:
        candidates = [
            section.members[name]
            for section in self.declarer.top_sections
            if name in section.members
            and not section.members[name].private
            and not section.name.startswith("_")
        ]
        if len(candidates) > 1:
            names = sorted(c.qualified_name for c in candidates)
            raise AmbiguousName(
                f"'{name}' is ambiguous: it could be {', '.join(names)}",
                f"write {', '.join(names[:-1])} or {names[-1]}",
            )
        return candidates[0] if candidates else None

    def visible_names(self, ctx: Context, types_only: bool = False) -> list[str]:
        names: list[str] = [] if types_only else ctx.scope.all_names()
        containers: list[Container] = []
        if ctx.self_form is not None:
            containers.append(ctx.self_form)
        container: Container | None = ctx.container
        while container is not None:
            containers.append(container)
            container = container.parent
        for holder in containers:
            members: Iterable[str] = (
                holder.all_member_names() if isinstance(holder, FormSymbol) else holder.members
            )
            for member_name in members:
                member = (
                    holder.lookup(member_name)
                    if isinstance(holder, FormSymbol)
                    else holder.members.get(member_name)
                )
                if not types_only or isinstance(
                    member, FormSymbol | EnumSymbol | BuiltinTypeSymbol
                ):
                    names.append(member_name)
        for section in self.declarer.top_sections:
            for member_name, member in section.members.items():
                if not types_only or isinstance(member, FormSymbol | EnumSymbol):
                    names.append(member_name)
        if types_only:
            names.extend(PRIMITIVES)
        return names

    @staticmethod
    def did_you_mean(name: str, candidates: Iterable[str], template: str = "'{}'") -> str | None:
        names = sorted(set(candidates) - {name})
        # The same name in other letter case first (`pc` for `PC`), then a near spelling;
        # the cutoff keeps far-fetched guesses (`Missing` for `string`) out.
        matches = [n for n in names if n.casefold() == name.casefold()]
        import difflib  # only for a name that is not found

        matches = matches or difflib.get_close_matches(name, names, n=1, cutoff=0.7)
        return f"did you mean {template.format(matches[0])}?" if matches else None

    # ------------------------------------------------------------ types

    def resolve_type(self, node: ast.TypeExpr, ctx: Context) -> Type:
        if isinstance(node, ast.NamedType):
            return self.resolve_named_type(node, ctx)
        if isinstance(node, ast.ListType):
            return ListT(self.resolve_type(node.element, ctx))
        if isinstance(node, ast.RangeType):
            return RangeT(self.resolve_type(node.element, ctx))
        if isinstance(node, ast.UnitType):
            return self.unit_family(node.unit, ctx, node.span) or UNKNOWN
        if isinstance(node, ast.DictType):
            key = self.resolve_type(node.key, ctx)
            if isinstance(key, DictT):
                self.error(
                    ctx,
                    node.key.span,
                    "check.dict-key",
                    "a dictionary cannot be the key of another",
                    "key it by a text, a number, an enum value or an object",
                )
            return DictT(key, self.resolve_type(node.value, ctx))
        params = tuple(self.resolve_type(p, ctx) for p in node.params)
        result = self.resolve_type(node.result, ctx) if node.result is not None else None
        return FuncT(params, result)

    def resolve_named_type(self, node: ast.NamedType, ctx: Context) -> Type:
        first = node.parts[0]
        if len(node.parts) == 1 and first in PRIMITIVES:
            return PRIMITIVES[first]
        try:
            symbol = self.lookup(first, ctx)
        except AmbiguousName as ambiguous:
            self.error(ctx, node.span, "check.ambiguous", str(ambiguous), ambiguous.hint)
            return UNKNOWN
        for part in node.parts[1:]:
            if isinstance(symbol, FormSymbol):
                symbol = symbol.lookup(part)
            elif isinstance(symbol, Container):
                symbol = symbol.members.get(part)
            else:
                symbol = None
        type_ = self.type_of_symbol(symbol)
        if type_ is None:
            if symbol is None:
                self.error(
                    ctx,
                    node.span,
                    "check.unknown-type",
                    f"unknown type '{node.dotted}'",
                    self.did_you_mean(node.parts[-1], self.visible_names(ctx, True)),
                )
            else:
                self.error(
                    ctx,
                    node.span,
                    "check.not-a-type",
                    f"'{node.dotted}' is {with_article(symbol.kind)}, not a type",
                )
            return UNKNOWN
        return type_

    @staticmethod
    def type_of_symbol(symbol: Symbol | None) -> Type | None:
        if isinstance(symbol, FormSymbol):
            return FormT(symbol)
        if isinstance(symbol, EnumSymbol):
            return EnumT(symbol)
        if isinstance(symbol, BuiltinTypeSymbol):
            return symbol.type
        return None

    # ------------------------------------------------------------ values

    def var_type(self, symbol: VarSymbol) -> Type:
        """The type of a value definition, inferred from its value on first use."""
        if symbol.type is not None:
            return symbol.type
        if self.value_stack:
            return self._infer(symbol)
        # A value that uses a long chain of values (`a = b; b = c; ...`) is inferred from
        # the far end of the chain, MAX_VALUE_CHAIN values at a time, so that the
        # inference never recurses deeper than that.
        pending = [symbol]
        while pending:
            try:
                self._infer(pending[-1])
            except _TooDeep as deeper:
                if deeper.symbol in pending:  # a circle longer than MAX_VALUE_CHAIN
                    self.error(
                        deeper.symbol.source,
                        deeper.symbol.span,
                        "check.circular",
                        f"the value of '{deeper.symbol.name}' depends on itself",
                        CIRCLE_HINT,
                    )
                    deeper.symbol.type = UNKNOWN
                else:
                    pending.append(deeper.symbol)
                continue
            pending.pop()
        return symbol.type if symbol.type is not None else UNKNOWN

    def _infer(self, symbol: VarSymbol) -> Type:
        if symbol.type is not None:
            return symbol.type
        node = symbol.node
        assert node is not None and symbol.parent is not None
        ctx = self.context_for(symbol.parent, symbol.source)
        if symbol.resolving:
            message = f"the value of '{symbol.name}' depends on itself"
            if symbol in self.value_stack:
                cycle = self.value_stack[self.value_stack.index(symbol) + 1 :]
                if cycle:
                    path = _chain([f"'{s.name}'" for s in [*cycle, symbol]], ", which uses ")
                    message += f": it uses {path}"
            self.error(
                symbol.source,
                symbol.span,
                "check.circular",
                message,
                CIRCLE_HINT,
            )
            symbol.type = UNKNOWN
            return UNKNOWN
        if len(self.value_stack) >= MAX_VALUE_CHAIN:
            raise _TooDeep(symbol)
        symbol.resolving = True
        self.value_stack.append(symbol)
        try:
            expected = self.resolve_type(node.type, ctx) if node.type is not None else None
            inherited = self.inherited_member(symbol)
            if inherited is not None and expected is None:
                expected = inherited
            found = self.bodies.check_expr(node.value, ctx, expected)
        except RecursionError:
            symbol.type = UNKNOWN  # so that it is not tried again
            if len(self.value_stack) > 1:
                raise  # reported once, at the value where the chain starts
            self.error(
                symbol.source,
                symbol.span,
                "check.too-deep",
                f"the value of '{symbol.name}' is nested too deeply to be checked",
                "split it into smaller definitions",
            )
            return UNKNOWN
        finally:
            symbol.resolving = False
            self.value_stack.pop()
        if symbol.type is not None:  # set while reporting a circle
            return symbol.type
        if found == VOID:
            self.error(
                ctx,
                node.value.span,
                "check.no-value",
                f"'{symbol.name}' is given something that has no value",
                "a rule gives no value; use a function",
            )
            found = UNKNOWN
        if expected is not None:
            self.bodies.expect(found, expected, node.value, ctx, f"'{symbol.name}'")
            found = expected
        symbol.type = found
        return found

    def inherited_member(self, symbol: VarSymbol) -> Type | None:
        """For ``name = e;`` in a form: the type of the inherited member it gives a value."""
        form = symbol.parent
        if not isinstance(form, FormSymbol) or form.extends is None:
            return None
        inherited = form.extends.lookup(symbol.name)
        if isinstance(inherited, FieldSymbol):
            return self.field_type(inherited)
        if isinstance(inherited, VarSymbol):
            return self.var_type(inherited)
        if isinstance(inherited, CallableSymbol):
            self.error(
                symbol.source,
                symbol.span,
                "check.member-kind",
                f"'{symbol.name}' is {with_article(inherited.kind)} of form '{form.extends.name}'; "
                "it cannot be given a value",
                "choose another name",
            )
        return None

    def field_type(self, symbol: FieldSymbol) -> Type:
        if symbol.type is None:
            assert symbol.node is not None and symbol.parent is not None
            symbol.type = UNKNOWN  # guards against a type that names itself
            ctx = self.context_for(symbol.parent, symbol.source)
            symbol.type = self.resolve_type(symbol.node.type, ctx)
        return symbol.type

    def check_field(self, symbol: FieldSymbol) -> None:
        type_ = self.field_type(symbol)
        default = symbol.default
        if default is not None and symbol.parent is not None:
            ctx = self.context_for(symbol.parent, symbol.source)
            found = self.bodies.check_expr(default.value, ctx, type_)
            self.bodies.expect(found, type_, default.value, ctx, f"'{symbol.name}'")
        form = symbol.parent
        if isinstance(form, FormSymbol) and form.extends is not None:
            inherited = form.extends.lookup(symbol.name)
            if isinstance(inherited, FieldSymbol) and self.field_type(inherited) != type_:
                self.error(
                    symbol.source,
                    symbol.span,
                    "check.field-redeclared",
                    f"'{symbol.name}' is already a member of '{form.extends.name}' "
                    f"with type {self.field_type(inherited)}",
                    f"an inherited field keeps its type: give it a value with "
                    f"'{symbol.name} = ...;' or choose another name",
                )

    def signature(self, symbol: CallableSymbol) -> tuple[Type, ...]:
        """Resolve a rule's parameter and result types (once)."""
        if symbol.params is not None:
            return symbol.params
        node = symbol.node
        assert node is not None and symbol.parent is not None
        ctx = self.context_for(symbol.parent, symbol.source)
        params: list[Type] = []
        names: list[str] = []
        for param in node.params or ():
            names.append(param.name)
            if param.type is None:
                self.error(
                    ctx,
                    param.span,
                    "check.param-type",
                    f"parameter '{param.name}' needs a type",
                    f"write '{param.name} : integer' (or the type it takes)",
                )
                params.append(UNKNOWN)
            else:
                params.append(self.resolve_type(param.type, ctx))
        symbol.params = tuple(params)
        symbol.param_names = tuple(names)
        if isinstance(node, ast.FunctionDef | ast.AccessorDef):
            symbol.result = self.resolve_type(node.result, ctx)
        if isinstance(node, ast.AlterDef) and (
            len(params) != 1 or not isinstance(params[0], ListT | type(UNKNOWN))
        ):
            example = "values : list<T>"
            if len(node.params) == 1 and node.params[0].type is not None:
                param = node.params[0]
                example = f"{param.name} : list<{params[0]}>"
            self.error(
                ctx,
                node.name_span,
                "check.alter-params",
                f"alter '{node.name}' takes one list: every value requested in a step",
                f"write 'alter {node.name}({example})'",
            )
        return symbol.params

    # ------------------------------------------------------------ forms and enums

    def resolve_extends(self, form: FormSymbol) -> None:
        # Follow the chain of forms that still need their base, then settle it from the
        # far end, without recursion (a chain may be long).
        chain: list[tuple[FormSymbol, Context, Type]] = []
        current: FormSymbol | None = form
        while (
            current is not None
            and not current.extends_resolved
            and (current.node is not None and current.parent is not None)
        ):
            current.extends_resolved = True
            if current.node.extends is None:
                break
            ctx = self.context_for(current.parent, current.source)
            base = self.resolve_type(current.node.extends, ctx)
            chain.append((current, ctx, base))
            current = base.symbol if isinstance(base, FormT) else None
        for current, ctx, base in reversed(chain):
            assert current.node is not None and current.node.extends is not None
            span = current.node.extends.span
            if isinstance(base, FormT) and base.symbol.is_subform_of(current):
                message = f"form '{current.name}' extends itself"
                if base.symbol is not current:
                    path = _chain(
                        [f"'{f.name}'" for f in base.symbol.ancestors()], ", which extends "
                    )
                    message += f": it extends {path}"
                self.error(
                    ctx,
                    span,
                    "check.extends-cycle",
                    message,
                    "forms may not extend each other in a circle",
                )
            elif isinstance(base, FormT):
                current.extends = base.symbol
            elif base != UNKNOWN:
                self.error(ctx, span, "check.extends", f"a form extends another form, not {base}")

    def check_override(self, symbol: CallableSymbol) -> None:
        form = symbol.parent
        node = symbol.node
        if node is None:
            return
        marked = "override" in node.modifiers
        inherited = (
            form.extends.lookup(symbol.name)
            if isinstance(form, FormSymbol) and form.extends is not None
            else None
        )
        if inherited is not None and not marked and isinstance(inherited, CallableSymbol):
            assert isinstance(form, FormSymbol) and form.extends is not None
            self.error(
                symbol.source,
                symbol.span,
                "check.override-missing",
                f"{symbol.kind} '{symbol.name}' replaces the one of form '{form.extends.name}'",
                "mark it 'override' if that is meant",
            )
        elif inherited is not None and not isinstance(inherited, CallableSymbol):
            assert isinstance(form, FormSymbol) and form.extends is not None
            self.error(
                symbol.source,
                symbol.span,
                "check.member-kind",
                f"'{symbol.name}' is {with_article(inherited.kind)} of form '{form.extends.name}'; "
                f"{with_article(symbol.kind)} cannot replace it",
                "choose another name",
            )
        elif inherited is None and marked:
            if isinstance(form, FormSymbol) and form.extends is not None:
                message = (
                    f"'{symbol.name}' is marked override but form '{form.extends.name}' "
                    f"has no '{symbol.name}'"
                )
                names = form.extends.all_member_names()
            elif isinstance(form, FormSymbol):
                message = (
                    f"'{symbol.name}' is marked override but form '{form.name}' extends no form"
                )
                names = []
            else:
                message = f"'{symbol.name}' is marked override but is not in a form"
                names = []
            self.error(
                symbol.source,
                symbol.span,
                "check.override-nothing",
                message,
                self.did_you_mean(symbol.name, names) or "remove 'override'",
            )
        if isinstance(inherited, CallableSymbol):
            self.check_override_signature(symbol, inherited)

    def check_override_signature(self, symbol: CallableSymbol, inherited: CallableSymbol) -> None:
        """An override takes what the inherited one takes and gives what it gives."""
        params, base_params = self.signature(symbol), self.signature(inherited)
        fits = len(params) == len(base_params) and all(
            assignable(base, own) for own, base in zip(params, base_params, strict=True)
        )
        if inherited.result is not None:
            fits = (
                fits and symbol.result is not None and assignable(symbol.result, inherited.result)
            )
        if fits or any(has_unknown(t) for t in (*params, *base_params)):
            return
        owner = inherited.parent.name if inherited.parent is not None else "?"
        self.error(
            symbol.source,
            symbol.span,
            "check.override-signature",
            f"{symbol.kind} '{symbol.name}' takes {_signature(params, symbol.result)}"
            f" but the one of form '{owner}' takes "
            f"{_signature(base_params, inherited.result)}",
            "an override takes the same parameters and gives the same result",
        )

    def check_enum(self, enum: EnumSymbol) -> None:
        node = enum.node
        if node is None or enum.parent is None:
            return
        ctx = self.context_for(enum.parent, enum.source)
        if node.extends is not None:
            base = self.resolve_type(node.extends, ctx)
            if isinstance(base, EnumT) and base.symbol.is_subenum_of(enum):
                chain: list[EnumSymbol] = []
                link: EnumSymbol | None = base.symbol
                while link is not None and link is not enum and link not in chain:
                    chain.append(link)
                    link = link.extends
                path = ", which extends ".join(f"'{e.name}'" for e in [*chain, enum])
                message = f"enum '{enum.name}' extends itself"
                if chain:
                    message += f": it extends {path}"
                self.error(
                    ctx,
                    node.extends.span,
                    "check.extends-cycle",
                    message,
                    "enums may not extend each other in a circle",
                )
            elif isinstance(base, EnumT):
                enum.extends = base.symbol
            elif base != UNKNOWN:
                self.error(
                    ctx,
                    node.extends.span,
                    "check.extends",
                    f"an enum extends another enum, not {base}",
                )
        shared = {
            name
            for name, member in enum.members.items()
            if isinstance(member, VarSymbol)
            or (isinstance(member, FieldSymbol) and member.default is not None)
        }
        # Members every value must give: declared without a default, or given by a value.
        required = {
            name
            for name, member in enum.members.items()
            if isinstance(member, FieldSymbol) and member.default is None
        }
        for value in node.values:
            required.update(m.name for m in value.members if isinstance(m, ast.VarDef))
        for value in node.values:
            own = {m.name for m in value.members if isinstance(m, ast.VarDef)}
            missing = sorted(required - own - shared)
            if missing:
                listed = " and ".join(f"'{name}'" for name in missing)
                them = "it" if len(missing) == 1 else "them"
                start = value.span.start
                self.error(
                    enum.source,
                    Span(start, start + len(value.name)),
                    "check.enum-member",
                    f"enum value '{value.name}' lacks {listed}: every value of "
                    f"'{enum.name}' must have {them}",
                    "give it " + " ".join(f"{name} = ...;" for name in missing),
                )

    def check_enum_value_member(
        self, enum: EnumSymbol, value: EnumValueSymbol, member: ast.Definition
    ) -> None:
        ctx = self.context_for(enum, enum.source)
        if not isinstance(member, ast.VarDef):
            self.error(
                ctx,
                member.span,
                "check.enum-value-member",
                "an enum value only gives values to members: name = value;",
                "define rules in the enum itself: every value shares them",
            )
            return
        declared = enum.members.get(member.name)
        expected: Type | None = None
        if isinstance(declared, FieldSymbol):
            expected = self.field_type(declared)
        elif isinstance(declared, VarSymbol):
            expected = self.var_type(declared)
        elif declared is not None:
            self.error(
                ctx,
                member.name_span,
                "check.member-kind",
                f"'{member.name}' is {with_article(declared.kind)} of enum '{enum.name}'; it "
                "cannot be given a value",
            )
        found = self.bodies.check_expr(member.value, ctx, expected)
        if expected is not None:
            self.bodies.expect(found, expected, member.value, ctx, f"'{member.name}'")
        elif declared is None:
            self.check_enum_member_agrees(enum, value, member, found)

    def check_enum_member_agrees(
        self, enum: EnumSymbol, value: EnumValueSymbol, member: ast.VarDef, found: Type
    ) -> None:
        """A member that the values give without a declaration has one type in all."""
        first = (
            next(
                (
                    v
                    for v in enum.node.values
                    if any(isinstance(m, ast.VarDef) and m.name == member.name for m in v.members)
                ),
                None,
            )
            if enum.node is not None
            else None
        )
        if first is None or first.name == value.name:
            return
        expected = self.enum_member_type(enum, member.name)
        if expected is None or is_lenient(found) or common_type(found, expected) is not None:
            return
        self.error(
            value.source,
            member.value.span,
            "check.enum-member-type",
            f"'{member.name}' is {found} here but {expected} in enum value '{first.name}'",
            f"give '{member.name}' one type in every value of '{enum.name}'",
        )

    def enum_member_type(self, enum: EnumSymbol, name: str) -> Type | None:
        """The type of member ``name`` that every value of ``enum`` has."""
        declared = enum.members.get(name)
        if isinstance(declared, FieldSymbol):
            return self.field_type(declared)
        if isinstance(declared, VarSymbol):
            return self.var_type(declared)
        node = enum.node
        if node is None:
            return None
        ctx = self.context_for(enum, enum.source)
        for value in node.values:
            for member in value.members:
                if isinstance(member, ast.VarDef) and member.name == name:
                    return self.bodies.check_expr(member.value, ctx, None, quiet=True)
        return None


def _chain(names: list[str], joiner: str) -> str:
    """A chain of names for a message, shortened in the middle when it is long."""
    if len(names) > 6:
        names = [*names[:3], "...", *names[-2:]]
    return joiner.join(names)


def _signature(params: tuple[Type, ...], result: Type | None) -> str:
    shown = f"({', '.join(str(p) for p in params)})"
    return shown if result is None else f"{shown} and gives {result}"


class _TooDeep(Exception):
    """The inference reached MAX_VALUE_CHAIN values: infer ``symbol`` first."""

    def __init__(self, symbol: VarSymbol) -> None:
        super().__init__(symbol.name)
        self.symbol = symbol


class AmbiguousName(Exception):
    def __init__(self, message: str, hint: str) -> None:
        super().__init__(message)
        self.hint = hint
