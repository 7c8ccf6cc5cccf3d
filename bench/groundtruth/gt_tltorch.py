"""Ground-truth bench, tltorch: tensorly-torch's factorized and tensorized layers, tensor hooks and functions.

tltorch 0.5.0 (tensorly-torch) parametrizes weights as low-rank tensors (``FactorizedTensor``: ``CPTensor``,
``TuckerTensor``, ``TTTensor``, ``DenseTensor``; ``TensorizedTensor`` for matrices reshaped to higher order:
``CPTensorized``, ``TuckerTensorized``, ``BlockTT``, ``DenseTensorized``; their complex variants), each an
``nn.Module`` whose forward returns the factorization (or an indexed slice of it) and whose ``to_tensor`` /
``to_matrix`` reconstruct it through tensorly's PyTorch backend. The layers built on them, at tiny sizes with random
weights, are what the tables cover:

- ``LINEAR``: ``FactorizedLinear`` with CP, Tucker, BlockTT and dense tensorized weights, the ``factorized``
  (contracting the input with the factors) and ``reconstructed`` implementations, without bias, jointly
  parametrized layers (``n_layers`` with an index, ``get_linear``), gradient checkpointing in training, from an
  ``nn.Linear`` (``from_linear``, auto-tensorized), on 2-d and 3-d inputs;
- ``CONV``: ``FactorizedConv`` 1-d, 2-d and 3-d with CP (factorized and MobileNet-style), Tucker, TT and dense
  kernels, reconstructed, with stride, padding, dilation and bias, jointly parametrized (``get_conv``), from an
  ``nn.Conv2d`` (``from_conv``) and ``transduct``-ed from 2-d to 3-d;
- ``EMBEDDING``: ``FactorizedEmbedding`` with BlockTT, CP and Tucker weights, auto-tensorized or given shapes,
  jointly parametrized (``get_embedding``), from an ``nn.Embedding``;
- ``REGRESSION``: the tensor regression layer ``TRL`` (CP, Tucker, TT, dense; bias; several output modes) and the
  tensor contraction layer ``TCL``;
- ``HOOKS``: ``tensor_dropout`` (in training, and at test time with ``drop_test``) and ``tensor_lasso`` (its loss
  read in the forward) on the CP, Tucker and TT weights of a ``TRL`` (where they stay idle: the layer never calls
  its weight) or a ``FactorizedConv`` (where they run; its dropout keeps every rank, since sampling one fails
  under Dynamo);
- ``TENSORS``: the factorized tensors used directly, as users write tensor methods: reconstruction, indexing,
  ``torch`` functions on a factorization (``__torch_function__``), the complex factorizations, and the functional
  API (``convolve``, ``tucker_conv``, ``factorized_linear``, ``trl``, ``tensor_dot_tucker`` and ``tensor_dot_cp``);
- ``TRAIN``: training steps (``loss.backward`` and an SGD or Adam step) through a factorized MLP, a factorized CNN
  with a TCL and a TRL head, a TRL with tensor dropout and a lasso penalty, and a factorized embedding.

Nothing is downloaded; ``names()`` needs no torch, ``build(name)`` runs in a worker only.

Part of the harness run by ``python bench/groundtruth/groundtruth.py`` (see ``README.md``).
"""

from __future__ import annotations

from typing import Any

Built = tuple[Any, tuple[Any, ...], dict[str, Any]]
BATCH = 2

