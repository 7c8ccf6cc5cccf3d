"""Ground-truth bench, roma (RoMa): rotation representations, their conversions and metrics, rigid
transformations, and networks that regress rotations.

RoMa is a library of functions on batches of rotations (rotation vectors, unit quaternions in XYZW
order, rotation matrices, Euler angles) and of small transformation classes (``Linear``, ``Orthonormal``,
``Rotation``, ``RotationUnitQuat``, ``Affine``, ``Isometry``, ``Rigid``, ``RigidUnitQuat``) that users
build and call inside their models. So each model is a function compiled through ``gt_calls.Call`` (or a
small bench module when the function takes a convention string first, a sequence, or a transformation
object), on batches of 2 (some of 2 x 3, some unbatched):

- ``CALLS`` (mappings): ``rotvec_to_unitquat``, ``unitquat_to_rotvec`` (shortest arc or not),
  ``unitquat_to_rotmat``, ``rotmat_to_unitquat``, ``rotvec_to_rotmat`` (its small-angle threshold),
  ``rotmat_to_rotvec``, the quaternion convention swaps, ``sinc`` / ``inv_sinc``, ``procrustes`` and
  ``special_procrustes`` by each method (Horn's closed form on 3 x 3, the SVD, on 4 x 4), with the gradient
  regularization and the singular values, ``special_procrustes_unitquat``, the naive variants,
  ``special_gramschmidt``, ``symmatrix_to_projective_point`` and ``symmatrixvec_to_unitquat`` (Horn and
  ``eigh``);
- ``CALLS`` (utils): the orthonormality and rotation tests, the geodesic distances of each
  representation, quaternion conjugation, inverse, normalisation, product and action, the compositions
  and inverses of each representation, the spherical interpolations (shortest arc or not, one- and
  two-dimensional steps, the deprecated ``unitquat_slerp_fast``), and the rigid registrations of vectors
  and points (weights, scaling, 2-D and 4-D data, the unit-quaternion variants);
- ``RANDOM``: the random samplers (``random_unitquat``, ``random_rotmat``, ``random_rotvec`` with a
  generator, ``identity_quat``) as a data augmentation does, inside the forward;
- ``EULER``: Euler angles to and from each representation: extrinsic and intrinsic conventions, degrees,
  angles as a tensor or a list, a single axis, symmetric (proper Euler) conventions, ``as_tuple``;
- ``TRANSFORMS``: the transformation classes built in the forward and their methods: ``apply``,
  ``compose`` (``@``), ``inverse``, ``normalize``, ``to_homogeneous`` / ``from_homogeneous``, the
  conversions between ``Rigid`` and ``RigidUnitQuat``, slicing, ``squeeze``, ``clone``, ``identity`` /
  ``identity_like``;
- ``NETWORKS``: bench train steps as RoMa's README uses it for rotation regression: a small MLP whose
  output is mapped to a rotation (9-D special Procrustes, 6-D Gram-Schmidt, 10-D symmetric matrix,
  rotation vector, quaternion, Euler angles, a rigid pose of a quaternion and a translation) and a loss
  (a geodesic distance or a squared error) returned.

Every model runs in eager mode. Random data, random weights; nothing downloaded. ``names()`` needs no
torch; ``build(name)`` runs in a worker only.

Part of the harness run by ``python bench/groundtruth/groundtruth.py`` (see ``README.md``).
"""

from __future__ import annotations

from typing import Any

Built = tuple[Any, tuple[Any, ...], dict[str, Any]]
BATCH = 2

