"""Ground-truth bench, the installation: a virtual environment with every library the catalogue compiles.

    python bench/groundtruth/gt_setup.py [--venv ~/.cache/dynalint-bench/gtvenv] [--dry-run]
    python bench/groundtruth/groundtruth.py --setup ...     (the same, then the harness in it)

Creates the environment (or updates it) and installs, each at the exact version in ``LIBRARIES``, the
libraries of the catalogue, then this checkout of dynalint (editable, without its extras). Every pip
command is given the constraints file ``CONSTRAINTS`` (written into the environment), which pins
``torch`` to 2.13.0 and ``torchvision`` to its matching release, so that no library can bring in
another torch: an open ``torch`` requirement would otherwise download a multi-gigabyte CUDA build.
torch is installed first, alone, so pip settles it before any library is resolved. The driver
(``groundtruth.py``) then runs itself with the environment's Python whenever the environment exists.

Nothing here imports torch; ``commands()`` is plain data (tested in ``tests/test_groundtruth_setup.py``).
Part of the harness run by ``python bench/groundtruth/groundtruth.py`` (see ``README.md``).
"""

from __future__ import annotations

import argparse
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]  # the checkout
VENV = Path.home() / ".cache" / "dynalint-bench" / "gtvenv"
TORCH = "2.13.0"

# What pip may never move: torch, and the torchvision built against it (timm, open_clip and
# segmentation_models_pytorch declare it; only its pure-Python parts are imported, see gt_models).
CONSTRAINTS = (f"torch=={TORCH}", "torchvision==0.28.0")

