"""Ground-truth bench, segment_anything (segment-anything): SAM's encoders and decoder, its predictor path, ONNX model and mask helpers.

segment-anything 1.0 is Meta's Segment Anything Model: ``Sam`` holds a ViTDet-style image encoder
(``ImageEncoderViT``: patch embedding, absolute positions, windowed and global attention blocks with
decomposed relative positions, a convolutional neck), a ``PromptEncoder`` (random-Fourier positions for
points and box corners, a small convolution stack for mask prompts) and a ``MaskDecoder`` (a
``TwoWayTransformer`` between prompt tokens and the image embedding, hypernetwork MLPs and an IoU head).
The registry (``sam_model_registry``) only builds the full-size ViT-B/L/H at 1,024 pixels, so every model
here is assembled from ``segment_anything.modeling`` classes exactly as ``_build_sam`` assembles them,
at a tiny size: 64-pixel images, 8-pixel patches (an 8 x 8 embedding), encoder width 32, depth 2 with
2 heads, window 4 with the last block global, relative positions on, prompt width 32, a two-layer
two-way transformer of width 32 and 16-channel mask inputs (32 x 32 low-resolution masks). The tables:

- ``SAM``: ``Sam.forward`` (a list of image records, ``multimask_output`` True and False) with point,
  box and mask prompts alone and combined, no prompt, two images, an image smaller than the model's
  input (padding) and encoders without relative positions, with global attention only, or with a
  window that does not divide the grid;
- ``ENCODERS``: ``ImageEncoderViT`` in the configurations that change its code (as above, plus no
  absolute positions, an input of another size whose relative positions are interpolated, no qkv
  bias, one input channel), and its ``Block`` (windowed, global), ``Attention`` and ``PatchEmbed``;
- ``PROMPTS`` and ``DECODERS``: ``PromptEncoder`` with every prompt combination, ``get_dense_pe``,
  ``PositionEmbeddingRandom``; ``MaskDecoder`` (multi and single mask, one multimask output,
  ``predict_masks``), ``TwoWayTransformer``, ``TwoWayAttentionBlock``, the transformer ``Attention``,
  the decoder ``MLP`` with a sigmoid, ``LayerNorm2d`` and ``MLPBlock``;
- ``PREDICTOR``: ``SamPredictor``'s torch path (``set_torch_image`` then ``predict_torch``, as a user
  loop does, or ``predict_torch`` alone on an image set at build time) with points, batched boxes,
  boxes transformed by ``ResizeLongestSide.apply_boxes_torch``, mask inputs, logits, and the
  interactive loop that feeds the best low-resolution logits back as the next mask prompt; and
  ``ResizeLongestSide``'s tensor transforms;
- ``ONNX``: ``utils.onnx.SamOnnxModel`` (single mask, stability score, extra metrics);
- ``AMG``: the automatic mask generator's batch step, ``SamAutomaticMaskGenerator._process_batch``'s code
  on a tensor of grid points (the method itself takes them as a NumPy array), with the generator's
  default thresholds, none, and a crop; and the tensor helpers of
  ``segment_anything.utils.amg``
  (``calculate_stability_score``, ``batched_mask_to_box``, ``is_box_near_crop_edge``, the uncrop
  functions, ``box_xyxy_to_xywh``, ``mask_to_rle_pytorch``, ``MaskData`` filtering) through
  ``gt_calls.Call``; the generator's ``generate`` is left out (its NMS is a torchvision operator that
  this environment cannot load);
- ``FUNCTIONS``: the image encoder's ``window_partition`` / ``window_unpartition``, ``get_rel_pos``
  (with and without interpolation) and ``add_decomposed_rel_pos``;
- ``TRAIN``: bench fine-tuning steps as SAM's users write them: a MedSAM-style box-prompted decoder step
  (frozen image embedding, dice plus binary cross-entropy), a point-prompted multimask step taking the
  lowest loss over the masks plus the IoU head's mean squared error (SAM's paper), a full step through
  the image encoder, and a mask-prompted refinement step.

Images are batches of RGB values in [0, 255] (SAM normalises them itself), prompts in input-pixel
coordinates; two prompts per image unless named. Random weights, nothing downloaded. ``names()``
needs no torch; ``build`` runs in a worker only.

Part of the harness run by ``python bench/groundtruth/groundtruth.py`` (see ``README.md``).
"""

from __future__ import annotations

from typing import Any

Built = tuple[Any, tuple[Any, ...], dict[str, Any]]

IMG, PATCH, DIM, PROMPT_DIM, MASK_CHANS = 64, 8, 32, 32, 16
GRID = IMG // PATCH  # 8 x 8 image embedding, 32 x 32 low-resolution masks
LOW = 4 * GRID
# ``ImageEncoderViT`` keywords as ``_build_sam`` gives them, at the tiny size.
ENCODER: dict[str, Any] = {"img_size": IMG, "patch_size": PATCH, "embed_dim": DIM, "depth": 2, "num_heads": 2,
                           "mlp_ratio": 4, "out_chans": PROMPT_DIM, "qkv_bias": True, "use_rel_pos": True,
                           "window_size": 4, "global_attn_indexes": (1,)}