# Model name -> (function of ``roma``, inputs, fixed keywords). Inputs are comma-separated kinds of
# ``_input``: rotvec (2, 3), rotvec_batch (2, 3, 3), rotvec_single (3,), unitquat (2, 4), unitquat_b
# (a second batch), unitquat_batch (2, 3, 4), unitquat_row (1, 4), rotmat (2, 3, 3), rotmat_b, rotmat_batch
# (2, 2, 3, 3), mat3 (2, 3, 3) of no rotation, mat3_batch (2, 2, 3, 3), mat3_single (3, 3), mat3x2 (2, 3, 2),
# mat4 (2, 4, 4), sym4 (2, 4, 4) symmetric, vec10 (2, 10), vec3 (2, 3), x (8,) reals around 0, steps (5,),
# steps2d (2, 3), points3 / points3_b (2, 6, 3), points2 / points2_b (2, 6, 2), points4 / points4_b
# (2, 6, 4), weights (2, 6).
CALLS: dict[str, tuple[str, str, dict[str, Any]]] = {
    "rotvec_to_unitquat": ("rotvec_to_unitquat", "rotvec", {}),
    "rotvec_to_unitquat.batch": ("rotvec_to_unitquat", "rotvec_batch", {}),
    "rotvec_to_unitquat.single": ("rotvec_to_unitquat", "rotvec_single", {}),
    "unitquat_to_rotvec": ("unitquat_to_rotvec", "unitquat", {}),
    "unitquat_to_rotvec.long_arc": ("unitquat_to_rotvec", "unitquat_batch", {"shortest_arc": False}),
    "unitquat_to_rotmat": ("unitquat_to_rotmat", "unitquat_batch", {}),
    "rotmat_to_unitquat": ("rotmat_to_unitquat", "rotmat", {}),
    "rotmat_to_unitquat.batch": ("rotmat_to_unitquat", "rotmat_batch", {}),
    "rotvec_to_rotmat": ("rotvec_to_rotmat", "rotvec", {}),
    "rotvec_to_rotmat.epsilon": ("rotvec_to_rotmat", "rotvec_batch", {"epsilon": 0.5}),
    "rotvec_to_rotmat.single": ("rotvec_to_rotmat", "rotvec_single", {}),
    "rotmat_to_rotvec": ("rotmat_to_rotvec", "rotmat", {}),
    "quat_xyzw_to_wxyz": ("quat_xyzw_to_wxyz", "unitquat", {}),
    "quat_wxyz_to_xyzw": ("quat_wxyz_to_xyzw", "unitquat_batch", {}),
    "sinc": ("sinc", "x", {}),
    "inv_sinc.threshold": ("inv_sinc", "x", {"threshold": 0.1}),
    "special_procrustes": ("special_procrustes", "mat3", {}),
    "special_procrustes.svd": ("special_procrustes", "mat3", {"method": "svd"}),
    "special_procrustes.4d": ("special_procrustes", "mat4", {}),
    "special_procrustes.regularization": ("special_procrustes", "mat3", {"regularization": 0.1}),
    "special_procrustes.singular_values": ("special_procrustes", "mat3", {"return_singular_values": True}),
    "special_procrustes.single": ("special_procrustes", "mat3_single", {}),
    "procrustes": ("procrustes", "mat3", {}),
    "procrustes.horn": ("procrustes", "mat3_batch", {"force_rotation": True, "method": "horn"}),
    "procrustes.4d.regularization": ("procrustes", "mat4", {"regularization": 0.1, "gradient_eps": 1e-3}),
    "special_procrustes_unitquat": ("special_procrustes_unitquat", "mat3", {}),
    "special_procrustes_unitquat.batch": ("special_procrustes_unitquat", "mat3_batch", {}),
    "procrustes_naive": ("procrustes_naive", "mat3", {}),
    "procrustes_naive.force_rotation": ("procrustes_naive", "mat3",
                                        {"force_rotation": True, "return_singular_values": True}),
    "special_procrustes_naive": ("special_procrustes_naive", "mat4", {}),
    "special_gramschmidt": ("special_gramschmidt", "mat3x2", {}),
    "special_gramschmidt.epsilon": ("special_gramschmidt", "mat3", {"epsilon": 1e-6}),
    "symmatrix_to_projective_point": ("symmatrix_to_projective_point", "sym4", {}),
    "symmatrix_to_projective_point.eigh": ("symmatrix_to_projective_point", "sym4", {"method": "eigh"}),
    "symmatrixvec_to_unitquat": ("symmatrixvec_to_unitquat", "vec10", {}),
    "symmatrixvec_to_unitquat.eigh": ("symmatrixvec_to_unitquat", "vec10", {"method": "eigh"}),
    # utils
    "is_orthonormal_matrix": ("is_orthonormal_matrix", "rotmat", {"epsilon": 1e-5}),
    "is_rotation_matrix": ("is_rotation_matrix", "rotmat", {"epsilon": 1e-5}),
    "is_rotation_matrix.not_orthonormal": ("is_rotation_matrix", "mat3", {}),
    "rotmat_cosine_angle": ("rotmat_cosine_angle", "rotmat", {}),
    "rotmat_geodesic_distance": ("rotmat_geodesic_distance", "rotmat,rotmat_b", {}),
    "rotmat_geodesic_distance.clamping": ("rotmat_geodesic_distance", "rotmat,rotmat_b", {"clamping": 0.99}),
    "rotmat_geodesic_distance_naive": ("rotmat_geodesic_distance_naive", "rotmat,rotmat_b", {}),
    "unitquat_geodesic_distance": ("unitquat_geodesic_distance", "unitquat,unitquat_b", {}),
    "rotvec_geodesic_distance": ("rotvec_geodesic_distance", "rotvec_batch,rotvec_batch", {}),
    "quat_conjugation": ("quat_conjugation", "unitquat", {}),
    "quat_inverse": ("quat_inverse", "unitquat_batch", {}),
    "quat_normalize": ("quat_normalize", "unitquat_batch", {}),
    "quat_product": ("quat_product", "unitquat,unitquat_row", {}),
    "quat_action": ("quat_action", "unitquat,vec3", {}),
    "quat_action.normalized": ("quat_action", "unitquat,vec3", {"is_normalized": True}),
    "rotvec_inverse": ("rotvec_inverse", "rotvec", {}),
    "rotmat_inverse": ("rotmat_inverse", "rotmat", {}),
    "unitquat_slerp": ("unitquat_slerp", "unitquat,unitquat_b,steps", {}),
    "unitquat_slerp.long_arc": ("unitquat_slerp", "unitquat,unitquat_b,steps2d", {"shortest_arc": False}),
    "unitquat_slerp.nearby": ("unitquat_slerp", "unitquat,unitquat,steps", {}),
    "unitquat_slerp_fast": ("unitquat_slerp_fast", "unitquat,unitquat_b,steps", {}),
    "rotvec_slerp": ("rotvec_slerp", "rotvec,rotvec,steps", {}),
    "rotmat_slerp": ("rotmat_slerp", "rotmat,rotmat_b,steps2d", {}),
    "rigid_vectors_registration": ("rigid_vectors_registration", "points3,points3_b", {}),
    "rigid_vectors_registration.weights.scaling": ("rigid_vectors_registration", "points3,points3_b,weights",
                                                   {"compute_scaling": True}),
    "rigid_vectors_registration.2d": ("rigid_vectors_registration", "points2,points2_b", {}),
    "rigid_vectors_registration_unitquat": ("rigid_vectors_registration_unitquat", "points3,points3_b,weights",
                                            {"compute_scaling": True}),
    "rigid_points_registration": ("rigid_points_registration", "points3,points3_b", {}),
    "rigid_points_registration.weights.scaling": ("rigid_points_registration", "points3,points3_b,weights",
                                                  {"compute_scaling": True}),
    "rigid_points_registration.4d": ("rigid_points_registration", "points4,points4_b", {}),
    "rigid_points_registration_unitquat": ("rigid_points_registration_unitquat", "points3,points3_b", {}),
    "rigid_points_registration_unitquat.scaling": ("rigid_points_registration_unitquat",
                                                   "points3,points3_b,weights", {"compute_scaling": True}),
}
# Sequences: model name -> (function of ``roma``, kind of each of three elements, fixed keywords).
SEQUENCES: dict[str, tuple[str, str, dict[str, Any]]] = {
    "quat_composition": ("quat_composition", "unitquat", {}),
    "quat_composition.normalize": ("quat_composition", "unitquat_batch", {"normalize": True}),
    "rotvec_composition": ("rotvec_composition", "rotvec", {}),
    "rotvec_composition.normalize": ("rotvec_composition", "rotvec_batch", {"normalize": True}),
    "rotmat_composition": ("rotmat_composition", "rotmat", {}),
    "rotmat_composition.normalize": ("rotmat_composition", "rotmat_batch", {"normalize": True}),
}
RANDOM = ("random_rotmat.augment", "random_unitquat.augment", "random_rotvec.generator", "identity_quat.compose")
# Euler model name -> (function of ``roma``, convention, input kind, fixed keywords). The input kind "angles"
# is a (2, 3) tensor, "angles_list" the list of its three columns, "angle1" a (2, 1) tensor.
EULER: dict[str, tuple[str, str, str, dict[str, Any]]] = {
    "euler_to_unitquat.xyz": ("euler_to_unitquat", "xyz", "angles", {}),
    "euler_to_unitquat.XYZ.degrees": ("euler_to_unitquat", "XYZ", "angles", {"degrees": True}),
    "euler_to_unitquat.list": ("euler_to_unitquat", "zyx", "angles_list", {"normalize": False}),
    "euler_to_unitquat.single_axis": ("euler_to_unitquat", "z", "angle1", {}),
    "euler_to_rotvec.ZYX": ("euler_to_rotvec", "ZYX", "angles", {}),
    "euler_to_rotmat.xyz": ("euler_to_rotmat", "xyz", "angles", {}),
    "unitquat_to_euler.xyz": ("unitquat_to_euler", "xyz", "unitquat", {}),
    "unitquat_to_euler.ZXZ.degrees": ("unitquat_to_euler", "ZXZ", "unitquat_batch", {"degrees": True}),
    "unitquat_to_euler.zyx.as_tuple": ("unitquat_to_euler", "zyx", "unitquat", {"as_tuple": True}),
    "rotvec_to_euler.xyz": ("rotvec_to_euler", "xyz", "rotvec", {}),
    "rotmat_to_euler.XYZ": ("rotmat_to_euler", "XYZ", "rotmat", {}),
}
TRANSFORMS = ("Rigid.apply_compose_inverse", "Rigid.normalize", "Rigid.homogeneous", "Rigid.slicing",
              "RigidUnitQuat.apply_compose_inverse", "RigidUnitQuat.normalize", "RigidUnitQuat.homogeneous",
              "Rotation.methods", "RotationUnitQuat.methods", "Orthonormal.methods", "Linear.methods",
              "Affine.methods", "Isometry.identity")
