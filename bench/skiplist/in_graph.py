"""Write the torch functions Dynamo puts in the graph whole, without tracing their Python, from the
installed torch's trace rules.

    python bench/skiplist/in_graph.py           # rewrite dynalint/analysis/in_graph_functions.py
    python bench/skiplist/in_graph.py --check   # exit 1 when the module is not what torch says

``torch._dynamo.trace_rules.torch_non_c_binding_in_graph_functions`` lists Python functions of torch
(``torch.nn.functional.interpolate``, ``gaussian_nll_loss``, ...) that Dynamo records as one call in the
graph: their bodies run only under fake tensors and are never traced, so nothing in them breaks the
graph. Linting torch itself, the program stage takes them for functions Dynamo does not trace.
"""

from __future__ import annotations

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(Path(__file__).resolve().parent))

from generated import regenerate  # noqa: E402

GENERATED = ROOT / "dynalint" / "analysis" / "in_graph_functions.py"


def render() -> str:
    import torch
    from torch._dynamo import trace_rules

    names = sorted(trace_rules.torch_non_c_binding_in_graph_functions)
    body = "\n".join(f'    "{name}",' for name in names)
    version = torch.__version__.split("+")[0]
    return f'''"""Torch functions Dynamo puts in the graph whole, read from torch {version}'s trace rules (generated: do
not edit; ``python bench/skiplist/in_graph.py`` writes it).

Dynamo records a call of one of these as one node and never traces its Python body, so linting torch
itself, the program stage does not take them for compiled code (``Program.is_traced``).
"""

IN_GRAPH_FUNCTIONS = frozenset({{
{body}
}})
'''


def main() -> int:
    return regenerate(__doc__.split("\n")[0], GENERATED, render, ROOT)


if __name__ == "__main__":
    raise SystemExit(main())
