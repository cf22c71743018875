"""Check the CPU times the README states against this run's (CI, after the test suite).

The README states the CPU time of its three commands: the main job, the example and the
test suite. This script runs the first two (in child processes) and reads the suite's
from the file the test session wrote (``SKLEARN_PRIVACY_SUITE_TIME``, see
``tests/conftest.py``), prints each figure beside the measured one, and fails when one
is more than twice or less than half the README's: the figures then need re-measuring.
"""

import json
import os
import re
import resource
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
README = (ROOT / "README.md").read_text()
TOLERANCE = 2.0


def stated():
    """The README's CPU seconds of the main job, the example and the test suite."""
    job = re.search(r"tradeoff\.png` \(about (\d+) s of CPU time", README)
    example = re.search(r"Its output \(.*?about (\d+) s of CPU time", README, flags=re.S)
    suite = re.search(r"(\d+) min (\d+) s of CPU\s+time", README)
    return {
        "main job": float(job.group(1)),
        "README example": float(example.group(1)),
        "test suite": 60.0 * float(suite.group(1)) + float(suite.group(2)),
    }


def child_cpu(args, **kwargs):
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    subprocess.run(args, check=True, stdout=subprocess.DEVNULL, **kwargs)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def example_code():
    example = README[README.index("## Example") :]
    return re.search(r"```python\n(.*?)```", example, flags=re.S).group(1)


def main():
    figures = stated()
    home = os.environ.get("SKLEARN_PRIVACY_DATA")
    data = ["--data-home", home] if home else []
    plot = Path(tempfile.mkdtemp()) / "tradeoff.png"
    measured = {
        "main job": child_cpu([sys.executable, "-m", "sklearn_privacy", *data, "--output", plot]),
        "README example": child_cpu([sys.executable, "-c", example_code()]),
        "test suite": json.loads(Path(os.environ["SKLEARN_PRIVACY_SUITE_TIME"]).read_text())[
            "cpu_s"
        ],
    }
    failed = False
    for name, figure in figures.items():
        ratio = measured[name] / figure
        ok = 1.0 / TOLERANCE <= ratio <= TOLERANCE
        failed |= not ok
        print(
            f"{name:15s} README {figure:6.0f} s CPU, measured {measured[name]:6.0f} s "
            f"({ratio:.2f}x)" + ("" if ok else "  <- re-measure and update the README")
        )
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