# Network name -> the head's output size; each maps it to a rotation (see ``_network``).
NETWORKS: dict[str, int] = {
    "train_step.procrustes_9d": 9, "train_step.gramschmidt_6d": 6, "train_step.symmatrixvec_10d": 10,
    "train_step.rotvec": 3, "train_step.quaternion": 4, "train_step.euler": 3, "train_step.rigid_pose": 12,
}


def names() -> list[str]:
    return (list(CALLS) + list(SEQUENCES) + list(RANDOM) + [f"euler.{n}" for n in EULER]
            + [f"transforms.{n}" for n in TRANSFORMS] + list(NETWORKS))


def _input(kind: str) -> Any:
    import roma
    import torch

    seed = {"rotmat_b": 2, "unitquat_b": 2, "points3_b": 2, "points2_b": 2, "points4_b": 2}.get(kind, 1)
    gen = torch.Generator().manual_seed(seed)
    if kind.startswith("rotvec"):
        shape = {"rotvec": (BATCH,), "rotvec_batch": (BATCH, 3), "rotvec_single": ()}[kind]
        return roma.random_rotvec(shape, generator=gen)
    if kind.startswith("unitquat"):
        shape = {"unitquat": (BATCH,), "unitquat_b": (BATCH,), "unitquat_batch": (BATCH, 3), "unitquat_row": (1,)}[kind]
        return roma.random_unitquat(shape, generator=gen)
    if kind.startswith("rotmat"):
        return roma.random_rotmat((BATCH, 2) if kind == "rotmat_batch" else (BATCH,), generator=gen)
    if kind.startswith("points"):
        return torch.randn(BATCH, 6, int(kind[6]), generator=gen)
    if kind == "sym4":
        a = torch.randn(BATCH, 4, 4, generator=gen)
        return a + a.mT
    if kind == "x":
        return torch.linspace(-0.3, 3.0, 8)
    if kind == "steps":
        return torch.linspace(0.0, 1.0, 5)
    if kind == "steps2d":
        return torch.rand(2, 3, generator=gen)
    if kind == "weights":
        return torch.rand(BATCH, 6, generator=gen) + 0.1
    shapes = {"mat3": (BATCH, 3, 3), "mat3_batch": (BATCH, 2, 3, 3), "mat3_single": (3, 3), "mat3x2": (BATCH, 3, 2),
              "mat4": (BATCH, 4, 4), "vec10": (BATCH, 10), "vec3": (BATCH, 3), "angles": (BATCH, 3),
              "angle1": (BATCH, 1)}
    return torch.randn(*shapes[kind], generator=gen)


