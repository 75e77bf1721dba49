"""Templates of the ``__init__`` of records (see ``lore.records``): made by
``lore.records.inits_module_source``, do not edit. Their globals (``_set``,
``_MISSING``, ``_factoryN``) are given to each record's copy."""
# mypy: ignore-errors


def frozen_init_0(self):
    pass


def mutable_init_0(self):
    pass


def frozen_init_1(self, _f0):
    _set(self, "_f0", _factory0() if _f0 is _MISSING else _f0)


def mutable_init_1(self, _f0):
    self._f0 = _factory0() if _f0 is _MISSING else _f0


def frozen_init_2(self, _f0, _f1):
    _set(self, "_f0", _factory0() if _f0 is _MISSING else _f0)
    _set(self, "_f1", _factory1() if _f1 is _MISSING else _f1)


def mutable_init_2(self, _f0, _f1):
    self._f0 = _factory0() if _f0 is _MISSING else _f0
    self._f1 = _factory1() if _f1 is _MISSING else _f1


def frozen_init_3(self, _f0, _f1, _f2):
    _set(self, "_f0", _factory0() if _f0 is _MISSING else _f0)
    _set(self, "_f1", _factory1() if _f1 is _MISSING else _f1)
    _set(self, "_f2", _factory2() if _f2 is _MISSING else _f2)


def mutable_init_3(self, _f0, _f1, _f2):
    self._f0 = _factory0() if _f0 is _MISSING else _f0
    self._f1 = _factory1() if _f1 is _MISSING else _f1
    self._f2 = _factory2() if _f2 is _MISSING else _f2


def frozen_init_4(self, _f0, _f1, _f2, _f3):
    _set(self, "_f0", _factory0() if _f0 is _MISSING else _f0)
    _set(self, "_f1", _factory1() if _f1 is _MISSING else _f1)
    _set(self, "_f2", _factory2() if _f2 is _MISSING else _f2)
    _set(self, "_f3", _factory3() if _f3 is _MISSING else _f3)


def mutable_init_4(self, _f0, _f1, _f2, _f3):
    self._f0 = _factory0() if _f0 is _MISSING else _f0
    self._f1 = _factory1() if _f1 is _MISSING else _f1
    self._f2 = _factory2() if _f2 is _MISSING else _f2
    self._f3 = _factory3() if _f3 is _MISSING else _f3


def frozen_init_5(self, _f0, _f1, _f2, _f3, _f4):
    _set(self, "_f0", _factory0() if _f0 is _MISSING else _f0)
    _set(self, "_f1", _factory1() if _f1 is _MISSING else _f1)
    _set(self, "_f2", _factory2() if _f2 is _MISSING else _f2)
    _set(self, "_f3", _factory3() if _f3 is _MISSING else _f3)
    _set(self, "_f4", _factory4() if _f4 is _MISSING else _f4)


def mutable_init_5(self, _f0, _f1, _f2, _f3, _f4):
    self._f0 = _factory0() if _f0 is _MISSING else _f0
    self._f1 = _factory1() if _f1 is _MISSING else _f1
    self._f2 = _factory2() if _f2 is _MISSING else _f2
    self._f3 = _factory3() if _f3 is _MISSING else _f3
    self._f4 = _factory4() if _f4 is _MISSING else _f4


def frozen_init_6(self, _f0, _f1, _f2, _f3, _f4, _f5):
    _set(self, "_f0", _factory0() if _f0 is _MISSING else _f0)
    _set(self, "_f1", _factory1() if _f1 is _MISSING else _f1)
    _set(self, "_f2", _factory2() if _f2 is _MISSING else _f2)
    _set(self, "_f3", _factory3() if _f3 is _MISSING else _f3)
    _set(self, "_f4", _factory4() if _f4 is _MISSING else _f4)
    _set(self, "_f5", _factory5() if _f5 is _MISSING else _f5)


def mutable_init_6(self, _f0, _f1, _f2, _f3, _f4, _f5):
    self._f0 = _factory0() if _f0 is _MISSING else _f0
    self._f1 = _factory1() if _f1 is _MISSING else _f1
    self._f2 = _factory2() if _f2 is _MISSING else _f2
    self._f3 = _factory3() if _f3 is _MISSING else _f3
    self._f4 = _factory4() if _f4 is _MISSING else _f4
    self._f5 = _factory5() if _f5 is _MISSING else _f5