NO_REL_POS: dict[str, Any] = {"use_rel_pos": False}
GLOBAL: dict[str, Any] = {"window_size": 0, "global_attn_indexes": ()}
WINDOW_PAD: dict[str, Any] = {"window_size": 3}

# ``Sam.forward`` name -> (encoder overrides, prompts of each image record, multimask_output, image shape
# (H, W) before padding, number of images). Prompts: "points", "boxes", "masks", "points3" (three points
# per prompt with a negative and a padding label).
SAM: dict[str, tuple[dict[str, Any], tuple[str, ...], bool, tuple[int, int], int]] = {
    "Sam.points.multimask": ({}, ("points",), True, (IMG, IMG), 1),
    "Sam.points.single_mask": ({}, ("points",), False, (IMG, IMG), 1),
    "Sam.boxes": ({}, ("boxes",), False, (IMG, IMG), 1),
    "Sam.points_boxes": ({}, ("points", "boxes"), False, (IMG, IMG), 1),
    "Sam.masks": ({}, ("masks",), False, (IMG, IMG), 1),
    "Sam.all_prompts": ({}, ("points", "boxes", "masks"), False, (IMG, IMG), 1),
    "Sam.no_prompt": ({}, (), True, (IMG, IMG), 1),
    "Sam.two_images": ({}, ("points",), True, (IMG, IMG), 2),
    "Sam.padded_image": ({}, ("boxes",), True, (48, IMG), 1),
    "Sam.no_rel_pos": (NO_REL_POS, ("points",), True, (IMG, IMG), 1),
    "Sam.global_attention": (GLOBAL, ("points",), True, (IMG, IMG), 1),
    "Sam.window_pad": (WINDOW_PAD, ("boxes",), False, (IMG, IMG), 1),
}
# ``ImageEncoderViT`` name -> (overrides, input height and width).
ENCODERS: dict[str, tuple[dict[str, Any], int]] = {
    "ImageEncoderViT": ({}, IMG),
    "ImageEncoderViT.no_rel_pos": (NO_REL_POS, IMG),
    "ImageEncoderViT.global_attention": (GLOBAL, IMG),
    "ImageEncoderViT.window_pad": (WINDOW_PAD, IMG),
    "ImageEncoderViT.no_abs_pos": ({"use_abs_pos": False}, IMG),
    "ImageEncoderViT.no_abs_pos.other_size": ({"use_abs_pos": False, **GLOBAL}, 48),
    "ImageEncoderViT.no_qkv_bias": ({"qkv_bias": False}, IMG),
    "ImageEncoderViT.in_chans1": ({"in_chans": 1}, IMG),
    "ImageEncoderViT.deeper": ({"depth": 4, "global_attn_indexes": (1, 3)}, IMG),
}
ENCODER_PARTS = ("Block.window", "Block.global", "Block.window_pad", "Attention.rel_pos", "Attention.plain",
                 "PatchEmbed")
# ``PromptEncoder`` name -> prompts given (the others are None).
PROMPTS: dict[str, tuple[str, ...]] = {
    "PromptEncoder.points": ("points",),
    "PromptEncoder.points3": ("points3",),
    "PromptEncoder.boxes": ("boxes",),
    "PromptEncoder.points_boxes": ("points", "boxes"),
    "PromptEncoder.masks": ("masks",),
    "PromptEncoder.points_masks": ("points", "masks"),
    "PromptEncoder.all": ("points", "boxes", "masks"),
    "PromptEncoder.none": (),
}
PROMPT_PARTS = ("PromptEncoder.get_dense_pe", "PositionEmbeddingRandom", "PositionEmbeddingRandom.scale",
                "PositionEmbeddingRandom.forward_with_coords")
DECODERS = ("MaskDecoder.multimask", "MaskDecoder.single_mask", "MaskDecoder.one_multimask_output",
            "MaskDecoder.predict_masks", "TwoWayTransformer", "TwoWayTransformer.depth1",
            "TwoWayAttentionBlock", "TwoWayAttentionBlock.skip_first_layer_pe", "transformer.Attention",
            "transformer.Attention.downsample", "MLP.sigmoid", "LayerNorm2d", "MLPBlock")
# Predictor name -> (prompts, multimask_output, return_logits, whether the image is set inside the
# compiled code). "tboxes" are boxes in the original image's frame, transformed with ``apply_boxes_torch``;
# "tpoints" points transformed with ``apply_coords_torch``.
PREDICTOR: dict[str, tuple[tuple[str, ...], bool, bool, bool]] = {
    "SamPredictor.points": (("points",), True, False, True),
    "SamPredictor.points.single_mask": (("points",), False, False, True),
    "SamPredictor.boxes": (("boxes",), False, False, True),
    "SamPredictor.points_boxes": (("points", "boxes"), False, False, True),
    "SamPredictor.mask_input": (("points", "masks"), False, False, True),
    "SamPredictor.return_logits": (("points",), True, True, True),
    "SamPredictor.transformed_boxes": (("tboxes",), False, False, True),
    "SamPredictor.transformed_points": (("tpoints",), True, False, True),
    "SamPredictor.predict_torch.points": (("points",), True, False, False),
    "SamPredictor.predict_torch.boxes": (("boxes",), False, True, False),
}
PREDICTOR_EXTRA = ("SamPredictor.set_torch_image", "SamPredictor.iterative", "ResizeLongestSide.apply_coords_torch",
                   "ResizeLongestSide.apply_boxes_torch", "ResizeLongestSide.apply_image_torch",
                   "Sam.preprocess", "Sam.postprocess_masks")
