"""`python -m tui.cli`: the crtdesk command."""

import sys

from tui.cli import main

sys.exit(main())
