"""Checking rule bodies: statements, then expressions (see :mod:`.expressions`)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from lore.semantics.context import Context, ResultSlot
from lore.semantics.expressions import ExpressionChecker
from lore.semantics.lost_writes import alter_calls, lost_writes
from lore.semantics.symbols import (
    CallableSymbol,
    FieldSymbol,
    FormSymbol,
    LocalSymbol,
    VarSymbol,
)
from lore.semantics.types import (
    BOOLEAN,
    INTEGER,
    UNKNOWN,
    VOID,
    DictT,
    EnumT,
    FormT,
    FuncT,
    ListT,
    RangeT,
    Type,
    assignable,
    common_type,
    has_unknown,
    is_lenient,
)
from lore.syntax import ast
from lore.syntax.diagnostics import with_article
from lore.syntax.source import Span

if TYPE_CHECKING:
    from lore.semantics.checker import Checker


class BodyChecker(ExpressionChecker):
    def __init__(self, checker: Checker) -> None:
        super().__init__(checker)

    # ------------------------------------------------------------ callables

    def check_callable(self, symbol: CallableSymbol, base: Context | None = None) -> None:
        """Check a rule's body; ``base`` is where it stands if not in its parent."""
        node = symbol.node
        if node is None or symbol.parent is None:
            return
        checker = self.checker
        params = checker.signature(symbol)
        if base is None:
            base = checker.context_for(symbol.parent, symbol.source)
        ctx = base.nested()
        for name, type_, param in zip(symbol.param_names, params, node.params or (), strict=False):
            self.declare_local(ctx, name, type_, param.span)
        slot = None
        if isinstance(node, ast.FunctionDef | ast.AccessorDef):
            slot = ResultSlot(f"{symbol.kind} '{symbol.name}'", symbol.result)
        ctx = ctx.replace(result=slot, in_alter=isinstance(node, ast.AlterDef))
        self.check_statements(node.body, ctx)
        self.check_lost_writes(node.body, ctx)
        if slot is not None and not slot.assigned:
            checker.error(
                ctx,
                node.name_span,
                "check.no-result",
                f"{symbol.kind} '{symbol.name}' never sets its result",
                "set it with 'result = ...;'",
            )

    def check_literal_callable(self, node: ast.Definition, form: FormSymbol, ctx: Context) -> None:
        """A rule, function, accessor or alter that a typed form literal defines for its
        object: ``self`` in it is that object."""
        assert isinstance(node, ast.RuleDef | ast.FunctionDef | ast.AccessorDef | ast.AlterDef)
        checker = self.checker
        symbol = CallableSymbol(node.name, ctx.source, node.name_span, ctx.container, False, node)
        inherited = form.lookup(node.name)
        if inherited is not None and not isinstance(inherited, CallableSymbol):
            checker.error(
                ctx,
                node.name_span,
                "check.member-kind",
                f"'{node.name}' is {with_article(inherited.kind)} of form "
                f"'{form.qualified_name}'; {with_article(symbol.kind)} cannot replace it",
                "choose another name",
            )
        elif inherited is None and "override" in node.modifiers:
            checker.error(
                ctx,
                node.name_span,
                "check.override-nothing",
                f"'{node.name}' is marked override but form "
                f"'{form.qualified_name}' has no '{node.name}'",
            )
        base = Context(ctx.source, ctx.container, self_type=FormT(form), self_form=form)
        self.check_callable(symbol, base)

    def check_lost_writes(self, body: ast.Block, ctx: Context) -> None:
        """Warn where one body calls two alters that write one member of one object."""
        calls = alter_calls(body, self.symbol_of, lambda expr: _text(expr, ctx))
        for lost in lost_writes(calls):
            self.checker.warning(
                ctx, lost.second.span, "check.lost-write", lost.message(), lost.hint()
            )

    def declare_local(self, ctx: Context, name: str, type_: Type, span: Span) -> None:
        ctx.scope.names[name] = LocalSymbol(name, ctx.source, span, None, type=type_)

    # ------------------------------------------------------------ statements

    def check_block(self, block: ast.Block, ctx: Context) -> None:
        self.check_statements(block, ctx.nested())

    def check_statements(self, block: ast.Block, ctx: Context) -> None:
        for statement in block.statements:
            self.check_statement(statement, ctx)

    def check_statement(self, statement: ast.Statement, ctx: Context) -> None:
        if isinstance(statement, ast.Assign):
            self.check_assign(statement, ctx)
        elif isinstance(statement, ast.Modify):
            self.check_modify(statement.target, statement.value, statement.span, ctx)
        elif isinstance(statement, ast.ExprStmt):
            self.check_expression_statement(statement.expr, ctx)
        elif isinstance(statement, ast.If):
            self.check_if(statement, ctx)
        elif isinstance(statement, ast.For):
            self.check_for(statement, ctx)
        elif isinstance(statement, ast.TypedLocal):
            self.check_typed_local(statement, ctx)
        else:
            self.check_local_definition(statement.definition, ctx)

    def check_expression_statement(self, expr: ast.Expr, ctx: Context) -> None:
        if isinstance(expr, ast.Select):
            self.check_select(expr, ctx, as_value=False)
            return
        found = self.check_expr(expr, ctx)
        if self.discarded_builtin(expr, found, ctx):
            return
        called = isinstance(expr, ast.Call) or (
            id(expr) in self.invocations and id(expr) not in self.pure_reads
        )
        if not (called or is_lenient(found) or found == VOID):
            self.checker.warning(
                ctx,
                expr.span,
                "check.unused-value",
                "this value is computed but not used",
                "give it a name with 'x = ...;' or call a rule",
            )

    def discarded_builtin(self, expr: ast.Expr, found: Type, ctx: Context) -> bool:
        """Warn of a builtin that only gives a value, called as a statement: its value is
        dropped, so the statement does nothing (``h.items.add(5);`` changes no list)."""
        func = expr.func if isinstance(expr, ast.Call) else expr
        ref = self.refs.get(id(func))
        call = ref.call if ref is not None else None
        builtin = call.builtin if call is not None else None
        if builtin is None or not builtin.pure or builtin.result is None or is_lenient(found):
            return False
        if not isinstance(expr, ast.Call) and not isinstance(found, ListT | DictT):
            return False  # `xs.length;`: an unused value like any other
        assert call is not None
        if isinstance(found, ListT | DictT) and isinstance(func, ast.Member):
            target = _text(func.target, ctx)
            what = "list" if isinstance(found, ListT) else "dictionary"
            message = f"'{call.name}' gives a new {what} and changes nothing: it is dropped here"
            own = self.own_member(func.target)
            if own is not None:
                hint = f"in an alter, keep it: self.{own} := {_text(expr, ctx)};"
            elif isinstance(func.target, ast.Name):
                hint = f"keep it: {target} = {_text(expr, ctx)};"
            elif isinstance(func.target, ast.Member):
                name = func.target.name
                hint = (
                    f"to change {target}, call an alter of its object that sets it: "
                    f"self.{name} := {name}.{call.name}(...);"
                )
            else:
                hint = f"keep it: give it a name with 'x = {_text(expr, ctx)};'"
        else:
            message = f"'{call.name}' only gives a value ({found}): it is dropped here"
            hint = "use it, or give it a name with 'x = ...;'"
        self.checker.warning(ctx, expr.span, "check.discarded", message, hint)
        return True

    def own_member(self, expr: ast.Expr) -> str | None:
        """The name of the member of ``self`` that ``expr`` reads (``self.bag``, or
        ``bag`` in a form's rule), if it reads one."""
        if isinstance(expr, ast.Member) and _is_self(expr.target):
            return expr.name
        ref = self.refs.get(id(expr)) if isinstance(expr, ast.Name) else None
        symbol = ref.symbol if ref is not None else None
        if isinstance(symbol, FieldSymbol | VarSymbol) and isinstance(symbol.parent, FormSymbol):
            return symbol.name
        return None

    def check_assign(self, statement: ast.Assign, ctx: Context) -> None:
        target = statement.target
        if isinstance(target, ast.Member):
            # G14 writes a modification as `self.x = e;`.
            self.check_modify(target, statement.value, statement.span, ctx)
            return
        name = target.name
        if name == "result":
            self.check_result(statement, ctx)
            return
        if name == "self":
            self.checker.error(ctx, target.span, "check.assign-self", "'self' cannot be replaced")
            return
        found = self.check_expr(statement.value, ctx)
        if found == VOID:
            self.checker.error(
                ctx,
                statement.value.span,
                "check.no-value",
                "this has no value to give a name to",
                "a rule gives no value; use a function",
            )
            found = UNKNOWN
        existing = ctx.scope.lookup(name)
        if existing is not None and existing.type is not None:
            self.expect(found, existing.type, statement.value, ctx, f"'{name}'")
            return
        self.declare_local(ctx, name, found, target.span)

    def check_result(self, statement: ast.Assign, ctx: Context) -> None:
        slot = ctx.result
        if slot is None:
            self.checker.error(
                ctx,
                statement.target.span,
                "check.result-place",
                "'result' is set only in a function, an accessor, a lambda "
                "with a result type or a select expression",
            )
            self.check_expr(statement.value, ctx)
            return
        found = self.check_expr(statement.value, ctx, slot.expected)
        if slot.expected is not None:
            self.expect(found, slot.expected, statement.value, ctx, f"the result of {slot.owner}")
        slot.assigned.append(found)

    def check_modify(
        self, target: ast.Name | ast.Member, value: ast.Expr, span: Span, ctx: Context
    ) -> None:
        checker = self.checker
        if not ctx.in_alter:
            checker.error(
                ctx,
                span,
                "check.modify-outside-alter",
                "members can only be changed inside an alter",
                f"define 'alter name(values : list<T>) {{ self.{target.name} := ...; }}' "
                "and call it",
            )
        member_type = self.modified_member(target, ctx)
        found = self.check_expr(value, ctx, member_type)
        if member_type is not None:
            self.expect(found, member_type, value, ctx, f"member '{_name_of(target)}'")

    def modified_member(self, target: ast.Name | ast.Member, ctx: Context) -> Type | None:
        checker = self.checker
        if isinstance(target, ast.Member):
            if not (isinstance(target.target, ast.Name) and target.target.name == "self"):
                checker.error(
                    ctx,
                    target.span,
                    "check.modify-other",
                    "an alter changes only members of its own object",
                    "to change another object, call an alter of that object",
                )
                return None
            name, span = target.name, target.name_span
        else:
            name, span = target.name, target.span
        if ctx.self_form is None:
            checker.error(
                ctx,
                span,
                "check.modify-no-self",
                "only members of a form's object can be changed",
                "define the alter in the form whose members it changes",
            )
            return None
        member = ctx.self_form.lookup(name)
        if isinstance(member, FieldSymbol):
            return checker.field_type(member)
        if isinstance(member, VarSymbol):
            return checker.var_type(member)
        checker.error(
            ctx,
            span,
            "check.unknown-member",
            f"form '{ctx.self_form.qualified_name}' has no member '{name}' to change",
            checker.did_you_mean(name, ctx.self_form.all_member_names()),
        )
        return None

    def check_if(self, statement: ast.If, ctx: Context) -> None:
        condition = self.check_expr(statement.condition, ctx, BOOLEAN)
        self.expect(condition, BOOLEAN, statement.condition, ctx, "the condition")
        self.check_block(statement.then, ctx)
        if isinstance(statement.otherwise, ast.Block):
            self.check_block(statement.otherwise, ctx)
        elif statement.otherwise is not None:
            self.check_if(statement.otherwise, ctx)

    def check_for(self, statement: ast.For, ctx: Context) -> None:
        """``for (x in xs) { ... }``: ``x`` is each element of a list, or each whole number
        of a range, in order."""
        items = self.check_expr(statement.items, ctx)
        element: Type = UNKNOWN
        problem: tuple[str, str | None] | None = None
        if isinstance(items, ListT):
            element = items.element
        elif isinstance(items, RangeT) and (items.element == INTEGER or is_lenient(items.element)):
            element = INTEGER
        elif isinstance(items, RangeT):
            problem = (f"a for loop walks the whole numbers of a range, not {items}", None)
        elif isinstance(items, DictT):
            problem = (
                "a for loop walks a list, not a dictionary",
                "walk its keys or its entries: for (k in d.keys) or for (e in d.entries)",
            )
        elif not is_lenient(items):
            problem = (f"a for loop walks a list or a range of whole numbers, not {items}", None)
        if problem is not None:
            message, hint = problem
            self.checker.error(ctx, statement.items.span, "check.for", message, hint)
        inner = ctx.nested()
        self.new_local(inner, statement.name, element, statement.name_span, ctx)
        self.check_statements(statement.body, inner)

    def check_typed_local(self, statement: ast.TypedLocal, ctx: Context) -> None:
        """``x : T = e;``: a new local of type ``T``."""
        declared = self.checker.resolve_type(statement.type, ctx)
        self.types[id(statement)] = declared
        found = self.check_expr(statement.value, ctx, declared)
        self.expect(found, declared, statement.value, ctx, f"'{statement.name}'")
        self.new_local(ctx, statement.name, declared, statement.name_span, ctx)

    def new_local(self, ctx: Context, name: str, type_: Type, span: Span, outer: Context) -> None:
        """Declare a local that must be new (a loop's name, a typed local)."""
        if name in ("result", "self"):
            self.checker.error(
                outer, span, "check.local-again", f"'{name}' is not a name for a local"
            )
            return
        existing = outer.scope.lookup(name)
        if existing is not None:
            line = existing.source.position(existing.span.start).line
            self.checker.error(
                outer,
                span,
                "check.local-again",
                f"'{name}' is already a local here (from line {line})",
                f"choose another name, or give it a new value with {name} = ...;",
            )
        self.declare_local(ctx, name, type_, span)

    def check_local_definition(self, definition: ast.Definition, ctx: Context) -> None:
        checker = self.checker
        if isinstance(definition, ast.RuleDef | ast.FunctionDef):
            symbol = CallableSymbol(
                definition.name, ctx.source, definition.name_span, ctx.container, False, definition
            )
            checker.signature(symbol)
            result = symbol.result if isinstance(definition, ast.FunctionDef) else None
            local = LocalSymbol(
                definition.name,
                ctx.source,
                definition.name_span,
                None,
                type=_callable_type(symbol, result),
            )
            ctx.scope.names[definition.name] = local
            inner = ctx.nested()
            for name, type_, param in zip(
                symbol.param_names, symbol.params or (), definition.params or (), strict=False
            ):
                self.declare_local(inner, name, type_, param.span)
            slot = (
                ResultSlot(f"function '{definition.name}'", result)
                if isinstance(definition, ast.FunctionDef)
                else None
            )
            self.check_statements(definition.body, inner.replace(result=slot))
        else:
            checker.error(
                ctx,
                definition.span,
                "check.local-definition",
                "only rules and functions can be defined inside a body",
                "define forms, enums and units in a section",
            )

    # ------------------------------------------------------------ select

    def check_select(self, select: ast.Select, ctx: Context, as_value: bool) -> Type:
        subject = self.check_expr(select.subject, ctx)
        slot = ResultSlot("the select expression", None) if as_value else None
        arm_ctx = ctx.replace(result=slot) if slot is not None else ctx
        for arm in select.arms:
            inner = arm_ctx.nested()
            if isinstance(arm, ast.CaseArm):
                for value in arm.values:
                    self.check_case_value(value, subject, ctx)
            else:
                bound = self.checker.resolve_type(arm.type, ctx)
                self.types[id(arm)] = bound
                self.check_as_type(arm, subject, bound, ctx)
                self.declare_local(inner, arm.name, bound, arm.name_span)
            self.check_statements(arm.body, inner)
        if select.default is not None:
            self.check_block(select.default, arm_ctx)
        if slot is None:
            return VOID
        if not slot.assigned:
            keyword = Span(select.span.start, select.span.start + len("select"))
            self.checker.error(
                ctx,
                keyword,
                "check.select-no-result",
                "this select is used as a value but no arm sets 'result'",
                "set it in each arm with 'result = ...;'",
            )
            return UNKNOWN
        found = slot.assigned[0]
        for other in slot.assigned[1:]:
            found = common_type(found, other) or UNKNOWN
        return found

    def check_case_value(self, value: ast.Expr, subject: Type, ctx: Context) -> None:
        found = self.check_expr(value, ctx, subject)
        if (
            assignable(found, subject)
            or assignable(subject, found)
            or has_unknown(found)
            or has_unknown(subject)
        ):
            return
        element = getattr(found, "element", None)
        if (
            element is not None
            and not isinstance(found, ListT)
            and (assignable(subject, element) or assignable(element, subject))
        ):
            return
        hint = None
        if (
            isinstance(subject, EnumT)
            and isinstance(value, ast.StringLit)
            and (subject.symbol.lookup_value(value.value) is not None)
        ):
            hint = f"write {subject.symbol.name}.{value.value}"
        self.checker.error(
            ctx,
            value.span,
            "check.case-type",
            f"a case value of type {found} never matches a subject of type {subject}",
            hint,
        )

    def check_as_type(self, arm: ast.AsArm, subject: Type, bound: Type, ctx: Context) -> None:
        if is_lenient(subject) or is_lenient(bound):
            return
        related = assignable(bound, subject) or assignable(subject, bound)
        if isinstance(subject, FormT) and isinstance(bound, FormT):
            related = bound.symbol.is_subform_of(subject.symbol) or subject.symbol.is_subform_of(
                bound.symbol
            )
        if not related:
            self.checker.warning(
                ctx,
                arm.type.span,
                "check.as-never",
                f"a value of type {subject} is never of type {bound}: this arm never runs",
            )


def _text(expr: ast.Expr, ctx: Context) -> str:
    return " ".join(ctx.source.text[expr.span.start : expr.span.end].split())


def _is_self(expr: ast.Expr) -> bool:
    return isinstance(expr, ast.Name) and expr.name == "self"


def _name_of(target: ast.Name | ast.Member) -> str:
    return target.name


def _callable_type(symbol: CallableSymbol, result: Type | None) -> Type:
    return FuncT(symbol.params or (), result)