# Distribution -> exact version, for every library the catalogue builds models of.
LIBRARIES: dict[str, str] = {
    "diffusers": "0.42.1",
    "timm": "1.0.31",
    "torch-geometric": "2.8.1",
    "kornia": "0.9.0",
    "monai": "1.6.1",
    "torchmetrics": "1.9.0",
    "x-transformers": "2.31.10",
    "vector-quantize-pytorch": "1.32.0",
    "vit-pytorch": "1.26.11",
    "torchdiffeq": "0.2.5",
    "torchsde": "0.2.6",
    "pyro-ppl": "1.9.2",
    "gpytorch": "1.15.2",
    "e3nn": "0.6.0",
    "fair-esm": "2.0.0",
    "pytorch-metric-learning": "2.9.0",  # the second sealed half, from here to torchcde
    "lightly": "1.6.0",
    "zuko": "1.6.0",
    "nflows": "0.14",
    "torchcde": "0.2.5",
    "torchtune": "0.6.1",
    "torchao": "0.10.0",  # torchtune imports torchao.dtypes.nf4tensor, which later releases removed
    "open-clip-torch": "3.3.0",
    "pytorch-forecasting": "1.8.0",
    "neuralforecast": "3.3.0",  # the third sealed half (spent), from here to denoising-diffusion-pytorch
    "pykeen": "1.11.1",
    "piq": "0.8.0",
    "normflows": "1.7.3",
    "nnAudio": "0.3.4",
    "auraloss": "0.4.0",
    "pytorch-tabnet": "4.1.0",
    "denoising-diffusion-pytorch": "2.3.4",
    "sbi": "0.27.0",  # the fourth sealed half (spent), from here to segmentation-models-pytorch
    "botorch": "0.18.1",
    "geoopt": "0.5.1",
    "torchdyn": "1.0.6",
    "torchode": "1.0.1",
    "flow-matching": "1.0.10",
    "deepxde": "1.15.0",
    "torchquad": "0.6.0",
    "torchkge": "0.17.7",
    "segmentation-models-pytorch": "0.6.0",
    "stable-baselines3": "2.9.2",  # the fifth sealed half (spent), from here to torchkbnufft
    "ultralytics": "8.4.190",
    "demucs": "4.1.0",
    "performer-pytorch": "1.1.4",
    "perceiver-pytorch": "0.11.0",
    "local-attention": "1.11.2",
    "rotary-embedding-torch": "0.9.1",
    "torchani": "2.9.0",
    "rtdl-revisiting-models": "0.0.2",
    "torch-optimizer": "0.3.0",
    "reformer-pytorch": "1.4.4",  # added to the fifth sealed half before it was scored
    "routing-transformer": "1.6.1",
    "linear-attention-transformer": "0.19.1",
    "linformer": "0.2.3",  # linear-attention-transformer's requirement; the twentieth pick
    "torchcfm": "1.0.7",
    "torchkbnufft": "1.5.2",
    "captum": "0.9.0",  # the sixth sealed half (spent), from here to julius
    "pytorch_optimizer": "4.1.0",
    "torch-struct": "0.5",
    "pytorch-crf": "0.7.2",
    "entmax": "1.3",
    "x-clip": "0.14.4",
    "julius": "0.2.8",
    "pykan": "0.2.8",  # added to the sixth sealed half before it was scored, from here to st-moe-pytorch
    "deepinv": "0.5.0",
    "st-moe-pytorch": "0.1.8",
    "segment-anything": "1.0",  # the seventh sealed half, from here to torchrl
    "numba": "0.68.1",  # whisper's, which comes without its own (see WITHOUT_DEPS)
    "geomloss": "0.3.1",
    "mambapy": "1.2.0",
    "efficientnet_pytorch": "0.7.1",
    "asteroid-filterbanks": "0.4.0",
    "torchrl": "0.14.1",
    "tensordict": "0.14.3",
    "POT": "0.9.7.post1",  # added to the seventh sealed half before it was scored, from here to product-key-memory
    "torch-ppr": "0.0.8",
    "ema-pytorch": "0.8.3",
    "CoLT5-attention": "0.11.2",
    "mixture-of-experts": "0.2.3",
    "product-key-memory": "0.3.0",
    "opacus": "1.6.0",  # the eighth sealed half, from here to laplace-torch
    "sb3-contrib": "2.9.2",
    "FrEIA": "0.2",
    "kymatio": "0.3.0",
    "laplace-torch": "0.3",
    "linear_operator": "0.6.1",  # added to the eighth sealed half before it was scored, from here to torch-kmeans
    "tensorly": "0.10.0",
    "ptwt": "1.0.1",
    "pytorch-minimize": "0.1.0",
    "torch-kmeans": "0.2.0",
    "MEGABYTE-pytorch": "0.3.6",  # the ninth sealed half, from here to pytorch-tcn
    "bayesian-torch": "0.5.0",
    "soft-moe-pytorch": "0.1.9",
    "CoCa-pytorch": "0.1.0",
    "x-unet": "0.5.0",
    "pytorch-tcn": "1.2.3",
    "pypose": "0.9.5",  # added to the ninth sealed half before it was scored, from here to pymde
    "geotorch": "0.4.0",
    "roma": "1.8.0",
    "pymde": "0.3.0",
    "torchopt": "0.7.3",  # the tenth sealed half, from here to torch-ema
    "schedulefree": "1.4.1",
    "gateloop-transformer": "0.2.5",
    "RIN-pytorch": "0.8.0",
    "torch-ema": "0.3",
    "xitorch": "0.5.1",  # added to the tenth sealed half before it was scored, from here to torchinterp1d
    "pytorch-kinematics": "0.10.0",
    "ncps": "1.0.1",
    "torch-dct": "0.1.6",
    "torchinterp1d": "1.1",
    "torchio": "1.2.1",  # the eleventh pick, built blind while the tenth waited for its score: to torchensemble
    "torch-pruning": "1.6.1",
    "pytorch-ignite": "0.5.5",
    "cooper-optim": "1.0.1",
    "shap": "0.51.0",
    "torchensemble": "0.2.0",
    "snntorch": "1.0.0",  # the twelfth pick, built blind while the eleventh waited for its score: to lion-pytorch
    "norse": "1.1.0",
    "e2cnn": "0.2.3",
    "titans-pytorch": "0.5.5",
    "byol-pytorch": "0.9.1",
    "lion-pytorch": "0.2.5",
    "se3-transformer-pytorch": "0.9.0",  # added to the twelfth sealed half before it was scored: to rwkv
    "egnn-pytorch": "0.2.8",
    "dadaptation": "3.2",
    "prodigyopt": "1.1.2",
    "blitz-bayesian-pytorch": "0.2.8",
    "rwkv": "0.8.32",
    "torchcam": "0.5.0",  # the thirteenth pick, built blind after the twelfth was scored: to lpips
    "diffsort": "0.2.0",
    "conformer": "0.3.2",
    "higher": "0.2.1",
    "torchxrayvision": "1.5.7",
    "lpips": "0.1.4",
    "tntorch": "1.1.2",  # joined the thirteenth pick before its score, built blind: to adabelief-pytorch
    "torchnmf": "0.3.5",
    "pytorch-msssim": "1.0.0",
    "torchbnn": "1.2",
    "hypll": "0.1.1",
    "torch-lr-finder": "0.2.2",
    "kmeans-pytorch": "0.3",
    "fast-pytorch-kmeans": "0.2.2",
    "adabelief-pytorch": "0.2.1",
    "piqa": "1.3.2",  # the fourteenth pick, named after the thirteenth was scored: to pytorch-warmup
    "torchdr": "0.5",
    "madgrad": "1.3",
    "nystrom-attention": "0.0.14",
    "pytorch-warmup": "0.2.0",
    "torchsurv": "0.2.0",  # joined the fourteenth pick before its score: to torch-uncertainty
    "pytorch-ood": "0.4.0",
    "deepctr-torch": "0.3.0",
    "torch-uncertainty": "0.13.0",
    "vmas": "1.5.2",  # the fifteenth pick, named after the fourteenth was scored: to adan-pytorch
    "torchist": "1.0.1",
    "sparsemax": "0.1.9",
    "tab-transformer-pytorch": "0.6.1",
    "came-pytorch": "0.1.3",
    "adan-pytorch": "0.1.0",
    "neuraloperator": "2.0.0",  # joined the fifteenth pick before its score: to siren-pytorch
    "bs-roformer": "1.2.4",
    "lambda-networks": "0.4.0",
    "siren-pytorch": "0.1.7",
    "palm-rlhf-pytorch": "0.8.0",  # joined the fifteenth pick before its score, after the four above
    "recurrent-memory-transformer-pytorch": "0.7.0",
    "iTransformer": "0.8.1",  # the sixteenth pick, named after the fifteenth was scored: to axial-attention
    "taylor-series-linear-attention": "0.2.0",
    "hourglass-transformer-pytorch": "0.0.6",
    "axial-attention": "0.6.1",
    "equiformer-pytorch": "0.5.4",  # joined the sixteenth pick before any of it was built: to sam-pytorch
    "rectified-flow-pytorch": "0.14.0",
    "Mega-pytorch": "0.1.0",
    "charformer-pytorch": "0.0.4",
    "mlp-mixer-pytorch": "0.3.1",
    "g-mlp-pytorch": "0.1.5",
    "sam-pytorch": "0.0.1",
    "pfrl": "0.4.0",  # joined the sixteenth pick when its first builders counted few break sites
    "bindsnet": "0.2.7",  # the seventeenth pick, named after the sixteenth was scored
    "torchdrift": "0.1.0.post1",
    "magvit2-pytorch": "0.5.1",
    "memory-efficient-attention-pytorch": "0.1.6",
    "simple-hierarchical-transformer": "0.4.0",
    "skrl": "2.1.1",  # joined the seventeenth pick when its first five builders counted 44 break sites
    "poutyne": "1.19.0",
    "skorch": "1.4.0",
    "pina-mathlab": "0.3.2.post2610",
    "flowtorch": "0.8",
    "nequip": "0.19.1",  # the eighteenth pick, named after the seventeenth was scored
    "cherry-rl": "0.2.0",
    "torch-rechub": "0.9.0",
    "pytorch-nlp": "0.5.0",
    "torchlibrosa": "0.1.0",
    "torchbearer": "0.5.5",  # joined the eighteenth pick before any of its builders was written
    "pytorch-accelerated": "0.1.61",
    "torchtnt": "0.2.4",
    "transfusion-pytorch": "0.20.0",
    "En-transformer": "1.6.6",
    "invariant-point-attention": "0.2.2",
    "catalyst": "22.4",  # the nineteenth pick, named after the eighteenth was scored
    "sinkhorn-transformer": "0.11.4",
    "point-transformer-pytorch": "0.1.5",
    "speculative-decoding": "0.2.0",
    "res-mlp-pytorch": "0.0.6",
    "torchgan": "0.1.0",  # joined the nineteenth pick before any of its builders was written
    "halonet-pytorch": "0.0.5",
    "bottleneck-transformer-pytorch": "0.1.4",
    "compressive-transformer-pytorch": "0.4.0",
    "accelerate": "1.15.0",  # the twentieth pick, named after the nineteenth was scored (catalyst's requirement too)
    "mmengine": "0.10.7",
    "perceiver-ar-pytorch": "0.0.10",
    "nGPT-pytorch": "0.2.16",
    "mixture-of-attention": "0.0.25",
    "native-sparse-attention-pytorch": "0.2.3",
    "avalanche-lib": "0.6.0",  # joined the twentieth pick before any of its builders was written
    "keras": "3.15.1",  # run on its torch backend (``KERAS_BACKEND=torch``); the twentieth pick
    "effdet": "0.4.1",  # the twentieth pick
    "pytorch-toolbelt": "0.8.0",  # the twentieth pick
    "memformer": "0.3.1",  # the twenty-first pick, named after the twentieth was scored
    "slot-attention": "1.5.2",
    "long-short-transformer": "0.0.5",
    "lie-transformer-pytorch": "0.0.17",
    "fairscale": "0.4.13",  # joined the twenty-first pick before any of its builders was written
    "torchdistill": "1.1.5",  # joined the twenty-first pick before any of its builders was written
    "pytorch-frame": "0.3.0",
    "stanza": "1.15.0",
    "torch-fidelity": "0.4.0",  # the twenty-second pick, named after the twenty-first was scored
    "pretrainedmodels": "0.7.4",
    "pytorchvideo": "0.1.5",
    "minGRU-pytorch": "0.2.1",
    "mmdit": "0.3.0",
    "flamingo-pytorch": "0.1.2",
    "pytorch-pfn-extras": "0.9.0",  # joined the twenty-second pick before any of their builders was written
    "torcheval": "0.0.7",
    "tez": "0.7.2",
    "zennit": "0.5.1",  # the twenty-third pick (following), named while the twenty-second waits for its score
    "tensorly-torch": "0.5.0",
    "heavyball": "3.2.1",
    "ring-attention-pytorch": "0.5.20",
    "deformable-attention": "0.0.20",
    "agent-attention-pytorch": "0.1.7",
    "h-transformer-1d": "0.1.9",
    "torch-spatiotemporal": "0.9.5",
    "trainer": "0.0.36",  # joined the twenty-third pick before any of their builders was written
    "nequip-allegro": "0.8.3",
    "lightning-uq-box": "0.2.0",
    "neurodiffeq": "0.7.0",  # joined the twenty-third pick on 2026-11-29, before any builder of theirs was written
    "adversarial-robustness-toolbox": "1.20.1",
    "posteriors": "0.1.3",  # the twenty-fourth pick, following the twenty-third (in neither half until it is sealed)
    "torchjd": "0.18.0",
    "torch-optimi": "0.3.3",
    "PEER-pytorch": "0.2.2",
    "foolbox": "3.3.4",
    # the twenty-fifth pick, following the twenty-fourth (in neither half until it is sealed)
    "graph-transformer-pytorch": "0.1.1",
    "grokfast-pytorch": "0.0.11",
    "frame-averaging-pytorch": "0.1.2",
    "lumiere-pytorch": "0.0.24",
    "coral-pytorch": "1.4.0",
    "ogb": "1.3.6",
    "adam-atan2-pytorch": "0.4.1",
    "x-mlps-pytorch": "0.6.9",
    "torchkeras": "4.0.5",  # frameworks joining the twenty-fifth pick on 2026-11-29, before any builder of theirs was written
    "torchinfo": "1.8.0",
    "ptflops": "0.7.5",
    "mushroom-rl": "1.10.1",
    "bitsandbytes": "0.50.2",  # the twenty-sixth pick, named on 2026-11-29 while the twenty-fourth waited (torchao and
    # tensordict are pinned above, for torchtune and torchrl)
    "einx": "0.4.3",
    "FLASH-pytorch": "0.1.9",
    "pytorch-fid": "0.3.0",
    "backpack-for-pytorch": "1.7.1",  # frameworks joining the twenty-sixth pick on 2026-11-29, before any builder of
    "asdfghjkl": "0.1a4",  # theirs was written (installed already, as laplace's curvature backends)
    "curvlinops-for-pytorch": "3.0.1",
    "hyper-connections": "0.4.11",  # the twenty-seventh pick, named on 2026-11-29 (installed already, as dependencies)
    "PoPE-pytorch": "0.2.1",
    "hl-gauss-pytorch": "0.3.0",
    "accelerated-scan": "0.3.1",
    "mogrifier": "0.0.5",
    "axial_positional_embedding": "0.3.12",
    "torch-einops-utils": "0.2.0",
    "pytorch-custom-utils": "0.0.21",
    "discrete-continuous-embed-readout": "0.2.12",
    "pytorch-ranger": "0.1.1",  # frameworks joining the twenty-seventh pick on 2026-11-29, before any builder (installed already)
    "torch-max-mem": "0.1.6",
    "nirtorch": "2.6",
    "einconv": "0.1.0",
    "unfoldNd": "0.2.3",
    "assoc-scan": "0.0.6",
    "memmap-replay-buffer": "0.2.3",
    "arm_pytorch_utilities": "0.5.0",
    "fvcore": "0.1.5.post20221221",  # four more joining the twenty-seventh pick on 2026-11-29, before any builder of theirs
    "torchsummary": "1.5.1",
    "pytorch-model-summary": "0.1.2",
    "torchprofile": "0.1.0",
    "hoptorch": "0.1.4",  # five more joining the twenty-seventh pick, before any builder of theirs (installed already)
    "opt-einsum-fx": "0.1.4",
    "torchtyping": "0.1.5",
    "pytorch-seed": "0.2.0",
    "einops-exts": "0.0.4",
    "glasflow": "0.4.1",  # the twenty-eighth pick, named on 2026-11-29 (a dry run adds only each itself)
    "torchlens": "2.36.1",
    "timesformer-pytorch": "0.4.1",  # joining the twenty-eighth pick on 2026-11-29, before any builder of theirs (a dry run adds only each itself; ultralytics-thop was installed already, for ultralytics)
    "triangle-multiplicative-module": "0.0.3",
    "segformer-pytorch": "0.0.6",
    "gated-state-spaces-pytorch": "0.1.0",
    "discrete-key-value-bottleneck-pytorch": "0.1.1",
    "RQ-transformer": "0.1.9",
    "torch-complex": "0.4.4",
    "transformer-in-transformer": "0.1.2",
    "metaformer-gpt": "0.0.5",
    "token-shift-gpt": "0.0.2",
    "isab-pytorch": "0.3.0",
    "glom-pytorch": "0.0.14",
    "n-grammer-pytorch": "0.0.14",
    "bidirectional-cross-attention": "0.1.0",
    "ultralytics-thop": "2.2.3",
    "rtdl_num_embeddings": "0.0.12",  # the twenty-ninth pick, named on 2026-11-29 (a dry run adds only each itself)
    "nerf-pytorch": "1.2",
    "kornia_moons": "0.3.0",
    "lightning": "2.6.6",  # litgpt's runtime requirements (named since litgpt comes without its own); the nineteenth pick
    "jsonargparse": "4.41.0",
    "tokenizers": "0.23.3",
}

