"""Ground-truth bench, torch_einops_utils: lucidrains' tensor helpers (masking, padding, packing, shapes, losses).

torch-einops-utils 0.2.0 gathers the small functions lucidrains' repositories share, called inside their
forwards: masked reductions (``masked_reduce`` / ``masked_mean`` / ``masked_sum`` with boolean or weight masks,
dims, slices of dims, ``keepdim``), cumulative sums, slicing and padding at a dimension (to a length, to a multiple
with an inverse and optional length, mask and flag outputs through the ``maybe_return`` decorator, which binds the
call's signature), shifts, rank padding (``pad_ndim`` family, ``align_dims_left``), ``safe_stack`` / ``safe_cat``
over lists with ``None``, masks from lengths (the longest read by ``item()`` unless given) and around a token
(``mask_after`` / ``mask_before``), mask reductions, ``pad_sequence`` over ragged tensors (lengths through a tensor
and ``item()``), pytree maps and flatten with inverse, ``pack_with_inverse``, ``batched_index_select``,
``repeat_interleave_to_match``, detaching, casting (``cast_tensor``, ``cast_item``), ``clamp`` over tensors and
floats, ``slerp``; its ``nn`` module (``Sequential`` skipping ``None``, ``Lambda``, ``Identity``, ``Residual``,
``temp_eval``, ``count_parameters``), device helpers (``module_device``, ``move_inputs_to_device``,
``move_inputs_to_module_device``, ``fallback_from``), statistics (``z_score``, ``entropy``), the einops-like shape
parser (``shape``, ``is_shape``, ``size``, ``assert_shape`` called directly and as a decorator, ``ParsedShape``), and
numerically stable losses (``log_softmax``, ``softmax``, ``cross_entropy`` with an ignore index, soft-target cross
entropies, ``binary_cross_entropy_with_logits``, ``categorical_kl``, ``bernoulli_kl``; several are autograd
``Function``\\ s with their own backward). The tables cover, at a batch of 2, sequences of 5, width 4:

- ``CALLS``: each exported function called as a model with its main options;
- ``SPECIAL``: what needs a closure: ``maybe`` and ``once`` wrappers, the inverses returned by
  ``pad_at_dim_to_multiple``, ``tree_flatten_with_inverse`` and ``pack_with_inverse``, the decorators
  (``maybe_return``, ``temp_eval``, ``fallback_from``, ``move_inputs_to_device``, ``move_inputs_to_module_device``,
  ``assert_shape``), the ``nn`` modules, ``ParsedShape`` use;
- ``TRAIN``: training steps (backward and an Adam step) through models that pool with a mask, chunk a sequence
  padded to a multiple, train on the stable cross entropy with ignored tokens, distil with the soft-target cross
  entropy and the categorical KL (their custom backwards), and a binary classifier on the stable BCE.

``save_load`` was left out: it only decorates a class's ``__init__`` and adds save and load methods that touch files,
none of which runs in a compiled forward. Random inputs and weights from fixed generators, nothing downloaded;
``names()`` needs no torch, ``build(name)`` runs in a worker only.

Part of the harness run by ``python bench/groundtruth/groundtruth.py`` (see ``README.md``).
"""

from __future__ import annotations

from typing import Any

Built = tuple[Any, tuple[Any, ...], dict[str, Any]]

BATCH, SEQ, DIM, CLASSES = 2, 5, 4, 6