def _call(name: str) -> Built:
    import roma

    from gt_calls import Call

    function, inputs, keywords = CALLS[name]
    return Call(getattr(roma, function), **keywords), tuple(_input(k) for k in inputs.split(",")), {}


def _sequence(name: str) -> Built:
    import roma

    from gt_calls import Run

    function, kind, keywords = SEQUENCES[name]
    fn = getattr(roma, function)
    first = _input(kind)
    second = first.flip(0)
    third = first.roll(1, dims=-1) if kind.startswith("unitquat") else 0.5 * first.flip(0)

    def compose(owner: Any, a: Any, b: Any, c: Any) -> Any:
        return fn([a, b, c], **keywords)

    return Run(None, compose, [fn]), (first, second, third), {}


def _random(name: str) -> Built:
    import roma
    import torch

    from gt_calls import Run

    gen = torch.Generator().manual_seed(1)
    if name == "random_rotmat.augment":
        def augment(owner: Any, points: Any) -> Any:
            rotation = roma.random_rotmat(points.shape[0], dtype=points.dtype, device=points.device)
            return points @ rotation.mT
        return Run(None, augment, [roma.random_rotmat]), (torch.randn(BATCH, 6, 3, generator=gen),), {}
    if name == "random_unitquat.augment":
        def rotate(owner: Any, points: Any) -> Any:
            q = roma.random_unitquat(points.shape[:-1], dtype=points.dtype)
            return roma.quat_action(q, points, is_normalized=True)
        return Run(None, rotate, [roma.random_unitquat, roma.quat_action]), (torch.randn(BATCH, 6, 3, generator=gen),), {}
    if name == "random_rotvec.generator":
        sampler = torch.Generator().manual_seed(5)

        def perturb(owner: Any, rotvec: Any) -> Any:
            noise = roma.random_rotvec((rotvec.shape[0],), generator=sampler)
            return roma.rotvec_composition([rotvec, 0.1 * noise])
        return Run(None, perturb, [roma.random_rotvec, roma.rotvec_composition]), (_input("rotvec"),), {}

    def compose_identity(owner: Any, q: Any) -> Any:
        return roma.quat_product(roma.identity_quat(q.shape[0], dtype=q.dtype), q)
    return Run(None, compose_identity, [roma.identity_quat, roma.quat_product]), (_input("unitquat"),), {}