# Model name -> (``FactorizedLinear`` keywords, input shape, how it runs: "plain", "index1", "sub1", "checkpoint",
# "from_linear"). Tensorized features: 8 in as (2, 4), 12 out as (3, 4).
LINEAR: dict[str, tuple[dict[str, Any], tuple[int, ...], str]] = {
    "FactorizedLinear.cp.factorized": ({"factorization": "cp", "rank": 0.5}, (BATCH, 8), "plain"),
    "FactorizedLinear.cp.reconstructed": ({"factorization": "cp", "implementation": "reconstructed"}, (BATCH, 8),
                                          "plain"),
    "FactorizedLinear.tucker.factorized": ({"factorization": "tucker", "rank": 0.5}, (BATCH, 8), "plain"),
    "FactorizedLinear.tucker.reconstructed": ({"factorization": "tucker", "implementation": "reconstructed"},
                                              (BATCH, 8), "plain"),
    "FactorizedLinear.blocktt.factorized": ({"factorization": "blocktt", "rank": 0.5}, (BATCH, 8), "plain"),
    "FactorizedLinear.blocktt.reconstructed": ({"factorization": "blocktt", "implementation": "reconstructed"},
                                               (BATCH, 8), "plain"),
    "FactorizedLinear.dense": ({"factorization": "dense"}, (BATCH, 8), "plain"),
    "FactorizedLinear.cp.no_bias.3d_input": ({"factorization": "cp", "bias": False}, (BATCH, 5, 8), "plain"),
    "FactorizedLinear.tucker.3d_input": ({"factorization": "tucker"}, (BATCH, 5, 8), "plain"),
    "FactorizedLinear.cp.n_layers.index": ({"factorization": "cp", "n_layers": 3}, (BATCH, 8), "index1"),
    "FactorizedLinear.cp.n_layers.get_linear": ({"factorization": "cp", "n_layers": 2}, (BATCH, 8), "sub1"),
    "FactorizedLinear.blocktt.n_layers.index": ({"factorization": "blocktt", "n_layers": 2}, (BATCH, 8), "index1"),
    "FactorizedLinear.cp.checkpointing": ({"factorization": "cp", "checkpointing": True}, (BATCH, 8), "checkpoint"),
    "FactorizedLinear.from_linear.cp": ({"factorization": "cp"}, (BATCH, 16), "from_linear"),
    "FactorizedLinear.from_linear.tucker.factorized": ({"factorization": "tucker", "implementation": "factorized"},
                                                       (BATCH, 16), "from_linear"),
}
# Model name -> (``FactorizedConv`` keywords, input shape, how it runs: "plain", "index1", "sub1", "from_conv",
# "transduct"). 4 channels in, 6 out.
CONV: dict[str, tuple[dict[str, Any], tuple[int, ...], str]] = {
    "FactorizedConv.2d.cp.factorized": ({"kernel_size": 3, "order": 2, "factorization": "cp", "padding": 1},
                                        (BATCH, 4, 6, 6), "plain"),
    "FactorizedConv.2d.cp.mobilenet": ({"kernel_size": 3, "order": 2, "factorization": "cp",
                                        "implementation": "mobilenet"}, (BATCH, 4, 6, 6), "plain"),
    "FactorizedConv.2d.cp.reconstructed": ({"kernel_size": 3, "order": 2, "factorization": "cp",
                                            "implementation": "reconstructed", "bias": True}, (BATCH, 4, 6, 6),
                                           "plain"),
    "FactorizedConv.2d.tucker.factorized": ({"kernel_size": (3, 3), "factorization": "tucker", "rank": 0.5,
                                             "stride": 2, "padding": 1, "bias": True}, (BATCH, 4, 6, 6), "plain"),
    "FactorizedConv.2d.tucker.fixed_spatial_rank": ({"kernel_size": 3, "order": 2, "factorization": "tucker",
                                                     "fixed_rank_modes": "spatial"}, (BATCH, 4, 6, 6), "plain"),
    "FactorizedConv.2d.tt.factorized": ({"kernel_size": 3, "order": 2, "factorization": "tt", "rank": 0.5,
                                         "dilation": 2, "padding": 2}, (BATCH, 4, 6, 6), "plain"),
    "FactorizedConv.2d.tt.reconstructed": ({"kernel_size": 3, "order": 2, "factorization": "tt",
                                            "implementation": "reconstructed"}, (BATCH, 4, 6, 6), "plain"),
    "FactorizedConv.2d.dense": ({"kernel_size": 3, "order": 2, "factorization": "dense",
                                 "implementation": "reconstructed"}, (BATCH, 4, 6, 6), "plain"),
    "FactorizedConv.1d.cp": ({"kernel_size": 3, "order": 1, "factorization": "cp", "padding": 1}, (BATCH, 4, 10),
                             "plain"),
    "FactorizedConv.1d.cp.mobilenet": ({"kernel_size": 3, "order": 1, "factorization": "cp",
                                        "implementation": "mobilenet"}, (BATCH, 4, 10), "plain"),
    "FactorizedConv.3d.tucker": ({"kernel_size": 3, "order": 3, "factorization": "tucker", "padding": 1},
                                 (BATCH, 4, 4, 4, 4), "plain"),
    "FactorizedConv.3d.cp.mobilenet": ({"kernel_size": 3, "order": 3, "factorization": "cp",
                                        "implementation": "mobilenet"}, (BATCH, 4, 4, 4, 4), "plain"),
    "FactorizedConv.3d.tt": ({"kernel_size": 3, "order": 3, "factorization": "tt"}, (BATCH, 4, 4, 4, 4), "plain"),
    "FactorizedConv.2d.cp.n_layers.index": ({"kernel_size": 3, "order": 2, "factorization": "cp", "n_layers": 2,
                                             "bias": True, "has_bias": True}, (BATCH, 4, 6, 6), "index1"),
    "FactorizedConv.2d.tucker.n_layers.get_conv": ({"kernel_size": 3, "order": 2, "factorization": "tucker",
                                                    "n_layers": 3, "padding": 1}, (BATCH, 4, 6, 6), "sub1"),
    "FactorizedConv.from_conv.cp": ({"factorization": "cp"}, (BATCH, 4, 6, 6), "from_conv"),
    "FactorizedConv.from_conv.tucker.factorized": ({"factorization": "tucker", "implementation": "factorized"},
                                                   (BATCH, 4, 6, 6), "from_conv"),
    "FactorizedConv.transduct.cp": ({"kernel_size": 3, "order": 2, "factorization": "cp", "padding": 1},
                                    (BATCH, 4, 3, 6, 6), "transduct"),
    "FactorizedConv.transduct.tt": ({"kernel_size": 3, "order": 2, "factorization": "tt", "padding": 1},
                                    (BATCH, 4, 3, 6, 6), "transduct"),
}
# Model name -> (``FactorizedEmbedding`` keywords, how it runs: "plain", "sub1", "from_embedding"); 16 tokens of 8.
EMBEDDING: dict[str, tuple[dict[str, Any], str]] = {
    "FactorizedEmbedding.blocktt": ({"factorization": "blocktt", "rank": 4}, "plain"),
    "FactorizedEmbedding.cp": ({"factorization": "cp", "rank": 4}, "plain"),
    "FactorizedEmbedding.tucker": ({"factorization": "tucker", "rank": 4}, "plain"),
    "FactorizedEmbedding.blocktt.given_shapes": ({"factorization": "blocktt", "rank": 3, "auto_tensorize": False,
                                                  "tensorized_num_embeddings": (4, 4),
                                                  "tensorized_embedding_dim": (2, 4)}, "plain"),
    "FactorizedEmbedding.blocktt.n_layers.get_embedding": ({"factorization": "blocktt", "rank": 4, "n_layers": 2},
                                                           "sub1"),
    "FactorizedEmbedding.from_embedding.blocktt": ({"factorization": "blocktt", "rank": 4}, "from_embedding"),
}
# Model name -> (layer, keywords, input shape).
REGRESSION: dict[str, tuple[str, dict[str, Any], tuple[int, ...]]] = {
    "TRL.cp": ("TRL", {"input_shape": (4, 3, 3), "output_shape": (5,), "factorization": "cp", "rank": 4},
               (BATCH, 4, 3, 3)),
    "TRL.tucker.bias": ("TRL", {"input_shape": (4, 3, 3), "output_shape": (5,), "factorization": "tucker",
                                "rank": 0.5, "bias": True}, (BATCH, 4, 3, 3)),
    "TRL.tt": ("TRL", {"input_shape": (4, 3, 3), "output_shape": (5,), "factorization": "tt", "rank": 0.5},
               (BATCH, 4, 3, 3)),
    "TRL.dense.bias": ("TRL", {"input_shape": (4, 3), "output_shape": 5, "factorization": "dense", "bias": True},
                       (BATCH, 4, 3)),
    "TRL.cp.output_modes2": ("TRL", {"input_shape": (4, 3), "output_shape": (2, 5), "factorization": "cp",
                                     "rank": 0.5, "bias": True}, (BATCH, 4, 3)),
    "TCL": ("TCL", {"input_shape": (4, 6, 6), "rank": (3, 4, 4)}, (BATCH, 4, 6, 6)),
    "TCL.int_rank": ("TCL", {"input_shape": (4, 5), "rank": 2}, (BATCH, 4, 5)),
}
# Model name -> (what: "dropout", "dropout.test", "dropout.min_dim", "lasso"; factorization; layer: "trl" or "conv").
# ``TRL`` passes its weight to ``trl`` uncalled, so its hooks stay registered but idle; ``FactorizedConv`` calls its
# weight, which runs them. A dropout that samples (``torch.bernoulli`` into a bool ``out``) fails under Dynamo's fake
# tensors, so the convolution's dropout keeps every rank (``min_dim`` above the ranks): the hook's indexing path.
HOOKS: dict[str, tuple[str, str, str]] = {
    "tensor_dropout.TRL.cp": ("dropout", "cp", "trl"),
    "tensor_dropout.TRL.tucker": ("dropout", "tucker", "trl"),
    "tensor_dropout.TRL.tt": ("dropout", "tt", "trl"),
    "tensor_dropout.TRL.cp.drop_test": ("dropout.test", "cp", "trl"),
    "tensor_dropout.FactorizedConv.tucker.min_dim": ("dropout.min_dim", "tucker", "conv"),
    "tensor_dropout.FactorizedConv.tt.min_dim": ("dropout.min_dim", "tt", "conv"),
    "tensor_lasso.TRL.cp": ("lasso", "cp", "trl"),
    "tensor_lasso.TRL.tucker": ("lasso", "tucker", "trl"),
    "tensor_lasso.TRL.tt": ("lasso", "tt", "trl"),
    "tensor_lasso.FactorizedConv.tucker": ("lasso", "tucker", "conv"),
    "tensor_lasso.FactorizedConv.cp": ("lasso", "cp", "conv"),
    "tensor_lasso.FactorizedConv.tt": ("lasso", "tt", "conv"),
}
TENSORS = (
    "CPTensor.to_tensor",
    "TuckerTensor.to_tensor",
    "TTTensor.to_tensor",
    "DenseTensor.to_tensor",
    "CPTensor.getitem.int",
    "TuckerTensor.getitem.slice",
    "TTTensor.getitem.tuple",
    "CPTensor.torch_function.matmul",
    "CPTensorized.to_matrix",
    "TuckerTensorized.getitem",
    "BlockTT.to_matrix",
    "BlockTT.getitem.rows",
    "ComplexCPTensor.to_tensor",
    "ComplexTuckerTensor.to_tensor",
    "ComplexDenseTensor.to_tensor",
    "ComplexBlockTT.to_matrix",
    "functional.convolve.tensor",
    "functional.convolve.tt",
    "functional.tucker_conv",
    "functional.factorized_linear.dense_weight",
    "functional.trl.tucker.project_input",
    "functional.tensor_dot_tucker",
    "functional.tensor_dot_cp",
)
TRAIN = (
    "train.FactorizedLinear.mlp.sgd",
    "train.FactorizedLinear.blocktt.adam",
    "train.factorized_cnn.tcl_trl",
    "train.TRL.tucker.dropout_lasso",
    "train.FactorizedEmbedding.classifier",
    "train.FactorizedConv.tt.backward",
)