# ``SamOnnxModel`` name -> (return_single_mask, use_stability_score, return_extra_metrics).
ONNX: dict[str, tuple[bool, bool, bool]] = {
    "SamOnnxModel": (False, False, False),
    "SamOnnxModel.single_mask": (True, False, False),
    "SamOnnxModel.stability_score": (False, True, False),
    "SamOnnxModel.extra_metrics": (True, False, True),
}
# Batch step name -> (``SamAutomaticMaskGenerator`` keywords, crop box).
AMG_BATCH: dict[str, tuple[dict[str, Any], list[int]]] = {
    "amg.process_batch": ({}, [0, 0, IMG, IMG]),
    "amg.process_batch.no_thresholds": ({"pred_iou_thresh": 0.0, "stability_score_thresh": 0.0}, [0, 0, IMG, IMG]),
    "amg.process_batch.crop": ({"pred_iou_thresh": 0.0, "stability_score_thresh": 0.0}, [0, 0, 40, 40]),
}
AMG = ("calculate_stability_score", "batched_mask_to_box", "batched_mask_to_box.single", "is_box_near_crop_edge",
       "uncrop_boxes_xyxy", "uncrop_boxes_xyxy.channel", "uncrop_points", "uncrop_masks", "uncrop_masks.full",
       "box_xyxy_to_xywh", "mask_to_rle_pytorch", "MaskData.filter_cat")
FUNCTIONS = ("window_partition", "window_partition.pad", "window_unpartition", "get_rel_pos",
             "get_rel_pos.interpolate", "add_decomposed_rel_pos")
TRAIN = ("train_step.decoder.box", "train_step.points.multimask", "train_step.full", "train_step.mask_refine")


def names() -> list[str]:
    return (list(SAM) + list(ENCODERS) + [f"encoder.{n}" for n in ENCODER_PARTS] + list(PROMPTS)
            + list(PROMPT_PARTS) + list(DECODERS) + list(PREDICTOR) + list(PREDICTOR_EXTRA) + list(ONNX)
            + list(AMG_BATCH) + [f"amg.{n}" for n in AMG] + [f"image_encoder.{n}" for n in FUNCTIONS] + list(TRAIN))


def _gen(seed: int) -> Any:
    import torch

    return torch.Generator().manual_seed(seed)


def _encoder(overrides: dict[str, Any] | None = None) -> Any:
    from functools import partial

    import torch
    from segment_anything.modeling import ImageEncoderViT

    return ImageEncoderViT(**{**ENCODER, "norm_layer": partial(torch.nn.LayerNorm, eps=1e-6), **(overrides or {})})


def _prompt_encoder() -> Any:
    from segment_anything.modeling import PromptEncoder

    return PromptEncoder(embed_dim=PROMPT_DIM, image_embedding_size=(GRID, GRID), input_image_size=(IMG, IMG),
                         mask_in_chans=MASK_CHANS)


def _decoder(multimask_outputs: int = 3, depth: int = 2) -> Any:
    from segment_anything.modeling import MaskDecoder, TwoWayTransformer

    return MaskDecoder(num_multimask_outputs=multimask_outputs,
                       transformer=TwoWayTransformer(depth=depth, embedding_dim=PROMPT_DIM, mlp_dim=64, num_heads=2),
                       transformer_dim=PROMPT_DIM, iou_head_depth=3, iou_head_hidden_dim=32)


def _sam(overrides: dict[str, Any] | None = None) -> Any:
    """A ``Sam`` assembled as ``_build_sam`` does, at the tiny size, in eval mode as the registry returns it."""
    from segment_anything.modeling import Sam

    sam = Sam(image_encoder=_encoder(overrides), prompt_encoder=_prompt_encoder(), mask_decoder=_decoder(),
              pixel_mean=[123.675, 116.28, 103.53], pixel_std=[58.395, 57.12, 57.375])
    return sam.eval()


def image(batch: int = 1, height: int = IMG, width: int = IMG, seed: int = 0) -> Any:
    import torch

    return torch.rand(batch, 3, height, width, generator=_gen(seed)) * 255


