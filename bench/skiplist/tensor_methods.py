"""Write the names of ``torch.Tensor``'s public methods and attributes, read from the installed torch.

    python bench/skiplist/tensor_methods.py           # rewrite dynalint/analysis/tensor_method_names.py
    python bench/skiplist/tensor_methods.py --check   # exit 1 when the module is not what torch says

The program stage resolves ``value.method(...)`` by the method's name when it cannot tell the value's
class (``Program._by_name``). A name that ``torch.Tensor`` also has (``expand``, ``repeat``, ``mean``) may
just as well be a tensor's method, which Dynamo puts in the graph: such names are never resolved that way.
"""

from __future__ import annotations

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(Path(__file__).resolve().parent))

from generated import regenerate  # noqa: E402

GENERATED = ROOT / "dynalint" / "analysis" / "tensor_method_names.py"


def render() -> str:
    import torch

    names = sorted(name for name in dir(torch.Tensor) if not name.startswith("_"))
    body = "\n".join(f'    "{name}",' for name in names)
    version = torch.__version__.split("+")[0]
    return f'''"""The public names of ``torch.Tensor`` on torch {version} (generated: do not edit;
``python bench/skiplist/tensor_methods.py`` writes it).

``Program._by_name`` never takes ``value.<name>(...)`` for a method of the tree when a tensor has a method
of that name: the value may be a tensor.
"""

TENSOR_METHOD_NAMES = frozenset({{
{body}
}})
'''


def main() -> int:
    return regenerate(__doc__.split("\n")[0], GENERATED, render, ROOT)


if __name__ == "__main__":
    raise SystemExit(main())