def frozen_init_7(self, _f0, _f1, _f2, _f3, _f4, _f5, _f6):
    _set(self, "_f0", _factory0() if _f0 is _MISSING else _f0)
    _set(self, "_f1", _factory1() if _f1 is _MISSING else _f1)
    _set(self, "_f2", _factory2() if _f2 is _MISSING else _f2)
    _set(self, "_f3", _factory3() if _f3 is _MISSING else _f3)
    _set(self, "_f4", _factory4() if _f4 is _MISSING else _f4)
    _set(self, "_f5", _factory5() if _f5 is _MISSING else _f5)
    _set(self, "_f6", _factory6() if _f6 is _MISSING else _f6)


def mutable_init_7(self, _f0, _f1, _f2, _f3, _f4, _f5, _f6):
    self._f0 = _factory0() if _f0 is _MISSING else _f0
    self._f1 = _factory1() if _f1 is _MISSING else _f1
    self._f2 = _factory2() if _f2 is _MISSING else _f2
    self._f3 = _factory3() if _f3 is _MISSING else _f3
    self._f4 = _factory4() if _f4 is _MISSING else _f4
    self._f5 = _factory5() if _f5 is _MISSING else _f5
    self._f6 = _factory6() if _f6 is _MISSING else _f6


def frozen_init_8(self, _f0, _f1, _f2, _f3, _f4, _f5, _f6, _f7):
    _set(self, "_f0", _factory0() if _f0 is _MISSING else _f0)
    _set(self, "_f1", _factory1() if _f1 is _MISSING else _f1)
    _set(self, "_f2", _factory2() if _f2 is _MISSING else _f2)
    _set(self, "_f3", _factory3() if _f3 is _MISSING else _f3)
    _set(self, "_f4", _factory4() if _f4 is _MISSING else _f4)
    _set(self, "_f5", _factory5() if _f5 is _MISSING else _f5)
    _set(self, "_f6", _factory6() if _f6 is _MISSING else _f6)
    _set(self, "_f7", _factory7() if _f7 is _MISSING else _f7)


def mutable_init_8(self, _f0, _f1, _f2, _f3, _f4, _f5, _f6, _f7):
    self._f0 = _factory0() if _f0 is _MISSING else _f0
    self._f1 = _factory1() if _f1 is _MISSING else _f1
    self._f2 = _factory2() if _f2 is _MISSING else _f2
    self._f3 = _factory3() if _f3 is _MISSING else _f3
    self._f4 = _factory4() if _f4 is _MISSING else _f4
    self._f5 = _factory5() if _f5 is _MISSING else _f5
    self._f6 = _factory6() if _f6 is _MISSING else _f6
    self._f7 = _factory7() if _f7 is _MISSING else _f7


def frozen_init_9(self, _f0, _f1, _f2, _f3, _f4, _f5, _f6, _f7, _f8):
    _set(self, "_f0", _factory0() if _f0 is _MISSING else _f0)
    _set(self, "_f1", _factory1() if _f1 is _MISSING else _f1)
    _set(self, "_f2", _factory2() if _f2 is _MISSING else _f2)
    _set(self, "_f3", _factory3() if _f3 is _MISSING else _f3)
    _set(self, "_f4", _factory4() if _f4 is _MISSING else _f4)
    _set(self, "_f5", _factory5() if _f5 is _MISSING else _f5)
    _set(self, "_f6", _factory6() if _f6 is _MISSING else _f6)
    _set(self, "_f7", _factory7() if _f7 is _MISSING else _f7)
    _set(self, "_f8", _factory8() if _f8 is _MISSING else _f8)