def prompt(kind: str, n: int = 2, seed: int = 1, size: int = IMG) -> Any:
    """Prompt tensors for ``n`` prompts: ``points`` (coords (n, 1, 2), labels (n, 1)), ``points3`` (three per
    prompt, labels 1 / 0 / -1), ``boxes`` (n, 4) in XYXY, ``masks`` (n, 1, 32, 32) low-resolution logits."""
    import torch

    g = _gen(seed)
    if kind in ("points", "tpoints"):
        return torch.rand(n, 1, 2, generator=g) * size, torch.ones(n, 1, dtype=torch.int)
    if kind == "points3":
        labels = torch.tensor([[1, 0, -1]] * n, dtype=torch.int)
        return torch.rand(n, 3, 2, generator=g) * size, labels
    if kind in ("boxes", "tboxes"):
        low = torch.rand(n, 2, generator=g) * size / 2
        return (torch.cat([low, low + size / 4 + torch.rand(n, 2, generator=g) * size / 4], dim=1),)
    return (torch.randn(n, 1, LOW, LOW, generator=g),)


def _record(img: Any, kinds: tuple[str, ...], original: tuple[int, int], seed: int) -> dict[str, Any]:
    record: dict[str, Any] = {"image": img, "original_size": original}
    for kind in kinds:
        if kind.startswith("points"):
            record["point_coords"], record["point_labels"] = prompt(kind, seed=seed)
        elif kind == "boxes":
            (record["boxes"],) = prompt(kind, seed=seed)
        else:
            (record["mask_inputs"],) = prompt(kind, seed=seed)
    return record


def _sam_forward(name: str) -> Built:
    overrides, kinds, multimask, (height, width), images = SAM[name]
    original = (IMG, IMG) if (height, width) == (IMG, IMG) else (2 * height, 2 * width)
    records = [_record(image(1, height, width, seed=i)[0], kinds, original, seed=i + 1) for i in range(images)]
    return _sam(overrides), (records, multimask), {}


def _encoder_part(name: str) -> Built:
    import torch
    from segment_anything.modeling.image_encoder import Attention, Block, PatchEmbed

    x = torch.randn(2, GRID, GRID, DIM, generator=_gen(2))
    common = {"dim": DIM, "num_heads": 2, "use_rel_pos": True, "norm_layer": torch.nn.LayerNorm}
    if name == "Block.window":
        return Block(**common, window_size=4, input_size=(GRID, GRID)), (x,), {}
    if name == "Block.global":
        return Block(**common, window_size=0, input_size=(GRID, GRID)), (x,), {}
    if name == "Block.window_pad":
        return Block(**common, window_size=3, input_size=(GRID, GRID)), (x,), {}
    if name == "Attention.rel_pos":
        return Attention(DIM, num_heads=2, use_rel_pos=True, input_size=(GRID, GRID)), (x,), {}
    if name == "Attention.plain":
        return Attention(DIM, num_heads=4, qkv_bias=False), (x,), {}
    return PatchEmbed(kernel_size=(PATCH, PATCH), stride=(PATCH, PATCH), embed_dim=DIM), (image(2),), {}


def _prompt_args(kinds: tuple[str, ...]) -> tuple[Any, Any, Any]:
    points = boxes = masks = None
    for kind in kinds:
        if kind.startswith("points"):
            points = prompt(kind)
        elif kind == "boxes":
            (boxes,) = prompt(kind)
        else:
            (masks,) = prompt(kind)
    return points, boxes, masks


