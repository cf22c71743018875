"""``python -m sklearn_privacy``: run the main privacy/accuracy trade-off job."""

import sys

from sklearn_privacy._demo import main

if __name__ == "__main__":
    sys.exit(main())
