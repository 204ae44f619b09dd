"""``python -m chatschema``: the command line."""

import sys

from chatschema.cli import main

sys.exit(main())
