"""How each builtin member runs: the Python expression the compiler writes for it.

The signatures are the checker's (``lore.semantics.builtins``); this is the other half,
one table per kind of value (``lore.semantics.builtins.family_of``). In a template
``{t}`` is the receiver, ``{a}`` the arguments, ``{a0}``, ``{a1}`` each argument. A
helper that runs Lore code (a lambda) takes the runtime ``rt`` first, one that only
counts its work takes it last: the compiler counts a body that calls the first kind as
one that may nest calls (see ``Emitter.leaf``). The tests check that every member of
every signature has its code here.
"""

from __future__ import annotations

LIST_CODE = {
    "length": "len({t})",
    "isEmpty": "(not {t})",
    "get": "_list_get({t}, {a0})",
    "get1st": "_list_first({t})",
    "last": "_list_last({t})",
    "contains": "_list_contains({t}, {a0}, rt)",
    "indexOf": "_list_index({t}, {a0}, rt)",
    "slice": "_list_slice({t}, {a0}, {a1}, rt)",
    "take": "_list_take({t}, {a0}, rt)",
    "drop": "_list_drop({t}, {a0}, rt)",
    "add": "_list_add({t}, {a0}, rt)",
    "addAll": "_list_add_all({t}, {a0}, rt)",
    "insertAt": "_list_insert({t}, {a0}, {a1}, rt)",
    "removeAt": "_list_remove_at({t}, {a0}, rt)",
    "remove": "_list_remove({t}, {a0}, rt)",
    "removeFirst": "_list_remove_first({t}, {a0}, rt)",
    "reverse": "_list_reverse({t}, rt)",
    "distinct": "_list_distinct({t}, rt)",
    "distinctBy": "_list_distinct_by(rt, {t}, {a0})",
    "shuffle": "_list_shuffle({t}, rt)",
    "pick": "_list_pick({t}, rt)",
    "flatten": "_list_flatten({t}, rt)",
    "zip": "_list_zip({t}, {a0}, rt)",
    "sum": "_list_sum({t}, rt)",
    "join": "_list_join({t}, {a0}, rt)",
    "foreach": "rt.foreach({t}, {a0})",
    "find1st": "_list_find(rt, {t}, {a0})",
    "filter": "_list_filter(rt, {t}, {a0})",
    "count": "_list_count(rt, {t}, {a0})",
    "map": "_list_map(rt, {t}, {a0})",
    "any": "_list_any(rt, {t}, {a0})",
    "all": "_list_all(rt, {t}, {a0})",
    "sort": "_list_sort(rt, {t}, {a})",
    "sortBy": "_list_sort_by(rt, {t}, False, {a})",
    "sortByDescending": "_list_sort_by(rt, {t}, True, {a})",
    "min": "_list_extreme(rt, {t}, False)",
    "max": "_list_extreme(rt, {t}, True)",
    "minBy": "_list_extreme(rt, {t}, False, {a0})",
    "maxBy": "_list_extreme(rt, {t}, True, {a0})",
    "toDict": "_list_to_dict(rt, {t}, {a0})",
}

RANGE_CODE = {
    "match": "{t}.match({a0})",
    "low": "{t}.low",
    "high": "{t}.high",
    "toList": "_range_list({t}, rt)",
    "length": "_range_length({t})",
    "map": "_list_map(rt, _range_numbers({t}), {a0})",
    "filter": "_list_filter(rt, _range_numbers({t}), {a0})",
    "foreach": "rt.foreach(_range_numbers({t}), {a0})",
    "pick": "_range_pick({t}, rt)",
}

DICT_CODE = {
    "length": "len({t}.items)",
    "isEmpty": "(not {t}.items)",
    "has": "_dict_has({t}, {a0})",
    "get": "_dict_get({t}, {a0})",
    "getOr": "_dict_get_or({t}, {a0}, {a1})",
    "put": "_dict_put({t}, {a0}, {a1}, rt)",
    "remove": "_dict_remove({t}, {a0}, rt)",
    "keys": "_dict_keys({t}, rt)",
    "values": "_dict_values({t}, rt)",
    "entries": "_dict_entries({t}, rt)",
}

NUMBER_CODE = {
    "toReal": "_to_real({t})",
    "toInt": "_to_int({t})",
    "abs": "abs({t})",
    "in": "_in_range({t}, {a0})",
    "round": "_rounding({t}, 'round')",
    "ceil": "_rounding({t}, 'ceil')",
    "floor": "_rounding({t}, 'floor')",
}

DICE_CODE = {
    "roll": "_dice_roll({t}, rt)",
    "min": "{t}.min()",
    "max": "{t}.max()",
    "mean": "{t}.mean()",
}

STRING_CODE = {
    "length": "len(str({t}))",
    "isEmpty": "(not str({t}))",
    "contains": "(str({a0}) in str({t}))",
    "indexOf": "str({t}).find(str({a0}))",
    "startsWith": "str({t}).startswith(str({a0}))",
    "endsWith": "str({t}).endswith(str({a0}))",
    "slice": "_text_slice({t}, {a0}, {a1})",
    "take": "_text_take({t}, {a0})",
    "drop": "_text_drop({t}, {a0})",
    "split": "_text_split({t}, {a0}, rt)",
    "trim": "str({t}).strip()",
    "replace": "_text_replace({t}, {a0}, {a1})",
    "loadXML": "None",  # a url literal's file is read when the rule is compiled
}

GLOBAL_CODE = {
    "min": "_least({a})",
    "max": "_greatest({a})",
}

CODE = {
    "list": LIST_CODE,
    "range": RANGE_CODE,
    "dict": DICT_CODE,
    "number": NUMBER_CODE,
    "quantity": NUMBER_CODE,
    "dice": DICE_CODE,
    "string": STRING_CODE,
}


def code_for(family: str, name: str) -> str | None:
    return CODE.get(family, {}).get(name)
