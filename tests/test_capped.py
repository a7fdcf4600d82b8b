"""facts.capped: the caps the volume reader accepts, and the look-alikes it refuses."""
import libcst as cst
import pytest

from boundlint.analysis.facts import capped


def _func(source: str) -> cst.FunctionDef:
    return cst.parse_module(source).body[0]


GUARDED = """
def plan(items):
    kept = tuple(items)
    if len(kept) > 4:
        return None
    return [fetch(k) for k in kept]
"""


def test_a_length_guard_that_returns_caps_the_name():
    assert capped.cap(_func(GUARDED), "kept") == "at most 4 items: `len(kept) > 4` leaves early"


def test_an_inclusive_guard_that_raises_says_fewer_than():
    func = _func("def f(xs):\n    if len(xs) >= LIMIT:\n        raise ValueError(xs)\n    return xs\n")
    assert capped.cap(func, "xs") == "fewer than LIMIT items: `len(xs) >= LIMIT` leaves early"


@pytest.mark.parametrize("source", [
    # used before the guard
    "def f(xs):\n    go(xs)\n    if len(xs) > 4:\n        return None\n",
    # rebound after the guard
    "def f(xs):\n    if len(xs) > 4:\n        return None\n    xs = more()\n    go(xs)\n",
    # a guard that goes on
    "def f(xs):\n    if len(xs) > 4:\n        log(xs)\n    go(xs)\n",
    # a guard with an else
    "def f(xs):\n    if len(xs) > 4:\n        return None\n    else:\n        pass\n    go(xs)\n",
    # the wrong direction
    "def f(xs):\n    if len(xs) < 4:\n        return None\n    go(xs)\n",
])
def test_look_alikes_of_a_guard_cap_nothing(source):
    assert capped.cap(_func(source), "xs") == ""


FLUSHED = """
async def scan(records):
    window = []

    async def drain():
        if window:
            await send(tuple(window))
            window.clear()

    for record in records:
        window.append(record)
        if len(window) >= SIZE:
            await drain()
    await drain()
"""


def test_a_buffer_emptied_at_a_constant_size_is_capped():
    assert capped.cap(_func(FLUSHED), "window") == "at most SIZE items: emptied when `len(window) >= SIZE`"


@pytest.mark.parametrize("change", [
    ("            await drain()\n", "            note()\n"),  # never emptied
    ("        window.append(record)\n", "        window.extend(record)\n"),  # many at once
    ("    await drain()\n", "    await drain()\n    window.append(last)\n"),  # a fill with no check after it
    ("            window.clear()\n", "            pass\n"),  # the helper does not empty it
    ("        window.append(record)\n", "        [window.append(r) for r in record]\n"),  # many in one statement
    ("    await drain()\n", "    await drain()\n    for r in records: window.append(r)\n"),  # a one-line body
])
def test_look_alikes_of_a_flushed_buffer_cap_nothing(change):
    old, new = change
    assert old in FLUSHED
    assert capped.cap(_func(FLUSHED.replace(old, new, 1)), "window") == ""