def _prompt_part(name: str) -> Built:
    import torch
    from segment_anything.modeling.prompt_encoder import PositionEmbeddingRandom

    from gt_calls import Method

    if name == "PromptEncoder.get_dense_pe":
        return Method(_prompt_encoder(), "get_dense_pe"), (), {}
    if name == "PositionEmbeddingRandom":
        return PositionEmbeddingRandom(PROMPT_DIM // 2), ((GRID, GRID),), {}
    if name == "PositionEmbeddingRandom.scale":
        return PositionEmbeddingRandom(PROMPT_DIM // 2, scale=2.0), ((GRID, 2 * GRID),), {}
    coords = torch.rand(2, 3, 2, generator=_gen(3)) * IMG
    return Method(PositionEmbeddingRandom(PROMPT_DIM // 2), "forward_with_coords", image_size=(IMG, IMG)), (coords,), {}


def _decoder_inputs(prompts: int = 2, tokens: int = 2) -> tuple[Any, Any, Any, Any]:
    """Image embedding (1, C, 8, 8), its positional encoding, sparse (prompts, tokens, C) and dense
    (prompts, C, 8, 8) prompt embeddings."""
    import torch

    g = _gen(4)
    return (torch.randn(1, PROMPT_DIM, GRID, GRID, generator=g), torch.randn(1, PROMPT_DIM, GRID, GRID, generator=g),
            torch.randn(prompts, tokens, PROMPT_DIM, generator=g),
            torch.randn(prompts, PROMPT_DIM, GRID, GRID, generator=g))


def _decoder_part(name: str) -> Built:
    import torch
    from segment_anything.modeling.common import LayerNorm2d, MLPBlock
    from segment_anything.modeling.mask_decoder import MLP
    from segment_anything.modeling.transformer import Attention, TwoWayAttentionBlock

    from gt_calls import Method

    embedding, pe, sparse, dense = _decoder_inputs()
    if name == "MaskDecoder.multimask":
        return _decoder(), (embedding, pe, sparse, dense, True), {}
    if name == "MaskDecoder.single_mask":
        return _decoder(), (embedding, pe, sparse, dense, False), {}
    if name == "MaskDecoder.one_multimask_output":
        return _decoder(multimask_outputs=1), (embedding, pe, sparse, dense, True), {}
    if name == "MaskDecoder.predict_masks":
        return Method(_decoder(), "predict_masks"), (embedding, pe, sparse, dense), {}
    g = _gen(5)
    tokens = torch.randn(2, 7, PROMPT_DIM, generator=g)
    if name.startswith("TwoWayTransformer"):
        transformer = _decoder(depth=1 if name.endswith("depth1") else 2).transformer
        return transformer, (embedding.expand(2, -1, -1, -1), pe.expand(2, -1, -1, -1), tokens), {}
    keys = torch.randn(2, GRID * GRID, PROMPT_DIM, generator=g)
    key_pe = torch.randn(2, GRID * GRID, PROMPT_DIM, generator=g)
    if name.startswith("TwoWayAttentionBlock"):
        block = TwoWayAttentionBlock(PROMPT_DIM, 2, mlp_dim=64, skip_first_layer_pe=name.endswith("pe"))
        return block, (), {"queries": tokens, "keys": keys, "query_pe": tokens.clone(), "key_pe": key_pe}
    if name.startswith("transformer.Attention"):
        rate = 2 if name.endswith("downsample") else 1
        return Attention(PROMPT_DIM, 2, downsample_rate=rate), (tokens, keys, keys), {}
    if name == "MLP.sigmoid":
        return MLP(PROMPT_DIM, 32, 4, 3, sigmoid_output=True), (tokens,), {}
    if name == "LayerNorm2d":
        return LayerNorm2d(PROMPT_DIM), (embedding,), {}
    return MLPBlock(PROMPT_DIM, 64), (tokens,), {}


class _Holder:
    """Builds the predictor wrappers (an ``nn.Module`` holding the ``Sam`` and its ``SamPredictor``)."""

    @staticmethod
    def predictor_module(kinds: tuple[str, ...], multimask: bool, logits: bool, set_inside: bool) -> Built:
        import torch
        from segment_anything import SamPredictor
        from torch import nn

        sam = _sam()
        predictor = SamPredictor(sam)
        original = (2 * IMG, 2 * IMG) if any(k.startswith("t") for k in kinds) else (IMG, IMG)
        img = image(1)
        if not set_inside:
            predictor.set_torch_image(img, (IMG, IMG))

        class PredictorStep(nn.Module):
            """``predictor.set_torch_image(image, original_size)`` (when the image is an input), then
            ``predictor.predict_torch(...)`` with the prompts, as a user's loop over images does."""

            def __init__(self) -> None:
                super().__init__()
                self.sam = sam
                self.predictor = predictor

            def forward(self, *tensors: torch.Tensor) -> Any:
                tensors_ = list(tensors)
                if set_inside:
                    self.predictor.set_torch_image(tensors_.pop(0), original)
                coords = labels = boxes = masks = None
                for kind in kinds:
                    if kind in ("points", "tpoints"):
                        coords, labels = tensors_.pop(0), tensors_.pop(0)
                        if kind == "tpoints":
                            coords = self.predictor.transform.apply_coords_torch(coords, original)
                    elif kind in ("boxes", "tboxes"):
                        boxes = tensors_.pop(0)
                        if kind == "tboxes":
                            boxes = self.predictor.transform.apply_boxes_torch(boxes, original)
                    else:
                        masks = tensors_.pop(0)
                return self.predictor.predict_torch(coords, labels, boxes, masks, multimask_output=multimask,
                                                    return_logits=logits)

            def entry_points(self) -> list[Any]:
                entered = [SamPredictor.predict_torch]
                if set_inside:
                    entered.append(SamPredictor.set_torch_image)
                if any(k.startswith("t") for k in kinds):
                    entered.append(type(self.predictor.transform).apply_coords_torch)
                return entered

        args: list[Any] = [img] if set_inside else []
        for kind in kinds:
            args.extend(prompt(kind, size=2 * IMG if kind.startswith("t") else IMG))
        return PredictorStep(), tuple(args), {}


def _predictor_extra(name: str) -> Built:
    import torch
    from segment_anything import SamPredictor
    from segment_anything.utils.transforms import ResizeLongestSide
    from torch import nn

    from gt_calls import Method

    if name.startswith("ResizeLongestSide"):
        transform = ResizeLongestSide(IMG)
        method = name.split(".")[1]
        if method == "apply_image_torch":
            return Method(transform, method), (image(2, 96, 128) / 255,), {}  # type: ignore[arg-type]
        arg = prompt("points" if method == "apply_coords_torch" else "boxes", size=128)[0]
        return Method(transform, method, original_size=(96, 128)), (arg,), {}  # type: ignore[arg-type]
    if name == "Sam.preprocess":
        return Method(_sam(), "preprocess"), (image(1, 48, IMG),), {}
    if name == "Sam.postprocess_masks":
        low = torch.randn(2, 3, LOW, LOW, generator=_gen(6))
        return Method(_sam(), "postprocess_masks", input_size=(48, IMG), original_size=(96, 128)), (low,), {}
    sam = _sam()
    predictor = SamPredictor(sam)
    if name == "SamPredictor.set_torch_image":

        class SetImage(nn.Module):
            def __init__(self) -> None:
                super().__init__()
                self.sam = sam

            def forward(self, img: torch.Tensor) -> torch.Tensor:
                predictor.set_torch_image(img, (96, 128))
                return predictor.get_image_embedding()

            def entry_points(self) -> list[Any]:
                return [SamPredictor.set_torch_image, SamPredictor.get_image_embedding]

        return SetImage(), (image(1, 48, IMG),), {}

    class Iterative(nn.Module):
        """The interactive loop of SAM's predictor notebook: a first click with three masks, then the best
        mask's low-resolution logits fed back with a second click, single mask."""

        def __init__(self) -> None:
            super().__init__()
            self.sam = sam

        def forward(self, img: torch.Tensor, coords: torch.Tensor, labels: torch.Tensor) -> Any:
            predictor.set_torch_image(img, (IMG, IMG))
            _, scores, logits = predictor.predict_torch(coords[:, :1], labels[:, :1], multimask_output=True)
            best = logits[torch.arange(logits.shape[0]), scores.argmax(dim=1)][:, None]
            return predictor.predict_torch(coords, labels, mask_input=best, multimask_output=False)

        def entry_points(self) -> list[Any]:
            return [SamPredictor.set_torch_image, SamPredictor.predict_torch]

    coords = torch.rand(2, 2, 2, generator=_gen(7)) * IMG
    labels = torch.tensor([[1, 0], [1, 1]], dtype=torch.int)
    return Iterative(), (image(1), coords, labels), {}


def _onnx(name: str) -> Built:
    import torch
    from segment_anything.utils.onnx import SamOnnxModel

    single, stability, extra = ONNX[name]
    model = SamOnnxModel(_sam(), return_single_mask=single, use_stability_score=stability,
                         return_extra_metrics=extra)
    g = _gen(8)
    embedding = torch.randn(1, PROMPT_DIM, GRID, GRID, generator=g)
    coords = torch.rand(1, 3, 2, generator=g) * IMG
    labels = torch.tensor([[1.0, 0.0, -1.0]])
    mask_input = torch.randn(1, 1, LOW, LOW, generator=g)
    return model, (embedding, coords, labels, mask_input, torch.tensor([1.0]), torch.tensor([96.0, 128.0])), {}


def _amg_batch(name: str) -> Built:
    import torch
    from segment_anything import SamAutomaticMaskGenerator, SamPredictor
    from segment_anything.utils import amg
    from torch import nn

    keywords, crop = AMG_BATCH[name]
    sam = _sam()
    generator = SamAutomaticMaskGenerator(sam, points_per_side=4, points_per_batch=16, **keywords)
    predictor = generator.predictor
    height, width = crop[3] - crop[1], crop[2] - crop[0]
    predictor.set_torch_image(image(1, IMG, IMG), (height, width))  # the crop's image, set
    points = torch.as_tensor(amg.build_point_grid(4), dtype=torch.float) * torch.tensor([[width, height]])

    class ProcessBatch(nn.Module):
        """``SamAutomaticMaskGenerator._process_batch`` on a tensor of grid points: one batch through
        ``predict_torch`` (three masks each, logits), ``MaskData`` filtered by predicted IoU and stability
        score (the generator's thresholds), thresholded to boxes, boxes at the crop's edge dropped, masks
        uncropped and run-length encoded."""

        def __init__(self) -> None:
            super().__init__()
            self.sam = sam

        def forward(self, pts: torch.Tensor) -> Any:
            in_points = predictor.transform.apply_coords_torch(pts, (height, width))
            in_labels = torch.ones(in_points.shape[0], dtype=torch.int, device=in_points.device)
            masks, iou_preds, _ = predictor.predict_torch(in_points[:, None, :], in_labels[:, None],
                                                          multimask_output=True, return_logits=True)
            data = amg.MaskData(masks=masks.flatten(0, 1), iou_preds=iou_preds.flatten(0, 1),
                                points=pts.repeat_interleave(masks.shape[1], dim=0))
            if generator.pred_iou_thresh > 0.0:
                data.filter(data["iou_preds"] > generator.pred_iou_thresh)
            data["stability_score"] = amg.calculate_stability_score(data["masks"], sam.mask_threshold,
                                                                    generator.stability_score_offset)
            if generator.stability_score_thresh > 0.0:
                data.filter(data["stability_score"] >= generator.stability_score_thresh)
            data["masks"] = data["masks"] > sam.mask_threshold
            data["boxes"] = amg.batched_mask_to_box(data["masks"])
            keep_mask = ~amg.is_box_near_crop_edge(data["boxes"], crop, [0, 0, IMG, IMG])
            if not torch.all(keep_mask):
                data.filter(keep_mask)
            data["masks"] = amg.uncrop_masks(data["masks"], crop, IMG, IMG)
            data["rles"] = amg.mask_to_rle_pytorch(data["masks"])
            return data["boxes"], data["rles"]

        def entry_points(self) -> list[Any]:
            return [SamPredictor.predict_torch, amg.MaskData.filter, amg.calculate_stability_score,
                    amg.batched_mask_to_box, amg.is_box_near_crop_edge, amg.mask_to_rle_pytorch]

    return ProcessBatch(), (points,), {}


def _amg(name: str) -> Built:
    import torch
    from segment_anything.utils import amg
    from torch import nn

    from gt_calls import Call

    g = _gen(9)
    logits = torch.randn(2, 3, LOW, LOW, generator=g) * 4
    masks = torch.zeros(4, LOW, LOW, dtype=torch.bool)
    masks[0, 4:12, 6:20] = True
    masks[1, 20:, 0:8] = True
    masks[3, 10:30, 10:30] = True
    boxes = torch.tensor([[0.0, 2.0, 14.0, 20.0], [4.0, 30.0, 38.0, 39.0], [10.0, 10.0, 20.0, 20.0]])
    if name == "calculate_stability_score":
        return Call(amg.calculate_stability_score, mask_threshold=0.0, threshold_offset=1.0), (logits,), {}
    if name == "batched_mask_to_box":
        return Call(amg.batched_mask_to_box), (masks.view(2, 2, LOW, LOW),), {}
    if name == "batched_mask_to_box.single":
        return Call(amg.batched_mask_to_box), (masks[0],), {}
    if name == "is_box_near_crop_edge":
        return Call(amg.is_box_near_crop_edge, crop_box=[0, 0, 40, 40], orig_box=[0, 0, IMG, IMG]), (boxes,), {}
    if name == "uncrop_boxes_xyxy":
        return Call(amg.uncrop_boxes_xyxy, crop_box=[8, 16, 48, 56]), (boxes,), {}
    if name == "uncrop_boxes_xyxy.channel":
        return Call(amg.uncrop_boxes_xyxy, crop_box=[8, 16, 48, 56]), (boxes.view(3, 1, 4).expand(3, 2, 4),), {}
    if name == "uncrop_points":
        return Call(amg.uncrop_points, crop_box=[8, 16, 48, 56]), (boxes[:, :2],), {}
    if name == "uncrop_masks":
        return Call(amg.uncrop_masks, crop_box=[8, 16, 40, 48], orig_h=IMG, orig_w=IMG), (masks,), {}
    if name == "uncrop_masks.full":
        return Call(amg.uncrop_masks, crop_box=[0, 0, LOW, LOW], orig_h=LOW, orig_w=LOW), (masks,), {}
    if name == "box_xyxy_to_xywh":
        return Call(amg.box_xyxy_to_xywh), (boxes[0],), {}
    if name == "mask_to_rle_pytorch":
        return Call(amg.mask_to_rle_pytorch), (masks,), {}

    class FilterCat(nn.Module):
        """``MaskData`` as ``_process_batch`` and ``_process_crop`` use it: masks and scores filtered by a
        threshold, then concatenated into the crop's data."""

        def forward(self, masks_: torch.Tensor, iou: torch.Tensor, points: torch.Tensor) -> Any:
            data = amg.MaskData(masks=masks_, iou_preds=iou, points=points)
            data.filter(data["iou_preds"] > 0.0)
            data["stability_score"] = amg.calculate_stability_score(data["masks"], 0.0, 1.0)
            total = amg.MaskData()
            total.cat(data)
            total.cat(data)
            return total["masks"], total["stability_score"]

        def entry_points(self) -> list[Any]:
            return [amg.MaskData.filter, amg.MaskData.cat]

    return FilterCat(), (logits.flatten(0, 1), torch.randn(6, generator=g), torch.rand(6, 2, generator=g)), {}


def _function(name: str) -> Built:
    import torch
    from segment_anything.modeling import image_encoder as ie

    from gt_calls import Call

    g = _gen(10)
    x = torch.randn(2, GRID, GRID, DIM, generator=g)
    if name == "window_partition":
        return Call(ie.window_partition, window_size=4), (x,), {}
    if name == "window_partition.pad":
        return Call(ie.window_partition, window_size=3), (x,), {}
    if name == "window_unpartition":
        windows = torch.randn(2 * 9, 3, 3, DIM, generator=g)
        return Call(ie.window_unpartition, window_size=3, pad_hw=(9, 9), hw=(GRID, GRID)), (windows,), {}
    if name == "get_rel_pos":
        return Call(ie.get_rel_pos), (GRID, GRID, torch.randn(2 * GRID - 1, 16, generator=g)), {}
    if name == "get_rel_pos.interpolate":
        return Call(ie.get_rel_pos), (6, 6, torch.randn(2 * GRID - 1, 16, generator=g)), {}
    q = torch.randn(4, GRID * GRID, 16, generator=g)
    attn = torch.randn(4, GRID * GRID, GRID * GRID, generator=g)
    rel_h, rel_w = torch.randn(2 * GRID - 1, 16, generator=g), torch.randn(2 * GRID - 1, 16, generator=g)
    return Call(ie.add_decomposed_rel_pos, q_size=(GRID, GRID), k_size=(GRID, GRID)), (attn, q, rel_h, rel_w), {}


def _dice_bce(logits: Any, target: Any) -> Any:
    """MedSAM's loss: soft dice on sigmoid probabilities plus binary cross-entropy, per mask."""
    import torch.nn.functional as F

    probs = logits.sigmoid()
    inter = (probs * target).flatten(-2).sum(-1)
    dice = 1 - (2 * inter + 1) / (probs.flatten(-2).sum(-1) + target.flatten(-2).sum(-1) + 1)
    bce = F.binary_cross_entropy_with_logits(logits, target, reduction="none").flatten(-2).mean(-1)
    return dice + bce


def _train(name: str) -> Built:
    import torch
    from torch import nn

    sam = _sam()
    for parameter in sam.image_encoder.parameters():
        parameter.requires_grad_(name == "train_step.full")
    if name == "train_step.decoder.box":
        for parameter in sam.prompt_encoder.parameters():
            parameter.requires_grad_(False)
    g = _gen(11)
    target = (torch.rand(2, 1, LOW, LOW, generator=g) > 0.5).float()

    class TrainStep(nn.Module):
        """A fine-tuning step: image embedding (under ``no_grad`` when the encoder is frozen), prompt
        encoder, mask decoder and the loss against a target mask at low resolution."""

        def __init__(self) -> None:
            super().__init__()
            self.sam = sam

        def forward(self, img: torch.Tensor, target_: torch.Tensor, *prompts: torch.Tensor) -> torch.Tensor:
            x = self.sam.preprocess(img)
            if name == "train_step.full":
                embedding = self.sam.image_encoder(x)
            else:
                with torch.no_grad():
                    embedding = self.sam.image_encoder(x)
            if name == "train_step.decoder.box":
                sparse, dense = self.sam.prompt_encoder(points=None, boxes=prompts[0], masks=None)
            elif name == "train_step.full":
                sparse, dense = self.sam.prompt_encoder(points=(prompts[0], prompts[1]), boxes=prompts[2], masks=None)
            elif name == "train_step.mask_refine":
                sparse, dense = self.sam.prompt_encoder(points=(prompts[0], prompts[1]), boxes=None, masks=prompts[2])
            else:
                sparse, dense = self.sam.prompt_encoder(points=(prompts[0], prompts[1]), boxes=None, masks=None)
            multimask = name == "train_step.points.multimask"
            low_res, iou_pred = self.sam.mask_decoder(image_embeddings=embedding,
                                                      image_pe=self.sam.prompt_encoder.get_dense_pe(),
                                                      sparse_prompt_embeddings=sparse, dense_prompt_embeddings=dense,
                                                      multimask_output=multimask)
            losses = _dice_bce(low_res, target_.expand_as(low_res))
            if not multimask:
                return losses.mean()
            # SAM's recipe: back-propagate the lowest loss over the masks, plus the IoU head's error.
            best = losses.argmin(dim=1)
            chosen = losses[torch.arange(losses.shape[0]), best]
            pred = low_res > 0
            inter = (pred & (target_ > 0)).flatten(-2).sum(-1).float()
            union = (pred | (target_ > 0)).flatten(-2).sum(-1).float()
            iou_loss = nn.functional.mse_loss(iou_pred, inter / union.clamp(min=1))
            return chosen.mean() + iou_loss

        def entry_points(self) -> list[Any]:
            return [type(self.sam.image_encoder), type(self.sam.prompt_encoder), type(self.sam.mask_decoder),
                    type(self.sam).preprocess]

    if name == "train_step.decoder.box":
        prompts = prompt("boxes")
    elif name == "train_step.full":
        prompts = (*prompt("points"), *prompt("boxes"))
    elif name == "train_step.mask_refine":
        prompts = (*prompt("points"), *prompt("masks"))
    else:
        prompts = prompt("points")
    return TrainStep(), (image(1), target, *prompts), {}


def build(name: str) -> Built:
    import warnings

    import torch

    warnings.filterwarnings("ignore")
    torch.manual_seed(0)
    if name in SAM:
        return _sam_forward(name)
    if name in ENCODERS:
        overrides, size = ENCODERS[name]
        channels = overrides.get("in_chans", 3)
        return _encoder(overrides), (torch.randn(2, channels, size, size, generator=_gen(12)),), {}
    if name.startswith("encoder."):
        return _encoder_part(name.split(".", 1)[1])
    if name in PROMPTS:
        points, boxes, masks = _prompt_args(PROMPTS[name])
        return _prompt_encoder(), (points, boxes, masks), {}
    if name in PROMPT_PARTS:
        return _prompt_part(name)
    if name in DECODERS:
        return _decoder_part(name)
    if name in PREDICTOR:
        return _Holder.predictor_module(*PREDICTOR[name])
    if name in PREDICTOR_EXTRA:
        return _predictor_extra(name)
    if name in ONNX:
        return _onnx(name)
    if name in AMG_BATCH:
        return _amg_batch(name)
    if name.startswith("amg."):
        return _amg(name.split(".", 1)[1])
    if name.startswith("image_encoder."):
        return _function(name.split(".", 1)[1])
    return _train(name)