def names() -> list[str]:
    return list(LINEAR) + list(CONV) + list(EMBEDDING) + list(REGRESSION) + list(HOOKS) + list(TENSORS) + list(TRAIN)


def _input(shape: tuple[int, ...], seed: int = 0) -> Any:
    import torch

    return torch.randn(*shape, generator=torch.Generator().manual_seed(seed))


def _linear(name: str) -> Built:
    import tltorch
    from torch import nn

    from gt_calls import Keywords

    keywords, shape, how = LINEAR[name]
    if how == "from_linear":
        layer = tltorch.FactorizedLinear.from_linear(nn.Linear(16, 12), n_tensorized_modes=2, rank=0.5, **keywords)
        return layer, (_input(shape),), {}
    layer = tltorch.FactorizedLinear((2, 4), (3, 4), **keywords)
    if how == "index1":
        return Keywords(layer, indices=1), (_input(shape),), {}
    if how == "sub1":
        return layer.get_linear(1), (_input(shape),), {}
    if how == "checkpoint":  # checkpointing applies to an input that requires grad: a linear layer before it
        class _Checkpointed(nn.Module):
            def __init__(self) -> None:
                super().__init__()
                self.first = nn.Linear(8, 8)
                self.factorized = layer

            def forward(self, x: Any) -> Any:
                return self.factorized(self.first(x))

            def entry_points(self) -> list[Any]:
                return [tltorch.FactorizedLinear]

        return _Checkpointed(), (_input(shape),), {}
    return layer, (_input(shape),), {}


