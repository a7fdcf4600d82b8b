"""The names a fix writes and the imports it adds (``boundlint.fixes.imports``)."""
from __future__ import annotations

import libcst as cst

from boundlint.fixes.imports import add_imports, module_reference, reference


def _module(text: str) -> cst.Module:
    return cst.parse_module(text)


def test_reference_uses_what_the_module_already_names():
    assert reference(_module("from pydantic import Field as F\n"), ("pydantic",), "Field") == ("F", None)
    assert reference(_module("import msgspec\n"), ("msgspec",), "Meta") == ("msgspec.Meta", None)
    assert reference(_module("import pydantic as pd\n"), ("pydantic",), "Field") == ("pd.Field", None)
    assert reference(_module("x = 1\n"), ("pydantic",), "Field") == ("Field", ("pydantic", "Field"))
    # `Field` means something else here: the fix cannot name pydantic's
    assert reference(_module("from dataclasses import field as Field\n"), ("pydantic",), "Field") is None
    assert reference(_module("class Field:\n    pass\n"), ("pydantic",), "Field") is None
    assert module_reference(_module("import grpc\n"), "grpc") == ("grpc", None)
    assert module_reference(_module("grpc = None\n"), "grpc") is None


def test_add_imports_once_and_merged():
    text = '"""Doc."""\nfrom __future__ import annotations\n\nfrom typing import (\n    List,\n)\n\nx = 1\n'
    out = add_imports(_module(text), [("typing", "Annotated"), ("typing", "Annotated"), ("pydantic", "Field"),
                                      ("pydantic", "Field"), ("grpc", None), ("grpc", None)]).code
    assert out == ('"""Doc."""\nfrom __future__ import annotations\n\nfrom typing import (\n    List,\n    Annotated,\n)\n'
                   "from pydantic import Field\nimport grpc\n\nx = 1\n")
    assert add_imports(_module("from pydantic import BaseModel, Field\n"), [("pydantic", "Field")]).code == \
        "from pydantic import BaseModel, Field\n"
    assert add_imports(_module("x = 1\n"), [("typing", "Annotated")]).code == "from typing import Annotated\nx = 1\n"