# Call model name -> (``module:function`` under torch_einops_utils, input specs (see ``_input``), fixed keywords).
CALLS: dict[str, tuple[str, tuple[Any, ...], dict[str, Any]]] = {
    "masked_reduce.mean.no_mask": ("torch_einops_utils:masked_reduce", ("x",), {}),
    "masked_reduce.sum.dim": ("torch_einops_utils:masked_reduce", ("x",), {"mode": "sum", "dim": 1}),
    "masked_reduce.none.no_mask": ("torch_einops_utils:masked_reduce", ("x",), {"mode": "none"}),
    "masked_reduce.mean.mask": ("torch_einops_utils:masked_reduce", ("x",), {"mask": "mask"}),
    "masked_reduce.mean.mask.dim_slice": ("torch_einops_utils:masked_reduce", ("x",),
                                          {"mask": "mask", "dim": slice(1, None)}),
    "masked_reduce.mean.mask.keepdim": ("torch_einops_utils:masked_reduce", ("x",), {"mask": "mask", "keepdim": True}),
    "masked_reduce.sum.weights": ("torch_einops_utils:masked_reduce", ("x",), {"mode": "sum", "dim": 1, "mask": "weights"}),
    "masked_reduce.none.mask": ("torch_einops_utils:masked_reduce", ("x",), {"mode": "none", "mask": "mask"}),
    "masked_mean": ("torch_einops_utils:masked_mean", ("x", "mask"), {"dim": 1}),
    "masked_mean.no_mask.keepdim": ("torch_einops_utils:masked_mean", ("x",), {"keepdim": True}),
    "masked_sum": ("torch_einops_utils:masked_sum", ("x", "mask"), {"dim": 1}),
    "exclusive_cumsum": ("torch_einops_utils:exclusive_cumsum", ("x2",), {}),
    "reverse_cumsum.dim0": ("torch_einops_utils:reverse_cumsum", ("x",), {"dim": 0}),
    "shape_with_replace": ("torch_einops_utils:shape_with_replace", ("x",), {"replace_dict": {1: 7}}),
    "slice_at_dim": ("torch_einops_utils:slice_at_dim", ("x", ("lit", slice(1, 3))), {"dim": 1}),
    "slice_left_at_dim": ("torch_einops_utils:slice_left_at_dim", ("x", ("lit", 2)), {"dim": -2}),
    "slice_right_at_dim": ("torch_einops_utils:slice_right_at_dim", ("x", ("lit", 3)), {"dim": 1}),
    "slice_right_at_dim.zero": ("torch_einops_utils:slice_right_at_dim", ("x", ("lit", 0)), {}),
    "pad_ndim": ("torch_einops_utils:pad_ndim", ("x2", ("lit", (1, 2))), {}),
    "pad_left_ndim": ("torch_einops_utils:pad_left_ndim", ("x2", ("lit", 2)), {}),
    "pad_right_ndim": ("torch_einops_utils:pad_right_ndim", ("x2", ("lit", 1)), {}),
    "pad_right_ndim_to": ("torch_einops_utils:pad_right_ndim_to", ("x2", ("lit", 4)), {}),
    "pad_left_ndim_to.noop": ("torch_einops_utils:pad_left_ndim_to", ("x", ("lit", 2)), {}),
    "align_dims_left": ("torch_einops_utils:align_dims_left", (("list", "x", "x2", "lens"),), {}),
    "align_dims_left.ndim": ("torch_einops_utils:align_dims_left", (("list", "x2", "lens"),), {"ndim": 4}),
    "safe_stack": ("torch_einops_utils:safe_stack", (("list", "x", None, "x"),), {"dim": 1}),
    "safe_stack.empty": ("torch_einops_utils:safe_stack", (("list", None, None),), {}),
    "safe_cat": ("torch_einops_utils:safe_cat", (("list", "x", None, "x"),), {"dim": -1}),
    "safe_cat.single": ("torch_einops_utils:safe_cat", (("list", None, "x"),), {}),
    "lens_to_mask": ("torch_einops_utils:lens_to_mask", ("lens",), {}),
    "lens_to_mask.max_len": ("torch_einops_utils:lens_to_mask", ("lens",), {"max_len": SEQ}),
    "and_masks": ("torch_einops_utils:and_masks", (("list", "mask", None, "mask2"),), {}),
    "or_masks": ("torch_einops_utils:or_masks", (("list", "mask", "mask2"),), {}),
    "or_masks.single": ("torch_einops_utils:or_masks", (("list", None, "mask2"),), {}),
    "reduce_masks.xor": ("torch_einops_utils:reduce_masks", (("list", "mask", "mask2"), ("xor",)), {}),
    "mask_after": ("torch_einops_utils:mask_after", ("ids", ("lit", 3)), {}),
    "mask_after.exclusive": ("torch_einops_utils:mask_after", ("ids", ("lit", 3)), {"inclusive": False}),
    "mask_before": ("torch_einops_utils:mask_before", ("ids", ("lit", 3)), {}),
    "mask_before.exclusive": ("torch_einops_utils:mask_before", ("ids", ("lit", 3)), {"inclusive": False}),
    "pad_at_dim": ("torch_einops_utils:pad_at_dim", ("x", ("lit", (1, 2))), {"dim": 1}),
    "pad_at_dim.value.dim0": ("torch_einops_utils:pad_at_dim", ("x", ("lit", (0, 1))), {"dim": 0, "value": -1.0}),
    "pad_left_at_dim": ("torch_einops_utils:pad_left_at_dim", ("x", ("lit", 2)), {"dim": -2}),
    "pad_right_at_dim": ("torch_einops_utils:pad_right_at_dim", ("x", ("lit", 3)), {}),
    "pad_left_at_dim_to": ("torch_einops_utils:pad_left_at_dim_to", ("x", ("lit", 8)), {"dim": 1}),
    "pad_right_at_dim_to": ("torch_einops_utils:pad_right_at_dim_to", ("x", ("lit", 8)), {"dim": 1, "value": 1.0}),
    "pad_right_at_dim_to.noop": ("torch_einops_utils:pad_right_at_dim_to", ("x", ("lit", 3)), {"dim": 1}),
    "pad_at_dim_to_multiple": ("torch_einops_utils:pad_at_dim_to_multiple", ("x", ("lit", 4)), {"dim": 1}),
    "pad_at_dim_to_multiple.left.return_pad_len": ("torch_einops_utils:pad_at_dim_to_multiple", ("x", ("lit", 4)),
                                                   {"dim": 1, "left": True, "return_pad_len": True}),
    "pad_at_dim_to_multiple.return_mask": ("torch_einops_utils:pad_at_dim_to_multiple", ("x", ("lit", 3)),
                                           {"dim": -2, "return_mask": True}),
    "pad_at_dim_to_multiple.return_all": ("torch_einops_utils:pad_at_dim_to_multiple", ("x", ("lit", 4)),
                                          {"dim": 1, "return_all": True}),
    "pad_at_dim_to_multiple.divisible.return_did_pad": ("torch_einops_utils:pad_at_dim_to_multiple",
                                                        ("x", ("lit", 5)), {"dim": 1, "return_did_pad": True}),
    "shift": ("torch_einops_utils:shift", ("x",), {"dim": 1}),
    "shift_right": ("torch_einops_utils:shift_right", ("x2",), {"amount": 2}),
    "shift_left.mask": ("torch_einops_utils:shift_left", ("mask",), {"pad_value": False}),
    "pad_sequence": ("torch_einops_utils:pad_sequence", (("list", "seq3", "seq5", "seq2"),), {"dim": 0}),
    "pad_sequence.left.return_lens": ("torch_einops_utils:pad_sequence", (("list", "seq3", "seq5", "seq2"),),
                                      {"dim": 0, "left": True, "return_lens": True}),
    "pad_sequence.pad_lens.unstacked": ("torch_einops_utils:pad_sequence", (("list", "seq3", "seq5"),),
                                        {"dim": 0, "return_lens": True, "pad_lens": True, "return_stacked": False}),
    "pad_sequence.dim_stack1.value": ("torch_einops_utils:pad_sequence", (("list", "seqT3", "seqT5"),),
                                      {"dim": -1, "dim_stack": 1, "value": -1.0}),
    "pad_sequence_and_cat": ("torch_einops_utils:pad_sequence_and_cat", (("list", "seqT3", "seqT5"),),
                             {"dim": -1}),
    "tree_map_tensor": ("torch_einops_utils:tree_map_tensor", (("fn", "double"), "tree"), {}),
    "batched_index_select": ("torch_einops_utils:batched_index_select", ("x", "idx"), {}),
    "batched_index_select.dim2": ("torch_einops_utils:batched_index_select", ("x4", "idx3"), {"dim": 2}),
    "pad_right_ndim_to_and_expand_as": ("torch_einops_utils:pad_right_ndim_to_and_expand_as", ("x2", "x"), {}),
    "repeat_interleave_to_match": ("torch_einops_utils:repeat_interleave_to_match", ("x", "x_batch4"), {}),
    "repeat_interleave_to_match.int": ("torch_einops_utils:repeat_interleave_to_match", ("x", ("lit", 10)),
                                       {"dim": 1}),
    "repeat_interleave_to_match.same": ("torch_einops_utils:repeat_interleave_to_match", ("x", "x"), {}),
    "detach_tensor": ("torch_einops_utils:detach_tensor", ("param",), {}),
    "detach_tensor.clone.preserve_requires_grad": ("torch_einops_utils:detach_tensor", ("param",),
                                                   {"clone": True, "preserve_requires_grad": True}),
    "tree_map_detach": ("torch_einops_utils:tree_map_detach", ("tree",), {"clone": True}),
    "tree_map_tensor_to_device": ("torch_einops_utils:tree_map_tensor_to_device", ("tree", ("lit", "cpu")), {}),
    "cast_tensor.tensor": ("torch_einops_utils:cast_tensor", ("x",), {"dtype": "float64"}),
    "cast_tensor.list": ("torch_einops_utils:cast_tensor", (("lit", [1.0, 2.0, 3.0]),), {}),
    "cast_tensor.float": ("torch_einops_utils:cast_tensor", (("lit", 0.5),), {"dtype": "float32"}),
    "cast_tensor.other": ("torch_einops_utils:cast_tensor", (("lit", "text"),), {}),
    "cast_item.tensor": ("torch_einops_utils:cast_item", ("scalar",), {}),
    "cast_item.float": ("torch_einops_utils:cast_item", (("lit", 2.5),), {}),
    "clamp.tensor": ("torch_einops_utils:clamp", ("x",), {"lo": -0.5, "hi": 0.5}),
    "clamp.tensor.inplace": ("torch_einops_utils:clamp", ("x",), {"lo": 0.0, "inplace": True}),
    "clamp.float": ("torch_einops_utils:clamp", (("lit", 3.0),), {"hi": 1.0}),
    "clamp.none": ("torch_einops_utils:clamp", ("x",), {}),
    "slerp": ("torch_einops_utils:slerp", ("v0", "v1", ("lit", 0.3)), {}),
    "slerp.tensor_t": ("torch_einops_utils:slerp", ("v0", "v1", "t"), {}),
    "slerp.no_normalize.eps": ("torch_einops_utils:slerp", ("v0", "v1", "t1"), {"normalize": False, "eps": 1e-4}),
    "z_score": ("torch_einops_utils:z_score", ("x",), {"dim": 1}),
    "z_score.mask.return_stats": ("torch_einops_utils:z_score", ("x", "mask"), {"dim": 1, "return_stats": True}),
    "z_score.return_only_stats": ("torch_einops_utils:z_score", ("x",), {"return_only_stats": True}),
    "entropy.prob": ("torch_einops_utils:entropy", ("probs",), {}),
    "entropy.logits.mask": ("torch_einops_utils:entropy", (), {"logits": "logits", "mask": "mask"}),
    "entropy.no_reduce": ("torch_einops_utils:entropy", ("probs",), {"reduce": False}),
    "log_softmax": ("torch_einops_utils:log_softmax", ("logits",), {}),
    "softmax": ("torch_einops_utils:softmax", ("logits",), {}),
    "cross_entropy": ("torch_einops_utils:cross_entropy", ("logits_cf", "target"), {}),
    "cross_entropy.ignore_index": ("torch_einops_utils:cross_entropy", ("logits_cf", "target_ignore"), {}),
    "cross_entropy.class_last.sum": ("torch_einops_utils:cross_entropy", ("logits", "target"),
                                     {"class_dim": -1, "reduction": "sum"}),
    "cross_entropy.none": ("torch_einops_utils:cross_entropy", ("logits_cf", "target_ignore"),
                           {"reduction": "none"}),
    "soft_target_cross_entropy_from_logits": ("torch_einops_utils:soft_target_cross_entropy_from_logits",
                                              ("logits", "logits2"), {}),
    "soft_target_cross_entropy_from_logits.mask.mean": ("torch_einops_utils:soft_target_cross_entropy_from_logits",
                                                        ("logits", "logits2", "mask"), {"reduction": "mean"}),
    "soft_target_cross_entropy_from_logits.broadcast.sum": (
        "torch_einops_utils:soft_target_cross_entropy_from_logits", ("logits", "logits_b"), {"reduction": "sum"}),
    "soft_target_cross_entropy": ("torch_einops_utils:soft_target_cross_entropy", ("logits", "probs"),
                                  {"reduction": "mean"}),
    "soft_target_cross_entropy.mask": ("torch_einops_utils:soft_target_cross_entropy", ("logits", "probs", "mask"),
                                       {}),
    "binary_cross_entropy_with_logits": ("torch_einops_utils:binary_cross_entropy_with_logits",
                                         ("x2", "hard_target"), {}),
    "binary_cross_entropy_with_logits.soft.none": ("torch_einops_utils:binary_cross_entropy_with_logits",
                                                   ("x2", "weights"), {"reduction": "none"}),
    "soft_target_binary_cross_entropy": ("torch_einops_utils:soft_target_binary_cross_entropy", ("x2", "x2b"),
                                         {"reduction": "mean"}),
    "categorical_kl": ("torch_einops_utils:categorical_kl", ("logits", "logits2"), {}),
    "bernoulli_kl": ("torch_einops_utils:bernoulli_kl", ("x2", "x2b"), {}),
    "shape": ("torch_einops_utils.shape:shape", ("x", ("lit", "b n d")), {}),
    "shape.assertions": ("torch_einops_utils.shape:shape", ("x", ("lit", "b ... d")), {"d": DIM}),
    "shape.group": ("torch_einops_utils.shape:shape", ("x6", ("lit", "b (h d)")), {"h": 2}),
    "shape.select": ("torch_einops_utils.shape:shape", ("x", ("lit", "b [n] d")), {}),
    "shape.arrow": ("torch_einops_utils.shape:shape", ("x", ("lit", "b n d -> d b")), {}),
    "shape.mismatch.no_throw": ("torch_einops_utils.shape:shape", ("x", ("lit", "b n")), {"throw_error": False}),
    "is_shape": ("torch_einops_utils.shape:is_shape", ("x", ("lit", "b n 4")), {}),
    "is_shape.false": ("torch_einops_utils.shape:is_shape", ("x", ("lit", "b n")), {}),
    "size": ("torch_einops_utils.shape:size", ("x", ("lit", "... [d]")), {}),
    "assert_shape.tensor": ("torch_einops_utils.shape:assert_shape", ("x", ("lit", "b n d")), {}),
    "assert_shape.pairs": ("torch_einops_utils.shape:assert_shape", (("pairs",),), {"b": BATCH}),
}
SPECIAL = (
    "maybe.fn", "maybe.none_input", "maybe.none_fn", "once", "pad_at_dim_to_multiple.inverse",
    "pad_at_dim_to_multiple.left.inverse", "tree_flatten_with_inverse", "pack_with_inverse",
    "pack_with_inverse.list", "maybe_return.decorated", "maybe_return.decorated.return_all",
    "maybe_return.dynamic_primary", "temp_eval.method", "temp_eval.module", "fallback_from.cpu",
    "fallback_from.mps", "move_inputs_to_device", "move_inputs_to_module_device", "module_device",
    "assert_shape.decorator", "assert_shape.decorator.dict", "ParsedShape.use", "Sequential", "Lambda",
    "Identity", "Residual", "Residual.tuple", "count_parameters", "count_parameters.requires_grad",
    "count_parameters.class",
)
TRAIN = (
    "train.masked_mean_pool.adam", "train.pad_to_multiple_chunks.adam", "train.cross_entropy.ignore_index.adam",
    "train.soft_target_cross_entropy.distill.adam", "train.categorical_kl.adam",
    "train.binary_cross_entropy_with_logits.adam", "train.soft_target_binary_cross_entropy.adam",
    "train.z_score.lens_to_mask.adam",
)