def _conv(name: str) -> Built:
    import tltorch
    from torch import nn

    from gt_calls import Keywords

    keywords, shape, how = CONV[name]
    if how == "from_conv":
        conv = nn.Conv2d(4, 6, 3, padding=1)
        return tltorch.FactorizedConv.from_conv(conv, rank=0.5, **keywords), (_input(shape),), {}
    layer = tltorch.FactorizedConv(4, 6, **keywords)
    if how == "index1":
        return Keywords(layer, indices=1), (_input(shape),), {}
    if how == "sub1":
        return layer.get_conv(1), (_input(shape),), {}
    if how == "transduct":  # an image convolution turned into a video one (time kernel of 3)
        layer.transduct(3, mode=0, padding=1)
    return layer, (_input(shape),), {}


def _embedding(name: str) -> Built:
    import torch
    import tltorch
    from torch import nn

    keywords, how = EMBEDDING[name]
    ids = torch.randint(0, 16, (BATCH, 5), generator=torch.Generator().manual_seed(0))
    if how == "from_embedding":
        return tltorch.FactorizedEmbedding.from_embedding(nn.Embedding(16, 8), **keywords), (ids,), {}
    layer = tltorch.FactorizedEmbedding(16, 8, **keywords)
    if how == "sub1":
        return layer.get_embedding(1), (ids,), {}
    return layer, (ids,), {}