# Installed with ``--no-deps``, the modules the catalogue imports running with what ``LIBRARIES`` brings:
# litgpt's metadata pins a huggingface_hub that diffusers cannot share, and openai-whisper's asks for
# triton, a compiler for GPU kernels that would change what Dynamo sees on this CPU torch.
WITHOUT_DEPS: dict[str, str] = {
    "litgpt": "0.5.13",
    "openai-whisper": "20250625",
    "torchattacks": "3.5.1",  # pins requests~=2.25, older than the bench's; it downloads nothing here (twentieth pick)
}


# Built from a source distribution against the environment's own torch (``--no-build-isolation``): in an
# isolated build pip would resolve a torch of its own, unconstrained, for the setup script to import.
WITHOUT_BUILD_ISOLATION: dict[str, str] = {
    "deepspeed": "0.19.8",  # its setup script only records the torch it sees; no kernel is built (twenty-first pick)
}


def constraints_file(venv: Path) -> Path:
    return venv / "dynalint-constraints.txt"


def commands(venv: Path) -> list[list[str]]:
    """The commands that create and fill ``venv``, in order (each pip command under the constraints)."""
    pip = [str(venv / "bin" / "python"), "-m", "pip", "install", "--disable-pip-version-check",
           "-c", str(constraints_file(venv))]
    pinned = [f"{name}=={version}" for name, version in LIBRARIES.items()]
    return [
        [sys.executable, "-m", "venv", str(venv)],
        pip + [f"torch=={TORCH}"],
        pip + pinned,
        pip + ["--no-deps"] + [f"{name}=={version}" for name, version in WITHOUT_DEPS.items()],
        pip + ["--no-build-isolation"] + [f"{name}=={version}" for name, version in WITHOUT_BUILD_ISOLATION.items()],
        pip + ["-e", str(ROOT)],  # dynalint, whose own requirements (libcst, click) are light
    ]


