"""The ``check`` flags of fixing, apart from ``command`` so that parsing them imports nothing more."""
from __future__ import annotations


def add_arguments(check) -> None:
    """``--fix``, ``--unsafe-fixes``, ``--fix-only`` and ``--diff`` on the ``check`` parser."""
    check.add_argument("--fix", action="store_true", help="apply the safe fixes, then report what is left")
    check.add_argument("--unsafe-fixes", action="store_true", dest="unsafe_fixes",
                       help="with --fix, --fix-only or --diff, apply the unsafe fixes too (they change behaviour: "
                            "a cap rejects larger requests)")
    check.add_argument("--fix-only", action="store_true", dest="fix_only", help="apply the fixes and report nothing")
    check.add_argument("--diff", action="store_true",
                       help="print the fixes as a unified diff and change nothing (exit 1 when there is something to fix)")