def _euler(name: str) -> Built:
    import roma
    from torch import nn

    function, convention, kind, keywords = EULER[name]
    fn = getattr(roma, function)

    class Euler(nn.Module):
        """``roma.<function>(convention, angles or rotation, **keywords)``; a list input is passed as a list."""

        def forward(self, *inputs: Any) -> Any:
            x = list(inputs) if kind == "angles_list" else inputs[0]
            return fn(convention, x, **keywords)

        def entry_points(self) -> list[Any]:
            return [fn]

    if kind == "angles_list":
        return Euler(), tuple(_input("angles").unbind(-1)), {}
    return Euler(), (_input(kind),), {}


def _transform(name: str) -> Built:
    import roma
    import torch

    from gt_calls import Run

    gen = torch.Generator().manual_seed(4)
    R1, R2 = _input("rotmat"), _input("rotmat_b")
    q1, q2 = _input("unitquat"), _input("unitquat_b")
    t1, t2 = torch.randn(BATCH, 3, generator=gen), torch.randn(BATCH, 3, generator=gen)
    v = torch.randn(BATCH, 3, generator=gen)
    cls_name, group = name.split(".")
    cls = getattr(roma, cls_name)

    def run_rigid(owner: Any, R1: Any, t1: Any, R2: Any, t2: Any, v: Any) -> Any:
        a, b = roma.Rigid(R1, t1), roma.Rigid(R2, t2)
        if group == "apply_compose_inverse":
            c = a @ b.inverse()
            return c.apply(v), a.compose(b).linear
        if group == "normalize":
            return roma.Rigid(R1 + 0.05 * R2, t1).normalize().linear
        if group == "homogeneous":
            h = a.to_homogeneous()
            back = roma.Rigid.from_homogeneous(h)
            quat = back.to_rigidunitquat()
            return h, quat.linear, quat.translation
        # slicing
        one = a[0]
        unsqueezed = roma.Rigid(R1[None], t1[None]).squeeze(0)
        identity = roma.Rigid.identity_like(a)
        linear, translation = a.clone().as_tuple()
        return one.apply(v[0]), unsqueezed.linear, identity.translation, linear, translation, len(a)

    def run_rigidunitquat(owner: Any, q1: Any, t1: Any, q2: Any, t2: Any, v: Any) -> Any:
        a, b = roma.RigidUnitQuat(q1, t1), roma.RigidUnitQuat(q2, t2)
        if group == "apply_compose_inverse":
            c = a @ b.inverse()
            return c.apply(v), a.compose(b).linear
        if group == "normalize":
            return roma.RigidUnitQuat(2.0 * q1, t1).normalize().linear
        h = a.to_homogeneous()
        back = roma.RigidUnitQuat.from_homogeneous(h)
        return h, back.to_rigid().linear, a[1].linear

    def run_linear(owner: Any, m1: Any, m2: Any, v: Any) -> Any:
        a, b = cls(m1), cls(m2)
        c = (a @ b.inverse()).normalize() if cls_name != "Linear" else a @ b.inverse()
        return c.apply(v), a.compose(b).linear, a[0].linear, a.clone().linear

    def run_affine(owner: Any, m1: Any, t1: Any, m2: Any, v: Any) -> Any:
        if cls_name == "Affine":
            a, b = roma.Affine(m1, t1), roma.Affine(m2, None)
            c = a @ b.inverse()
            return c.apply(v), c.to_homogeneous(), roma.Affine.from_homogeneous(c.to_homogeneous()).linear
        a = roma.Isometry(None, t1)
        identity = roma.Isometry.identity(3, batch_shape=(BATCH,))
        b = roma.Isometry(m1, t1)
        return (identity @ a @ b).apply(v), b.inverse().translation

    entries = [getattr(cls, m) for m in ("apply", "compose", "inverse", "normalize", "to_homogeneous",
                                         "from_homogeneous", "to_rigidunitquat", "to_rigid", "squeeze",
                                         "identity", "identity_like", "__getitem__", "clone", "as_tuple")
               if hasattr(cls, m)]
    if cls_name == "Rigid":
        return Run(None, run_rigid, entries), (R1, t1, R2, t2, v), {}
    if cls_name == "RigidUnitQuat":
        return Run(None, run_rigidunitquat, entries), (q1, t1, q2, t2, v), {}
    if cls_name == "RotationUnitQuat":
        return Run(None, run_linear, entries), (q1, q2, v), {}
    if cls_name in ("Rotation", "Orthonormal"):
        return Run(None, run_linear, entries), (R1, R2, v), {}
    if cls_name == "Linear":
        m1 = torch.randn(BATCH, 3, 3, generator=gen) + 3 * torch.eye(3)
        m2 = torch.randn(BATCH, 3, 3, generator=gen) + 3 * torch.eye(3)
        return Run(None, run_linear, entries), (m1, m2, v), {}
    m1 = torch.randn(BATCH, 3, 3, generator=gen) + 3 * torch.eye(3) if cls_name == "Affine" else R1
    return Run(None, run_affine, entries), (m1, t1, R2 + 3 * torch.eye(3), v), {}


