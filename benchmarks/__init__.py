"""asv benchmarks for numtorch (see docs/PERFORMANCE.md); shared helpers in ``common.py``.

asv imports this package without putting the repository on ``sys.path``; when numtorch is not
installed in the environment, the checkout's own copy is used, in this process and (through
``PYTHONPATH``) in the fresh interpreters that the ``timeraw_`` benchmarks start.
"""

import importlib.util
import os
import sys
from pathlib import Path

if importlib.util.find_spec("numtorch") is None:
    _root = str(Path(__file__).resolve().parent.parent)
    sys.path.insert(0, _root)
    os.environ["PYTHONPATH"] = os.pathsep.join(filter(None, [_root, os.environ.get("PYTHONPATH")]))