def mutable_init_9(self, _f0, _f1, _f2, _f3, _f4, _f5, _f6, _f7, _f8):
    self._f0 = _factory0() if _f0 is _MISSING else _f0
    self._f1 = _factory1() if _f1 is _MISSING else _f1
    self._f2 = _factory2() if _f2 is _MISSING else _f2
    self._f3 = _factory3() if _f3 is _MISSING else _f3
    self._f4 = _factory4() if _f4 is _MISSING else _f4
    self._f5 = _factory5() if _f5 is _MISSING else _f5
    self._f6 = _factory6() if _f6 is _MISSING else _f6
    self._f7 = _factory7() if _f7 is _MISSING else _f7
    self._f8 = _factory8() if _f8 is _MISSING else _f8


def frozen_init_10(self, _f0, _f1, _f2, _f3, _f4, _f5, _f6, _f7, _f8, _f9):
    _set(self, "_f0", _factory0() if _f0 is _MISSING else _f0)
    _set(self, "_f1", _factory1() if _f1 is _MISSING else _f1)
    _set(self, "_f2", _factory2() if _f2 is _MISSING else _f2)
    _set(self, "_f3", _factory3() if _f3 is _MISSING else _f3)
    _set(self, "_f4", _factory4() if _f4 is _MISSING else _f4)
    _set(self, "_f5", _factory5() if _f5 is _MISSING else _f5)
    _set(self, "_f6", _factory6() if _f6 is _MISSING else _f6)
    _set(self, "_f7", _factory7() if _f7 is _MISSING else _f7)
    _set(self, "_f8", _factory8() if _f8 is _MISSING else _f8)
    _set(self, "_f9", _factory9() if _f9 is _MISSING else _f9)


def mutable_init_10(self, _f0, _f1, _f2, _f3, _f4, _f5, _f6, _f7, _f8, _f9):
    self._f0 = _factory0() if _f0 is _MISSING else _f0
    self._f1 = _factory1() if _f1 is _MISSING else _f1
    self._f2 = _factory2() if _f2 is _MISSING else _f2
    self._f3 = _factory3() if _f3 is _MISSING else _f3
    self._f4 = _factory4() if _f4 is _MISSING else _f4
    self._f5 = _factory5() if _f5 is _MISSING else _f5
    self._f6 = _factory6() if _f6 is _MISSING else _f6
    self._f7 = _factory7() if _f7 is _MISSING else _f7
    self._f8 = _factory8() if _f8 is _MISSING else _f8
    self._f9 = _factory9() if _f9 is _MISSING else _f9


def frozen_init_11(self, _f0, _f1, _f2, _f3, _f4, _f5, _f6, _f7, _f8, _f9, _f10):
    _set(self, "_f0", _factory0() if _f0 is _MISSING else _f0)
    _set(self, "_f1", _factory1() if _f1 is _MISSING else _f1)
    _set(self, "_f2", _factory2() if _f2 is _MISSING else _f2)
    _set(self, "_f3", _factory3() if _f3 is _MISSING else _f3)
    _set(self, "_f4", _factory4() if _f4 is _MISSING else _f4)
    _set(self, "_f5", _factory5() if _f5 is _MISSING else _f5)
    _set(self, "_f6", _factory6() if _f6 is _MISSING else _f6)
    _set(self, "_f7", _factory7() if _f7 is _MISSING else _f7)
    _set(self, "_f8", _factory8() if _f8 is _MISSING else _f8)
    _set(self, "_f9", _factory9() if _f9 is _MISSING else _f9)
    _set(self, "_f10", _factory10() if _f10 is _MISSING else _f10)


def mutable_init_11(self, _f0, _f1, _f2, _f3, _f4, _f5, _f6, _f7, _f8, _f9, _f10):
    self._f0 = _factory0() if _f0 is _MISSING else _f0
    self._f1 = _factory1() if _f1 is _MISSING else _f1
    self._f2 = _factory2() if _f2 is _MISSING else _f2
    self._f3 = _factory3() if _f3 is _MISSING else _f3
    self._f4 = _factory4() if _f4 is _MISSING else _f4
    self._f5 = _factory5() if _f5 is _MISSING else _f5
    self._f6 = _factory6() if _f6 is _MISSING else _f6
    self._f7 = _factory7() if _f7 is _MISSING else _f7
    self._f8 = _factory8() if _f8 is _MISSING else _f8
    self._f9 = _factory9() if _f9 is _MISSING else _f9
    self._f10 = _factory10() if _f10 is _MISSING else _f10