def _regression(name: str) -> Built:
    import tltorch

    layer, keywords, shape = REGRESSION[name]
    return getattr(tltorch, layer)(**keywords), (_input(shape),), {}


def _hooks(name: str) -> Built:
    import tltorch
    from torch import nn

    what, factorization, where = HOOKS[name]
    if where == "trl":
        layer = tltorch.TRL((4, 3, 3), (5,), factorization=factorization, rank=0.5, bias=True)
        shape: tuple[int, ...] = (BATCH, 4, 3, 3)
    else:
        layer = tltorch.FactorizedConv(4, 6, 3, order=2, factorization=factorization, rank=0.5, padding=1)
        shape = (BATCH, 4, 6, 6)
    if what.startswith("dropout"):
        min_dim = 16 if what == "dropout.min_dim" else 1
        tltorch.tensor_dropout(layer.weight, p=0.5, min_dim=min_dim, drop_test=what == "dropout.test")
        return layer, (_input(shape),), {}
    lasso = tltorch.tensor_lasso(factorization=factorization, penalty=0.01)
    lasso.apply(layer.weight)

    class _Lassoed(nn.Module):
        """The layer's output and the lasso penalty accumulated by its hook during that forward."""

        def __init__(self) -> None:
            super().__init__()
            self.layer = layer

        def forward(self, x: Any) -> Any:
            lasso.reset()
            out = self.layer(x)
            return out, lasso.loss

        def entry_points(self) -> list[Any]:
            return [type(layer), type(lasso).__call__]

    return _Lassoed(), (_input(shape),), {}