def _network(name: str) -> Built:
    import roma
    import torch
    import torch.nn.functional as F
    from torch import nn

    out = NETWORKS[name]
    kind = name.removeprefix("train_step.")

    class RotationRegressor(nn.Module):
        """A small MLP from features to ``out`` numbers, mapped to a rotation (or a rigid pose) by RoMa, and a
        loss against the target rotation (and target points for the pose) returned."""

        def __init__(self) -> None:
            super().__init__()
            self.mlp = nn.Sequential(nn.Linear(16, 32), nn.ReLU(), nn.Linear(32, out))

        def forward(self, features: torch.Tensor, target: torch.Tensor, points: torch.Tensor) -> torch.Tensor:
            y = self.mlp(features)
            if kind == "procrustes_9d":
                R = roma.special_procrustes(y.reshape(-1, 3, 3))
                return roma.rotmat_geodesic_distance(R, target, clamping=0.99).mean()
            if kind == "gramschmidt_6d":
                R = roma.special_gramschmidt(y.reshape(-1, 3, 2))
                return F.mse_loss(R, target)
            if kind == "symmatrixvec_10d":
                q = roma.symmatrixvec_to_unitquat(y)
                return roma.unitquat_geodesic_distance(q, roma.rotmat_to_unitquat(target)).mean()
            if kind == "rotvec":
                return F.mse_loss(roma.rotvec_to_rotmat(y), target)
            if kind == "quaternion":
                q = roma.quat_normalize(y)
                return roma.rotmat_geodesic_distance_naive(roma.unitquat_to_rotmat(q), target).mean()
            if kind == "euler":
                return F.mse_loss(roma.euler_to_rotmat("xyz", y), target)
            # rigid_pose: a quaternion from a 3 x 3 matrix (Horn's method) and a translation
            q = roma.special_procrustes_unitquat(y[:, :9].reshape(-1, 3, 3))
            pose = roma.RigidUnitQuat(q, y[:, 9:])
            moved = pose[:, None].apply(points)
            expected = roma.Rigid(target, torch.zeros_like(y[:, 9:]))[:, None].apply(points)
            return F.mse_loss(moved, expected)

        def entry_points(self) -> list[Any]:
            return [{
                "procrustes_9d": roma.special_procrustes, "gramschmidt_6d": roma.special_gramschmidt,
                "symmatrixvec_10d": roma.symmatrixvec_to_unitquat, "rotvec": roma.rotvec_to_rotmat,
                "quaternion": roma.unitquat_to_rotmat, "euler": roma.euler_to_rotmat,
                "rigid_pose": roma.special_procrustes_unitquat,
            }[kind]]

    gen = torch.Generator().manual_seed(6)
    features = torch.randn(BATCH, 16, generator=gen)
    return RotationRegressor(), (features, _input("rotmat"), torch.randn(BATCH, 5, 3, generator=gen)), {}


def build(name: str) -> Built:
    import torch

    torch.manual_seed(0)
    if name in CALLS:
        return _call(name)
    if name in SEQUENCES:
        return _sequence(name)
    if name in RANDOM:
        return _random(name)
    if name.startswith("euler."):
        return _euler(name.removeprefix("euler."))
    if name.startswith("transforms."):
        return _transform(name.removeprefix("transforms."))
    return _network(name)