def names() -> list[str]:
    return [*CALLS, *SPECIAL, *TRAIN]


def _gen(seed: int) -> Any:
    import torch

    return torch.Generator().manual_seed(seed)


def _input(spec: Any) -> Any:
    """A model input from its spec: a named tensor, ``("lit", value)``, ``("list", spec...)``, ``("fn", name)``."""
    import torch

    if spec is None:
        return None
    if isinstance(spec, tuple):
        if spec[0] == "lit":
            return spec[1]
        if spec[0] == "list":
            return [_input(s) for s in spec[1:]]
        if spec[0] == "fn":
            return lambda t: t * 2
        if spec[0] == "xor":
            return torch.logical_xor
        if spec[0] == "pairs":
            return [(_input("x"), "b n d"), (_input("x2"), "b n")]
        raise KeyError(spec)
    if spec == "x":
        return torch.randn(BATCH, SEQ, DIM, generator=_gen(1))
    if spec == "x2":
        return torch.randn(BATCH, SEQ, generator=_gen(2))
    if spec == "x2b":
        return torch.randn(BATCH, SEQ, generator=_gen(3))
    if spec == "x4":
        return torch.randn(BATCH, 3, SEQ, DIM, generator=_gen(4))
    if spec == "x6":
        return torch.randn(BATCH, 6, generator=_gen(5))
    if spec == "x_batch4":
        return torch.randn(4, SEQ, DIM, generator=_gen(6))
    if spec == "mask":
        return torch.tensor([[True, True, True, False, False], [True, True, True, True, True]])
    if spec == "mask2":
        return torch.tensor([[True, False, True, True, False], [False, True, True, True, True]])
    if spec == "weights":
        return torch.rand(BATCH, SEQ, generator=_gen(7))
    if spec == "hard_target":
        return (torch.rand(BATCH, SEQ, generator=_gen(8)) > 0.5).float()
    if spec == "lens":
        return torch.tensor([3, 5])
    if spec == "ids":
        return torch.tensor([[1, 2, 3, 4, 5], [3, 1, 1, 3, 2]])
    if spec.startswith("seqT"):
        return torch.randn(DIM, int(spec[4:]), generator=_gen(9))
    if spec.startswith("seq"):
        return torch.randn(int(spec[3:]), DIM, generator=_gen(10))
    if spec == "tree":
        return {"a": torch.randn(BATCH, DIM, generator=_gen(11)), "b": [torch.ones(3), 2, "c"]}
    if spec == "idx":
        return torch.tensor([[0, 4, 2], [1, 1, 3]])
    if spec == "idx3":
        return torch.tensor([[[0, 4], [2, 2], [1, 3]], [[4, 4], [0, 1], [3, 2]]])
    if spec == "param":
        return torch.nn.Parameter(torch.randn(BATCH, DIM, generator=_gen(12)))
    if spec == "scalar":
        return torch.tensor(1.5)
    if spec in ("v0", "v1"):
        return torch.randn(BATCH, DIM, generator=_gen(13 if spec == "v0" else 14))
    if spec == "t":
        return torch.tensor([0.2, 0.7])
    if spec == "t1":
        return torch.tensor([[0.4], [0.6]])
    if spec in ("logits", "logits2"):
        return torch.randn(BATCH, SEQ, CLASSES, generator=_gen(15 if spec == "logits" else 16))
    if spec == "logits_b":
        return torch.randn(BATCH, CLASSES, generator=_gen(17))
    if spec == "logits_cf":
        return torch.randn(BATCH, CLASSES, SEQ, generator=_gen(18))
    if spec == "probs":
        probs = torch.randn(BATCH, SEQ, CLASSES, generator=_gen(19)).softmax(dim=-1)
        probs[0, 1, 2] = 0.0
        return probs
    if spec == "target":
        return torch.randint(0, CLASSES, (BATCH, SEQ), generator=_gen(20))
    if spec == "target_ignore":
        target = torch.randint(0, CLASSES, (BATCH, SEQ), generator=_gen(20))
        target[0, -2:] = -100
        return target
    raise KeyError(spec)