def frozen_init_12(self, _f0, _f1, _f2, _f3, _f4, _f5, _f6, _f7, _f8, _f9, _f10, _f11):
    _set(self, "_f0", _factory0() if _f0 is _MISSING else _f0)
    _set(self, "_f1", _factory1() if _f1 is _MISSING else _f1)
    _set(self, "_f2", _factory2() if _f2 is _MISSING else _f2)
    _set(self, "_f3", _factory3() if _f3 is _MISSING else _f3)
    _set(self, "_f4", _factory4() if _f4 is _MISSING else _f4)
    _set(self, "_f5", _factory5() if _f5 is _MISSING else _f5)
    _set(self, "_f6", _factory6() if _f6 is _MISSING else _f6)
    _set(self, "_f7", _factory7() if _f7 is _MISSING else _f7)
    _set(self, "_f8", _factory8() if _f8 is _MISSING else _f8)
    _set(self, "_f9", _factory9() if _f9 is _MISSING else _f9)
    _set(self, "_f10", _factory10() if _f10 is _MISSING else _f10)
    _set(self, "_f11", _factory11() if _f11 is _MISSING else _f11)


def mutable_init_12(self, _f0, _f1, _f2, _f3, _f4, _f5, _f6, _f7, _f8, _f9, _f10, _f11):
    self._f0 = _factory0() if _f0 is _MISSING else _f0
    self._f1 = _factory1() if _f1 is _MISSING else _f1
    self._f2 = _factory2() if _f2 is _MISSING else _f2
    self._f3 = _factory3() if _f3 is _MISSING else _f3
    self._f4 = _factory4() if _f4 is _MISSING else _f4
    self._f5 = _factory5() if _f5 is _MISSING else _f5
    self._f6 = _factory6() if _f6 is _MISSING else _f6
    self._f7 = _factory7() if _f7 is _MISSING else _f7
    self._f8 = _factory8() if _f8 is _MISSING else _f8
    self._f9 = _factory9() if _f9 is _MISSING else _f9
    self._f10 = _factory10() if _f10 is _MISSING else _f10
    self._f11 = _factory11() if _f11 is _MISSING else _f11


def frozen_init_13(self, _f0, _f1, _f2, _f3, _f4, _f5, _f6, _f7, _f8, _f9, _f10, _f11, _f12):
    _set(self, "_f0", _factory0() if _f0 is _MISSING else _f0)
    _set(self, "_f1", _factory1() if _f1 is _MISSING else _f1)
    _set(self, "_f2", _factory2() if _f2 is _MISSING else _f2)
    _set(self, "_f3", _factory3() if _f3 is _MISSING else _f3)
    _set(self, "_f4", _factory4() if _f4 is _MISSING else _f4)
    _set(self, "_f5", _factory5() if _f5 is _MISSING else _f5)
    _set(self, "_f6", _factory6() if _f6 is _MISSING else _f6)
    _set(self, "_f7", _factory7() if _f7 is _MISSING else _f7)
    _set(self, "_f8", _factory8() if _f8 is _MISSING else _f8)
    _set(self, "_f9", _factory9() if _f9 is _MISSING else _f9)
    _set(self, "_f10", _factory10() if _f10 is _MISSING else _f10)
    _set(self, "_f11", _factory11() if _f11 is _MISSING else _f11)
    _set(self, "_f12", _factory12() if _f12 is _MISSING else _f12)


def mutable_init_13(self, _f0, _f1, _f2, _f3, _f4, _f5, _f6, _f7, _f8, _f9, _f10, _f11, _f12):
    self._f0 = _factory0() if _f0 is _MISSING else _f0
    self._f1 = _factory1() if _f1 is _MISSING else _f1
    self._f2 = _factory2() if _f2 is _MISSING else _f2
    self._f3 = _factory3() if _f3 is _MISSING else _f3
    self._f4 = _factory4() if _f4 is _MISSING else _f4
    self._f5 = _factory5() if _f5 is _MISSING else _f5
    self._f6 = _factory6() if _f6 is _MISSING else _f6
    self._f7 = _factory7() if _f7 is _MISSING else _f7
    self._f8 = _factory8() if _f8 is _MISSING else _f8
    self._f9 = _factory9() if _f9 is _MISSING else _f9
    self._f10 = _factory10() if _f10 is _MISSING else _f10
    self._f11 = _factory11() if _f11 is _MISSING else _f11
    self._f12 = _factory12() if _f12 is _MISSING else _f12