def check(venv: Path) -> str:
    """The torch the environment imports; fails when it is not the pinned release."""
    probe = "import torch; print(torch.__version__)"
    version = subprocess.run([str(venv / "bin" / "python"), "-c", probe], capture_output=True, text=True,
                             check=True).stdout.strip()
    if version.split("+")[0] != TORCH:
        raise SystemExit(f"{venv} has torch {version}, not {TORCH}")
    return version


def install(venv: Path, dry_run: bool = False) -> None:
    """Create or update ``venv`` with every library of ``LIBRARIES`` and dynalint (print only, with ``dry_run``)."""
    venv = venv.expanduser()
    for command in commands(venv):
        print("$", " ".join(command), file=sys.stderr)
        if dry_run:
            continue
        if command[1:3] == ["-m", "venv"] and (venv / "bin" / "python").exists():
            continue  # an existing environment is updated in place
        venv.mkdir(parents=True, exist_ok=True)
        constraints_file(venv).write_text("\n".join(CONSTRAINTS) + "\n", encoding="utf-8")
        subprocess.run(command, check=True)
    if not dry_run:
        print(f"{venv}: torch {check(venv)}", file=sys.stderr)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--venv", type=Path, default=VENV, help=f"the environment (default {VENV})")
    parser.add_argument("--dry-run", action="store_true", help="print the commands, run nothing")
    options = parser.parse_args()
    install(options.venv, options.dry_run)


if __name__ == "__main__":
    main()
