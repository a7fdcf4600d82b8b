"""Allow ``python -m boundlint``."""
import sys

from boundlint.cli import main

sys.exit(main())
