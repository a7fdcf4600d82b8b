"""The container vocabulary both element readers share (``analysis.facts.elements`` with LibCST,
``index.elements`` with ``ast``): builtins, ``typing``, ``collections`` and ``collections.abc`` names,
matched by their last dotted part.  Imports neither LibCST nor ``ast``."""
from __future__ import annotations

VALUE, KEY = "value", "key"  # a mapping's value (or a sequence's item); what iterating the container gives
# containers whose last type parameter is the value an element access gives
MAPPINGS = frozenset({"dict", "Dict", "Mapping", "MutableMapping", "defaultdict", "DefaultDict",
                      "OrderedDict", "ChainMap", "WeakValueDictionary"})
# containers of one item type: iterating, indexing or ``pop()`` gives that type
SEQUENCES = frozenset({"list", "List", "Sequence", "MutableSequence", "Iterable", "Iterator", "Collection",
                       "set", "Set", "frozenset", "FrozenSet", "AbstractSet", "MutableSet", "deque", "Deque",
                       "Reversible", "tuple", "Tuple", "WeakSet"})
# qualifiers an annotation wraps the container in
UNWRAP = frozenset({"Optional", "Final", "ClassVar", "Annotated"})
# calls that hand on the items of their one argument (``for g in reversed(groups)``)
WRAPPERS = frozenset({"list", "sorted", "tuple", "set", "reversed", "iter", "frozenset"})
