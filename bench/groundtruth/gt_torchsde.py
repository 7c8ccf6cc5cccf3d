"""Ground-truth bench, torchsde: neural SDEs integrated by each of its solvers.

A diagonal-noise SDE with MLP drift and diffusion (``SDE``, bench code; Itô or Stratonovich) is
integrated by ``sdeint`` with each solver of ``SOLVERS``, by ``sdeint_adjoint`` and with ``logqp``.
The compiled module is bench code, so its entry points name the library function it calls.
``names()`` needs no torch; ``build`` runs in a worker only.

Part of the harness run by ``python bench/groundtruth/groundtruth.py`` (see ``README.md``).
"""

from __future__ import annotations

from typing import Any

Built = tuple[Any, tuple[Any, ...], dict[str, Any]]

# Model name -> (SDE type, sdeint keywords).
SOLVERS: dict[str, tuple[str, dict[str, Any]]] = {
    "ito.euler": ("ito", {"method": "euler"}), "ito.milstein": ("ito", {"method": "milstein"}),
    "ito.srk": ("ito", {"method": "srk"}), "stratonovich.heun": ("stratonovich", {"method": "heun"}),
    "stratonovich.midpoint": ("stratonovich", {"method": "midpoint"}),
    "stratonovich.reversible_heun": ("stratonovich", {"method": "reversible_heun"}),
    "stratonovich.log_ode": ("stratonovich", {"method": "log_ode"}),
    "ito.euler.adaptive": ("ito", {"method": "euler", "adaptive": True}),
    "ito.euler.logqp": ("ito", {"method": "euler", "logqp": True}),
    "adjoint.stratonovich.midpoint": ("stratonovich", {"method": "midpoint", "adjoint": True}),
    "adjoint.reversible_heun": ("stratonovich", {"method": "reversible_heun", "adjoint": True,
                                                 "adjoint_method": "adjoint_reversible_heun"}),
}


def names() -> list[str]:
    return list(SOLVERS)


def build(name: str) -> Built:
    import torch
    import torchsde
    from torch import nn

    sde_type, keywords = SOLVERS[name]
    keywords = dict(keywords)
    adjoint = keywords.pop("adjoint", False)
    logqp = keywords.get("logqp", False)

    class SDE(nn.Module):
        """dy = f(t, y) dt + g(t, y) dW with diagonal noise, both small MLPs."""

        noise_type = "diagonal"

        def __init__(self) -> None:
            super().__init__()
            self.sde_type = sde_type
            self.drift = nn.Sequential(nn.Linear(3, 8), nn.Tanh(), nn.Linear(8, 3))
            self.diffusion = nn.Sequential(nn.Linear(3, 8), nn.Tanh(), nn.Linear(8, 3), nn.Sigmoid())

        def f(self, t: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
            return self.drift(y)

        def g(self, t: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
            return self.diffusion(y)

        def h(self, t: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
            return -y

    class Integrate(nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.sde = SDE()
            self.function = torchsde.sdeint_adjoint if adjoint else torchsde.sdeint

        def forward(self, y0: torch.Tensor, ts: torch.Tensor) -> Any:
            extra = {"names": {"drift": "f", "diffusion": "g", "prior_drift": "h"}} if logqp else {}
            return self.function(self.sde, y0, ts, dt=0.1, **keywords, **extra)

        def entry_points(self) -> list[Any]:
            return [self.function]

    y0 = torch.randn(2, 3, generator=torch.Generator().manual_seed(0))
    return Integrate(), (y0, torch.linspace(0, 0.3, 3)), {}