def _call(name: str) -> Built:
    import importlib

    import torch

    from gt_calls import Call

    path, specs, static = CALLS[name]
    module, function = path.split(":")
    fn = getattr(importlib.import_module(module), function)
    static = dict(static)
    if isinstance(static.get("dtype"), str):
        static["dtype"] = getattr(torch, static["dtype"])
    for key in ("logits", "mask"):
        if isinstance(static.get(key), str):
            static[key] = _input(static[key])
    args = tuple(_input(s) for s in specs)
    if name == "clamp.tensor.inplace":
        args = (args[0].clone(),)
    return Call(fn, **static), args, {}


def _special(name: str) -> Built:
    import torch
    from torch import nn

    import torch_einops_utils as teu
    from gt_calls import Run
    from torch_einops_utils import device as teu_device
    from torch_einops_utils import nn as teu_nn
    from torch_einops_utils import shape as teu_shape
    from torch_einops_utils.python_utils import maybe_return

    x, mask = _input("x"), _input("mask")
    linear = nn.Linear(DIM, DIM)

    def run_one(fn: Any, entries: list[Any], *inputs: Any, owner: Any = None) -> Built:
        return Run(owner if owner is not None else linear, fn, entries), inputs, {}

    if name == "maybe.fn":
        wrapped = teu.maybe(torch.tanh)
        return run_one(lambda _, t: wrapped(t), [teu.maybe], x)
    if name == "maybe.none_input":
        wrapped = teu.maybe(torch.tanh, default=0.0)
        return run_one(lambda _, t: t + wrapped(None), [teu.maybe], x)
    if name == "maybe.none_fn":
        return run_one(lambda m, t: teu.maybe(None)(m(t)), [teu.maybe], x)
    if name == "once":
        @teu.once
        def report(t: Any) -> bool:
            return t.shape[-1] == DIM

        return run_one(lambda m, t: (m(t), report(t), report(t)), [teu.once], x)
    if name.startswith("pad_at_dim_to_multiple"):
        left = ".left." in name

        def chunked(m: Any, t: Any) -> Any:
            padded, inverse = teu.pad_at_dim_to_multiple(t, 4, dim=1, left=left)
            chunks = padded.reshape(padded.shape[0], -1, 4, DIM)
            return inverse(m(chunks).reshape(padded.shape))

        return run_one(chunked, [teu.pad_at_dim_to_multiple], x)
    if name == "tree_flatten_with_inverse":
        def flat(m: Any, tree: Any) -> Any:
            leaves, inverse = teu.tree_flatten_with_inverse(tree)
            return inverse([m(leaf) if torch.is_tensor(leaf) and leaf.shape[-1] == DIM else leaf for leaf in leaves])

        return run_one(flat, [teu.tree_flatten_with_inverse], {"a": x, "b": (x[:, 0], 3)})
    if name.startswith("pack_with_inverse"):
        as_list = name.endswith("list")

        def packed(m: Any, t: Any, u: Any) -> Any:
            if as_list:
                p, inverse = teu.pack_with_inverse([t, u], "b * d")
                return inverse(m(p))
            p, inverse = teu.pack_with_inverse(t, "* d")
            return inverse(m(p))

        return run_one(packed, [teu.pack_with_inverse], x, _input("x4"))
    if name.startswith("maybe_return"):
        if name == "maybe_return.dynamic_primary":
            @maybe_return("aux", primary=lambda call: ("out", "extra") if call.get("pair") else "out")
            def layer(t: Any, pair: bool = False, return_aux: bool = False) -> Any:
                out = linear(t)
                return (out, out.mean()) if not pair else (out, out.sum(), out.mean())

            return run_one(lambda _, t: (layer(t), layer(t, pair=True, return_aux=True)), [maybe_return], x)

        @maybe_return("hiddens", "stats")
        def tokens_fn(t: Any, return_hiddens: bool = False) -> Any:
            hidden = linear(t)
            return hidden.relu(), {"hiddens": hidden, "stats": hidden.mean()}

        if name.endswith("return_all"):
            return run_one(lambda _, t: tuple(tokens_fn(t, return_all=True)), [maybe_return], x)
        return run_one(lambda _, t: (tokens_fn(t), *tokens_fn(t, return_hiddens=True)), [maybe_return], x)
    if name.startswith("temp_eval"):
        class Net(nn.Module):
            def __init__(self) -> None:
                super().__init__()
                self.net = nn.Sequential(nn.Linear(DIM, DIM), nn.Dropout(0.5))

            @teu_nn.temp_eval
            def predict(self, t: Any) -> Any:
                return self.net(t)

            def forward(self, t: Any) -> Any:
                if name.endswith("module"):
                    with teu.temp_eval(self.net):
                        return self.net(t)
                return self.predict(t)

            def entry_points(self) -> list[Any]:
                return [teu.temp_eval]

        return Net(), (x,), {}
    if name.startswith("fallback_from"):
        fn = teu.fallback_from(name.split(".")[-1])(lambda t, scale=1.0: torch.cumsum(t, dim=1) * scale)
        return run_one(lambda m, t: fn(m(t), scale=0.5), [teu.fallback_from], x)
    if name == "move_inputs_to_device":
        fn = teu_device.move_inputs_to_device("cpu")(lambda t, u: t + u)
        return run_one(lambda m, t: fn(m(t), t), [teu_device.move_inputs_to_device], x)
    if name in ("move_inputs_to_module_device", "module_device"):
        class Net(nn.Module):
            def __init__(self) -> None:
                super().__init__()
                self.proj = nn.Linear(DIM, DIM)

            @teu_device.move_inputs_to_module_device
            def forward(self, t: Any, mask: Any = None) -> Any:
                out = self.proj(t)
                if name == "module_device":
                    out = out.to(teu_device.module_device(self))
                return out if mask is None else out * mask[..., None]

            def entry_points(self) -> list[Any]:
                if name == "module_device":
                    return [teu_device.module_device, teu_device.move_inputs_to_module_device]
                return [teu_device.move_inputs_to_module_device]

        return Net(), (x,), {"mask": mask}
    if name.startswith("assert_shape.decorator"):
        spec: Any = {"t": "b n d", "m": "b n"} if name.endswith("dict") else "b n d"

        class Net(nn.Module):
            def __init__(self) -> None:
                super().__init__()
                self.proj = nn.Linear(DIM, DIM)

            @teu_shape.assert_shape(spec, d=DIM)
            def forward(self, t: Any, m: Any) -> Any:
                return self.proj(t) * m[..., None]

            def entry_points(self) -> list[Any]:
                return [teu_shape.assert_shape]

        return Net(), (x, mask), {}
    if name == "ParsedShape.use":
        def parsed(m: Any, t: Any) -> Any:
            s = teu_shape.shape(t, "b n d")
            b, n, d = s
            new_shape = s.replace(n=1)
            return m(t).reshape(b * n, d).sum(0), new_shape, s.n, s["d"], len(s), s.total, "n" in s

        return run_one(parsed, [teu_shape.shape, teu_shape.ParsedShape], x)
    if name == "Sequential":
        return teu.Sequential(nn.Linear(DIM, DIM), None, nn.SiLU(), None, nn.Linear(DIM, 2)), (x,), {}
    if name == "Lambda":
        return teu.Sequential(nn.Linear(DIM, DIM), teu.Lambda(lambda t: t.softmax(dim=-1))), (x,), {}
    if name == "Identity":
        return teu.Identity(), (x, mask), {"extra": 1}
    if name.startswith("Residual"):
        if name.endswith("tuple"):
            inner: Any = teu_nn.Lambda(lambda t: (linear(t), t.mean()))
            module: Any = nn.ModuleList([teu_nn.Residual(inner), linear])
            return Run(module, lambda m, t: m[0](t), [teu_nn.Residual]), (x,), {}
        return teu_nn.Residual(nn.Sequential(nn.LayerNorm(DIM), nn.Linear(DIM, DIM))), (x,), {}
    # count_parameters
    if name == "count_parameters.class":
        @teu_nn.count_parameters
        class Counted(nn.Module):
            def __init__(self) -> None:
                super().__init__()
                self.proj = nn.Linear(DIM, DIM)

            def forward(self, t: Any) -> Any:
                return self.proj(t) / self.num_parameters

            def entry_points(self) -> list[Any]:
                return [teu_nn.count_parameters]

        return Counted(), (x,), {}
    requires_grad = True if name.endswith("requires_grad") else None
    return run_one(lambda m, t: m(t) / teu_nn.count_parameters(m, requires_grad=requires_grad),
                   [teu_nn.count_parameters], x)