def _tensors(name: str) -> Built:
    import tltorch
    import torch
    from tltorch import functional
    from tltorch.functional import factorized_tensordot, tensor_regression

    from gt_calls import Call, Run

    def reconstruct(owner: Any, scale: torch.Tensor) -> Any:
        return owner.to_tensor() * scale

    def matrix(owner: Any, scale: torch.Tensor) -> Any:
        return owner.to_matrix() * scale

    scale = torch.tensor(1.5)
    if name in ("CPTensor.to_tensor", "TuckerTensor.to_tensor", "TTTensor.to_tensor", "DenseTensor.to_tensor"):
        factorization = name.split("Tensor")[0]
        tensor = tltorch.FactorizedTensor.new((4, 5, 6), rank=0.5, factorization=factorization)
        tensor.normal_(0, 0.1)
        return Run(tensor, reconstruct, [type(tensor).to_tensor]), (scale,), {}
    if name.startswith("CPTensor.") or name.startswith("TuckerTensor.") or name.startswith("TTTensor."):
        factorization = name.split("Tensor")[0]
        tensor = tltorch.FactorizedTensor.new((4, 5, 6), rank=0.5, factorization=factorization)
        tensor.normal_(0, 0.1)
        if name.endswith("matmul"):
            def run(owner: Any, x: torch.Tensor) -> Any:
                return torch.matmul(x, owner)  # __torch_function__ reconstructs the tensor

            return Run(tensor, run, [type(tensor).__torch_function__]), (_input((3, 5)),), {}
        index = {"int": 1, "slice": slice(1, 3), "tuple": (1, slice(None), 2)}[name.rsplit(".", 1)[1]]

        def index_run(owner: Any, scale: torch.Tensor) -> Any:
            sliced = owner(index)  # the forward indexes the factorization
            return (sliced.to_tensor() if hasattr(sliced, "to_tensor") else sliced) * scale

        return Run(tensor, index_run, [type(tensor).__getitem__, type(tensor).forward]), (scale,), {}
    if name in ("CPTensorized.to_matrix", "BlockTT.to_matrix"):
        factorization = "cp" if name.startswith("CP") else "blocktt"
        tensor = tltorch.TensorizedTensor.new(((2, 4), (3, 4)), rank=0.5, factorization=factorization)
        tltorch.tensor_init(tensor, std=0.1)
        return Run(tensor, matrix, [type(tensor).to_matrix]), (scale,), {}
    if name in ("TuckerTensorized.getitem", "BlockTT.getitem.rows"):
        factorization = "tucker" if name.startswith("Tucker") else "blocktt"
        tensor = tltorch.TensorizedTensor.new(((2, 4), (3, 4)), rank=0.5, factorization=factorization)
        tltorch.tensor_init(tensor, std=0.1)

        def rows(owner: Any, scale: torch.Tensor) -> Any:
            picked = owner[[1, 5, 7], :]  # a dense tensor or a factorization, by type
            return (picked.to_matrix() if hasattr(picked, "to_matrix") else picked) * scale

        return Run(tensor, rows, [type(tensor).__getitem__]), (scale,), {}
    if name.startswith("Complex"):
        if name == "ComplexBlockTT.to_matrix":
            tensor = tltorch.TensorizedTensor.new(((2, 4), (3, 4)), rank=0.5, factorization="ComplexTT")
            tltorch.tensor_init(tensor, std=0.1)
            return Run(tensor, matrix, [type(tensor).to_matrix]), (scale,), {}
        factorization = name.split("Tensor")[0]
        tensor = tltorch.FactorizedTensor.new((4, 5, 6), rank=0.5, factorization=factorization)
        tltorch.tensor_init(tensor, std=0.1)
        return Run(tensor, reconstruct, [type(tensor).to_tensor]), (scale,), {}
    x = _input((BATCH, 4, 6, 6))
    if name == "functional.convolve.tensor":
        return Call(functional.convolve, padding=1), (x, _input((6, 4, 3, 3), seed=1)), {}
    if name == "functional.convolve.tt":
        weight = tltorch.FactorizedTensor.new((4, 3, 3, 6), rank=0.5, factorization="tt")
        weight.normal_(0, 0.1)
        return Run(weight, lambda owner, x: functional.convolve(x, owner, padding=1), [functional.convolve]), (x,), {}
    if name == "functional.tucker_conv":
        weight = tltorch.FactorizedTensor.new((6, 4, 3, 3), rank=0.5, factorization="tucker")
        weight.normal_(0, 0.1)
        return Run(weight, lambda owner, x: functional.tucker_conv(x, owner, stride=2), [functional.tucker_conv]), \
            (x,), {}
    if name == "functional.factorized_linear.dense_weight":
        return Call(functional.factorized_linear), (_input((BATCH, 8)), _input((5, 8), seed=1), _input((5,))), {}
    if name == "functional.trl.tucker.project_input":
        weight = tltorch.FactorizedTensor.new((4, 3, 5), rank=(2, 2, 3), factorization="tucker")
        weight.normal_(0, 0.1)
        return Run(weight, lambda owner, x: tensor_regression.trl(x, owner, project_input=True),
                   [tensor_regression.trl]), (_input((BATCH, 4, 3)),), {}
    if name == "functional.tensor_dot_tucker":
        weight = tltorch.FactorizedTensor.new((4, 3, 5), rank=0.5, factorization="tucker")
        weight.normal_(0, 0.1)
        return Run(weight, lambda owner, x: factorized_tensordot.tensor_dot_tucker(x, owner, ([1, 2], [0, 1])),
                   [factorized_tensordot.tensor_dot_tucker]), (_input((BATCH, 4, 3)),), {}
    weight = tltorch.FactorizedTensor.new((4, 3, 5), rank=3, factorization="cp")
    weight.normal_(0, 0.1)
    return Run(weight, lambda owner, x: factorized_tensordot.tensor_dot_cp(x, owner, ([1, 2], [0, 1])),
               [factorized_tensordot.tensor_dot_cp]), (_input((BATCH, 4, 3)),), {}


