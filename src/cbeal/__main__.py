"""``python -m cbeal`` is the ``cbeal`` command."""

import sys

from cbeal.cli import main

sys.exit(main())