def frozen_init_14(self, _f0, _f1, _f2, _f3, _f4, _f5, _f6, _f7, _f8, _f9, _f10, _f11, _f12, _f13):
    _set(self, "_f0", _factory0() if _f0 is _MISSING else _f0)
    _set(self, "_f1", _factory1() if _f1 is _MISSING else _f1)
    _set(self, "_f2", _factory2() if _f2 is _MISSING else _f2)
    _set(self, "_f3", _factory3() if _f3 is _MISSING else _f3)
    _set(self, "_f4", _factory4() if _f4 is _MISSING else _f4)
    _set(self, "_f5", _factory5() if _f5 is _MISSING else _f5)
    _set(self, "_f6", _factory6() if _f6 is _MISSING else _f6)
    _set(self, "_f7", _factory7() if _f7 is _MISSING else _f7)
    _set(self, "_f8", _factory8() if _f8 is _MISSING else _f8)
    _set(self, "_f9", _factory9() if _f9 is _MISSING else _f9)
    _set(self, "_f10", _factory10() if _f10 is _MISSING else _f10)
    _set(self, "_f11", _factory11() if _f11 is _MISSING else _f11)
    _set(self, "_f12", _factory12() if _f12 is _MISSING else _f12)
    _set(self, "_f13", _factory13() if _f13 is _MISSING else _f13)


def mutable_init_14(self, _f0, _f1, _f2, _f3, _f4, _f5, _f6, _f7, _f8, _f9, _f10, _f11, _f12, _f13):
    self._f0 = _factory0() if _f0 is _MISSING else _f0
    self._f1 = _factory1() if _f1 is _MISSING else _f1
    self._f2 = _factory2() if _f2 is _MISSING else _f2
    self._f3 = _factory3() if _f3 is _MISSING else _f3
    self._f4 = _factory4() if _f4 is _MISSING else _f4
    self._f5 = _factory5() if _f5 is _MISSING else _f5
    self._f6 = _factory6() if _f6 is _MISSING else _f6
    self._f7 = _factory7() if _f7 is _MISSING else _f7
    self._f8 = _factory8() if _f8 is _MISSING else _f8
    self._f9 = _factory9() if _f9 is _MISSING else _f9
    self._f10 = _factory10() if _f10 is _MISSING else _f10
    self._f11 = _factory11() if _f11 is _MISSING else _f11
    self._f12 = _factory12() if _f12 is _MISSING else _f12
    self._f13 = _factory13() if _f13 is _MISSING else _f13


def frozen_init_15(self, _f0, _f1, _f2, _f3, _f4, _f5, _f6, _f7, _f8, _f9, _f10, _f11, _f12, _f13, _f14):
    _set(self, "_f0", _factory0() if _f0 is _MISSING else _f0)
    _set(self, "_f1", _factory1() if _f1 is _MISSING else _f1)
    _set(self, "_f2", _factory2() if _f2 is _MISSING else _f2)
    _set(self, "_f3", _factory3() if _f3 is _MISSING else _f3)
    _set(self, "_f4", _factory4() if _f4 is _MISSING else _f4)
    _set(self, "_f5", _factory5() if _f5 is _MISSING else _f5)
    _set(self, "_f6", _factory6() if _f6 is _MISSING else _f6)
    _set(self, "_f7", _factory7() if _f7 is _MISSING else _f7)
    _set(self, "_f8", _factory8() if _f8 is _MISSING else _f8)
    _set(self, "_f9", _factory9() if _f9 is _MISSING else _f9)
    _set(self, "_f10", _factory10() if _f10 is _MISSING else _f10)
    _set(self, "_f11", _factory11() if _f11 is _MISSING else _f11)
    _set(self, "_f12", _factory12() if _f12 is _MISSING else _f12)
    _set(self, "_f13", _factory13() if _f13 is _MISSING else _f13)
    _set(self, "_f14", _factory14() if _f14 is _MISSING else _f14)