def _train(name: str) -> Built:
    import tltorch
    import torch
    from torch import nn

    from gt_calls import Run

    gen = torch.Generator().manual_seed(3)
    if name == "train.FactorizedLinear.mlp.sgd":
        net = nn.Sequential(tltorch.FactorizedLinear((2, 4), (4, 4), factorization="cp", rank=0.5), nn.ReLU(),
                            tltorch.FactorizedLinear((4, 4), (2, 3), factorization="tucker", rank=0.5))
        x, y = _input((BATCH, 8)), torch.randint(0, 3, (BATCH,), generator=gen)
        optimizer: Any = torch.optim.SGD(net.parameters(), lr=0.01)
        entries: list[Any] = [tltorch.FactorizedLinear]
    elif name == "train.FactorizedLinear.blocktt.adam":
        net = nn.Sequential(tltorch.FactorizedLinear((2, 4), (3, 4), factorization="blocktt", rank=0.5),
                            nn.GELU(), nn.Linear(12, 3))
        x, y = _input((BATCH, 4, 8)), torch.randint(0, 3, (BATCH, 4), generator=gen)
        optimizer = torch.optim.Adam(net.parameters(), lr=1e-3)
        entries = [tltorch.FactorizedLinear]
    elif name == "train.factorized_cnn.tcl_trl":
        net = nn.Sequential(tltorch.FactorizedConv(3, 4, 3, order=2, factorization="cp", rank=0.5, padding=1),
                            nn.ReLU(), tltorch.TCL((4, 6, 6), rank=(4, 3, 3)), nn.ReLU(),
                            tltorch.TRL((4, 3, 3), (3,), factorization="tucker", rank=0.5, bias=True))
        x, y = _input((BATCH, 3, 6, 6)), torch.randint(0, 3, (BATCH,), generator=gen)
        optimizer = torch.optim.SGD(net.parameters(), lr=0.01, momentum=0.9)
        entries = [tltorch.FactorizedConv, tltorch.TCL, tltorch.TRL]
    elif name == "train.TRL.tucker.dropout_lasso":
        trl = tltorch.TRL((4, 3), (3,), factorization="tucker", rank=0.5, bias=True)
        tltorch.tensor_dropout(trl.weight, p=0.3, min_dim=1)
        lasso = tltorch.tensor_lasso(factorization="tucker", penalty=0.01)
        lasso.apply(trl.weight)
        net = nn.Sequential(nn.Linear(3, 3), trl)
        x, y = _input((BATCH, 4, 3)), torch.randint(0, 3, (BATCH,), generator=gen)
        optimizer = torch.optim.SGD(net.parameters(), lr=0.01)
        entries = [tltorch.TRL, type(lasso).__call__]

        def step_lasso(owner: Any, x: torch.Tensor, y: torch.Tensor) -> Any:
            with torch.enable_grad():
                optimizer.zero_grad()
                lasso.reset()
                loss = nn.functional.cross_entropy(owner(x), y) + lasso.loss
                loss.backward()
                optimizer.step()
            return loss.detach()

        return Run(net, step_lasso, entries), (x, y), {}
    elif name == "train.FactorizedEmbedding.classifier":
        class _Bag(nn.Module):
            def __init__(self) -> None:
                super().__init__()
                self.embedding = tltorch.FactorizedEmbedding(16, 8, factorization="blocktt", rank=4)
                self.head = nn.Linear(8, 3)

            def forward(self, ids: torch.Tensor) -> torch.Tensor:
                return self.head(self.embedding(ids).mean(1))

        net = _Bag()
        x, y = torch.randint(0, 16, (BATCH, 5), generator=gen), torch.randint(0, 3, (BATCH,), generator=gen)
        optimizer = torch.optim.Adam(net.parameters(), lr=1e-3)
        entries = [tltorch.FactorizedEmbedding]
    else:
        net = nn.Sequential(tltorch.FactorizedConv(3, 4, 3, order=2, factorization="tt", rank=0.5), nn.ReLU(),
                            nn.AdaptiveAvgPool2d(1), nn.Flatten(), nn.Linear(4, 3))
        x, y = _input((BATCH, 3, 6, 6)), torch.randint(0, 3, (BATCH,), generator=gen)
        optimizer = torch.optim.SGD(net.parameters(), lr=0.01)
        entries = [tltorch.FactorizedConv]

    def step(owner: Any, x: torch.Tensor, y: torch.Tensor) -> Any:
        with torch.enable_grad():
            optimizer.zero_grad()
            out = owner(x)
            loss = nn.functional.cross_entropy(out.reshape(-1, out.shape[-1]), y.reshape(-1))
            loss.backward()
            optimizer.step()
        return loss.detach()

    return Run(net, step, entries), (x, y), {}


def build(name: str) -> Built:
    import warnings

    import torch

    warnings.filterwarnings("ignore")  # tensorly's and tltorch's notes on shapes and ranks
    torch.manual_seed(0)
    if name in LINEAR:
        return _linear(name)
    if name in CONV:
        return _conv(name)
    if name in EMBEDDING:
        return _embedding(name)
    if name in REGRESSION:
        return _regression(name)
    if name in HOOKS:
        return _hooks(name)
    if name in TENSORS:
        return _tensors(name)
    return _train(name)