def _train(name: str) -> Built:
    import torch
    import torch.nn.functional as F
    from torch import nn

    import torch_einops_utils as teu
    from gt_calls import Run

    x, mask = _input("x"), _input("mask")
    net = nn.Sequential(nn.Linear(DIM, 16), nn.SiLU(), nn.Linear(16, CLASSES))
    entries: list[Any]
    inputs: tuple[Any, ...]
    if name == "train.masked_mean_pool.adam":
        entries, inputs = [teu.masked_mean], (x, mask)

        def loss(m: Any, t: Any, msk: Any) -> Any:
            pooled = teu.masked_mean(m(t), mask=msk, dim=1)
            return F.cross_entropy(pooled, torch.tensor([1, 4]))
    elif name == "train.pad_to_multiple_chunks.adam":
        entries, inputs = [teu.pad_at_dim_to_multiple, teu.masked_mean], (x,)

        def loss(m: Any, t: Any) -> Any:
            padded, inverse, pad_mask = teu.pad_at_dim_to_multiple(t, 2, dim=1, return_mask=True)
            chunks = padded.reshape(BATCH, -1, 2, DIM).mean(dim=2)
            out = inverse(m(chunks).repeat_interleave(2, dim=1))
            return teu.masked_mean(out.pow(2), mask=inverse(pad_mask)[..., :1].expand(*out.shape[:-1], 1))
    elif name == "train.cross_entropy.ignore_index.adam":
        entries, inputs = [teu.cross_entropy], (x, _input("target_ignore"))

        def loss(m: Any, t: Any, target: Any) -> Any:
            return teu.cross_entropy(m(t), target, class_dim=-1)
    elif name == "train.soft_target_cross_entropy.distill.adam":
        teacher = nn.Linear(DIM, CLASSES)
        entries, inputs = [teu.soft_target_cross_entropy_from_logits], (x, mask)

        def loss(m: Any, t: Any, msk: Any) -> Any:
            with torch.no_grad():
                target = teacher(t)
            return teu.soft_target_cross_entropy_from_logits(m(t), target, mask=msk, reduction="mean")
    elif name == "train.categorical_kl.adam":
        prior = _input("logits")
        entries, inputs = [teu.categorical_kl], (x,)

        def loss(m: Any, t: Any) -> Any:
            return teu.categorical_kl(m(t), prior).mean()
    elif name == "train.binary_cross_entropy_with_logits.adam":
        net = nn.Sequential(nn.Linear(DIM, 16), nn.SiLU(), nn.Linear(16, 1))
        entries, inputs = [teu.binary_cross_entropy_with_logits], (x, _input("hard_target"))

        def loss(m: Any, t: Any, target: Any) -> Any:
            return teu.binary_cross_entropy_with_logits(m(t).squeeze(-1), target)
    elif name == "train.soft_target_binary_cross_entropy.adam":
        net = nn.Sequential(nn.Linear(DIM, 16), nn.SiLU(), nn.Linear(16, 1))
        entries, inputs = [teu.soft_target_binary_cross_entropy], (x, _input("x2"))

        def loss(m: Any, t: Any, target_logits: Any) -> Any:
            return teu.soft_target_binary_cross_entropy(m(t).squeeze(-1), target_logits, reduction="mean")
    else:
        entries, inputs = [teu.lens_to_mask, teu.z_score, teu.masked_mean], (x, _input("lens"))

        def loss(m: Any, t: Any, lens: Any) -> Any:
            msk = teu.lens_to_mask(lens)
            normed = teu.z_score(t, mask=msk, dim=1)
            return teu.masked_mean(m(normed).pow(2).sum(-1), mask=msk)

    optimizer = torch.optim.Adam(net.parameters(), lr=1e-3)

    def step(m: Any, *tensors: Any) -> Any:
        """The loss, its gradients and an Adam step (the forward alone under ``no_grad``)."""
        value = loss(m, *tensors)
        if torch.is_grad_enabled():
            optimizer.zero_grad()
            value.backward()
            optimizer.step()
        return value

    return Run(net, step, entries), inputs, {}


def build(name: str) -> Built:
    import warnings

    import torch

    warnings.filterwarnings("ignore")
    torch.manual_seed(0)
    if name in CALLS:
        return _call(name)
    if name in SPECIAL:
        return _special(name)
    if name in TRAIN:
        return _train(name)
    raise KeyError(name)