def mutable_init_15(self, _f0, _f1, _f2, _f3, _f4, _f5, _f6, _f7, _f8, _f9, _f10, _f11, _f12, _f13, _f14):
    self._f0 = _factory0() if _f0 is _MISSING else _f0
    self._f1 = _factory1() if _f1 is _MISSING else _f1
    self._f2 = _factory2() if _f2 is _MISSING else _f2
    self._f3 = _factory3() if _f3 is _MISSING else _f3
    self._f4 = _factory4() if _f4 is _MISSING else _f4
    self._f5 = _factory5() if _f5 is _MISSING else _f5
    self._f6 = _factory6() if _f6 is _MISSING else _f6
    self._f7 = _factory7() if _f7 is _MISSING else _f7
    self._f8 = _factory8() if _f8 is _MISSING else _f8
    self._f9 = _factory9() if _f9 is _MISSING else _f9
    self._f10 = _factory10() if _f10 is _MISSING else _f10
    self._f11 = _factory11() if _f11 is _MISSING else _f11
    self._f12 = _factory12() if _f12 is _MISSING else _f12
    self._f13 = _factory13() if _f13 is _MISSING else _f13
    self._f14 = _factory14() if _f14 is _MISSING else _f14


def frozen_init_16(self, _f0, _f1, _f2, _f3, _f4, _f5, _f6, _f7, _f8, _f9, _f10, _f11, _f12, _f13, _f14, _f15):
    _set(self, "_f0", _factory0() if _f0 is _MISSING else _f0)
    _set(self, "_f1", _factory1() if _f1 is _MISSING else _f1)
    _set(self, "_f2", _factory2() if _f2 is _MISSING else _f2)
    _set(self, "_f3", _factory3() if _f3 is _MISSING else _f3)
    _set(self, "_f4", _factory4() if _f4 is _MISSING else _f4)
    _set(self, "_f5", _factory5() if _f5 is _MISSING else _f5)
    _set(self, "_f6", _factory6() if _f6 is _MISSING else _f6)
    _set(self, "_f7", _factory7() if _f7 is _MISSING else _f7)
    _set(self, "_f8", _factory8() if _f8 is _MISSING else _f8)
    _set(self, "_f9", _factory9() if _f9 is _MISSING else _f9)
    _set(self, "_f10", _factory10() if _f10 is _MISSING else _f10)
    _set(self, "_f11", _factory11() if _f11 is _MISSING else _f11)
    _set(self, "_f12", _factory12() if _f12 is _MISSING else _f12)
    _set(self, "_f13", _factory13() if _f13 is _MISSING else _f13)
    _set(self, "_f14", _factory14() if _f14 is _MISSING else _f14)
    _set(self, "_f15", _factory15() if _f15 is _MISSING else _f15)


def mutable_init_16(self, _f0, _f1, _f2, _f3, _f4, _f5, _f6, _f7, _f8, _f9, _f10, _f11, _f12, _f13, _f14, _f15):
    self._f0 = _factory0() if _f0 is _MISSING else _f0
    self._f1 = _factory1() if _f1 is _MISSING else _f1
    self._f2 = _factory2() if _f2 is _MISSING else _f2
    self._f3 = _factory3() if _f3 is _MISSING else _f3
    self._f4 = _factory4() if _f4 is _MISSING else _f4
    self._f5 = _factory5() if _f5 is _MISSING else _f5
    self._f6 = _factory6() if _f6 is _MISSING else _f6
    self._f7 = _factory7() if _f7 is _MISSING else _f7
    self._f8 = _factory8() if _f8 is _MISSING else _f8
    self._f9 = _factory9() if _f9 is _MISSING else _f9
    self._f10 = _factory10() if _f10 is _MISSING else _f10
    self._f11 = _factory11() if _f11 is _MISSING else _f11
    self._f12 = _factory12() if _f12 is _MISSING else _f12
    self._f13 = _factory13() if _f13 is _MISSING else _f13
    self._f14 = _factory14() if _f14 is _MISSING else _f14
    self._f15 = _factory15() if _f15 is _MISSING else _f15
