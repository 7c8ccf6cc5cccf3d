"""Ground-truth bench, pytorch_kinematics (pytorch-kinematics): differentiable forward kinematics, Jacobians,
inverse kinematics and 3-D transforms for robot descriptions.

pytorch-kinematics parses a robot description (URDF, SDF, MJCF) into a ``Chain`` of frames (or a
``SerialChain`` from a root to an end link), precomputes its tree as tensors, and evaluates it batched:
``forward_kinematics`` (joint values as a tensor, a list or a dict of joint names, batched or not; a
``SerialChain`` returns the end frame only or every frame, and takes the values of its own joints only),
``forward_kinematics_tensor`` (with an analytical backward when the joints require grad, or plain autograd),
``jacobian`` / ``calc_jacobian`` (a tool offset as a tensor or a ``Transform3d``, the end-effector pose
returned or not) and ``jacobian_tensor``, ``clamp`` and ``ensure_tensor``; the inverse-kinematics solvers
``PseudoInverseIK`` (retries sampled uniformly, from a Gaussian or given, line search, early stopping,
joint-limit enforcement or clamping); and ``pytorch_kinematics.transforms``: the
``Transform3d`` class (built from a matrix, a position and a rotation as a matrix, quaternion or Euler angles;
``compose``, ``inverse``, ``stack``, ``transform_points`` / ``transform_normals`` / ``transform_shape_operator``,
``translate`` / ``scale`` / ``rotate`` / ``rotate_axis_angle``, indexing, ``clone``, ``to``) with its subclasses
``Translate``, ``Scale``, ``Rotate`` and ``RotateAxisAngle``, the rotation conversions, the SO(3) maps and the
quaternion math. The robots are written in the builder as strings: a 3-joint URDF arm (two revolute joints, one
prismatic, a fixed tool frame), a branching URDF hand (4 revolute joints on two fingers) and a 2-joint SDF arm.
MJCF is left out: it needs ``mujoco``, which the bench does not install. Left out because they fail eagerly:
``PseudoInverseIKWithSVD`` on a chain of fewer than 6 joints (a shape mismatch in its step) and
``transform_points(..., batch_to_batch=True)`` (its einsum expects other dimensions than it builds). The tables cover:

- ``FK``: ``forward_kinematics`` of the chains and serial chains in each input form (tensor batch, single
  configuration, list, dict, a serial chain of a tree taking its own joints only, as a tensor or a dict,
  a serial chain from a named root), ``end_only`` on and off, chosen frame indices, float64 chains,
  ``forward_kinematics_tensor`` with and without the analytical gradient, ``clamp`` and ``ensure_tensor``;
- ``JACOBIAN``: ``calc_jacobian`` and ``SerialChain.jacobian`` with each input form, a tool offset (a tensor,
  one per batch, or a ``Transform3d``), ``ret_eef_pose``, and ``jacobian_tensor``;
- ``TRANSFORMS``: ``Transform3d`` construction and methods and its subclasses, built in the forward;
- ``CONVERSIONS``: the functions of ``pytorch_kinematics.transforms`` on batches of 2, through ``gt_calls.Call``;
- ``IK``: ``PseudoInverseIK(...).solve`` with 2 to 3 iterations and 2 retries (the solutions returned), in
  each solver option;
- ``TRAIN``: training steps returning a loss: joint angles as parameters reaching a target pose (analytical
  gradient or autograd), a network predicting joint values from targets, a Jacobian-based manipulability term,
  and a step with ``backward()`` and an Adam step inside the forward.

Every model runs in eager mode. Random joint values and weights; nothing downloaded. ``names()`` needs no torch;
``build(name)`` runs in a worker only.

Part of the harness run by ``python bench/groundtruth/groundtruth.py`` (see ``README.md``).
"""

from __future__ import annotations

from typing import Any

Built = tuple[Any, tuple[Any, ...], dict[str, Any]]
BATCH = 2

ARM_URDF = """<robot name="arm">
  <link name="base"/>
  <link name="link1"/>
  <link name="link2"/>
  <link name="link3"/>
  <link name="tool"/>
  <joint name="j1" type="revolute">
    <parent link="base"/><child link="link1"/>
    <origin xyz="0 0 0.1" rpy="0 0 0"/><axis xyz="0 0 1"/>
    <limit lower="-2.0" upper="2.0" effort="10" velocity="1"/>
  </joint>
  <joint name="j2" type="revolute">
    <parent link="link1"/><child link="link2"/>
    <origin xyz="0 0 0.3" rpy="0 0.1 0"/><axis xyz="0 1 0"/>
    <limit lower="-1.5" upper="1.5" effort="10" velocity="1"/>
  </joint>
  <joint name="j3" type="prismatic">
    <parent link="link2"/><child link="link3"/>
    <origin xyz="0.2 0 0" rpy="0 0 0"/><axis xyz="1 0 0"/>
    <limit lower="0.0" upper="0.2" effort="10" velocity="1"/>
  </joint>
  <joint name="tool_joint" type="fixed">
    <parent link="link3"/><child link="tool"/>
    <origin xyz="0.05 0 0" rpy="0 0 0.2"/>
  </joint>
</robot>"""

HAND_URDF = """<robot name="hand">
  <link name="palm"/>
  <link name="a1"/>
  <link name="a2"/>
  <link name="b1"/>
  <link name="b2"/>
  <joint name="ja1" type="revolute">
    <parent link="palm"/><child link="a1"/>
    <origin xyz="0.05 0 0.1" rpy="0 0 0"/><axis xyz="0 1 0"/>
    <limit lower="-1.0" upper="1.0" effort="1" velocity="1"/>
  </joint>
  <joint name="ja2" type="revolute">
    <parent link="a1"/><child link="a2"/>
    <origin xyz="0 0 0.05" rpy="0 0 0"/><axis xyz="0 1 0"/>
    <limit lower="-1.0" upper="1.0" effort="1" velocity="1"/>
  </joint>
  <joint name="jb1" type="revolute">
    <parent link="palm"/><child link="b1"/>
    <origin xyz="-0.05 0 0.1" rpy="0 0 0"/><axis xyz="1 0 0"/>
    <limit lower="-1.0" upper="1.0" effort="1" velocity="1"/>
  </joint>
  <joint name="jb2" type="revolute">
    <parent link="b1"/><child link="b2"/>
    <origin xyz="0 0 0.05" rpy="0 0 0"/><axis xyz="1 0 0"/>
    <limit lower="-1.0" upper="1.0" effort="1" velocity="1"/>
  </joint>
</robot>"""

ARM_SDF = """<sdf version="1.6">
  <model name="arm2">
    <link name="base"><pose>0 0 0 0 0 0</pose>
      <inertial><mass>1</mass><inertia><ixx>0.01</ixx><ixy>0</ixy><ixz>0</ixz><iyy>0.01</iyy><iyz>0</iyz><izz>0.01</izz></inertia></inertial></link>
    <link name="upper"><pose>0 0 0.2 0 0 0</pose>
      <inertial><mass>1</mass><inertia><ixx>0.01</ixx><ixy>0</ixy><ixz>0</ixz><iyy>0.01</iyy><iyz>0</iyz><izz>0.01</izz></inertia></inertial></link>
    <link name="lower"><pose>0 0 0.5 0 0 0</pose>
      <inertial><mass>1</mass><inertia><ixx>0.01</ixx><ixy>0</ixy><ixz>0</ixz><iyy>0.01</iyy><iyz>0</iyz><izz>0.01</izz></inertia></inertial></link>
    <joint name="shoulder" type="revolute">
      <parent>base</parent><child>upper</child>
      <axis><xyz>0 1 0</xyz><limit><lower>-1.5</lower><upper>1.5</upper></limit></axis>
    </joint>
    <joint name="elbow" type="revolute">
      <parent>upper</parent><child>lower</child>
      <axis><xyz>1 0 0</xyz><limit><lower>-1.5</lower><upper>1.5</upper></limit></axis>
    </joint>
  </model>
</sdf>"""

# Model name -> (robot: "arm" (serial URDF), "arm_chain" (the arm as a Chain), "hand" (branching Chain),
# "finger" (the hand's serial chain to a2), "finger_root" (a serial chain from a1 to a2), "sdf" / "sdf_chain",
# input: "batch", "single", "list", "dict", "partial" (the serial joints only, of a tree), "partial_dict",
# options).
FK: dict[str, tuple[str, str, dict[str, Any]]] = {
    "fk.serial": ("arm", "batch", {}),
    "fk.serial.all_frames": ("arm", "batch", {"end_only": False}),
    "fk.serial.single": ("arm", "single", {}),
    "fk.serial.list": ("arm", "list", {}),
    "fk.serial.dict": ("arm", "dict", {}),
    "fk.serial.float64": ("arm", "batch", {"float64": True}),
    "fk.serial.requires_grad": ("arm", "batch", {"grad": True}),
    "fk.serial.partial": ("finger", "partial", {}),
    "fk.serial.partial.all_frames": ("finger", "partial", {"end_only": False}),
    "fk.serial.partial_dict": ("finger", "partial_dict", {}),
    "fk.serial.root_link": ("finger_root", "partial", {}),
    "fk.serial.sdf": ("sdf", "batch", {}),
    "fk.chain": ("arm_chain", "batch", {}),
    "fk.chain.frame_indices": ("arm_chain", "batch", {"frames": ("link2", "tool")}),
    "fk.chain.single": ("arm_chain", "single", {}),
    "fk.chain.dict": ("arm_chain", "dict", {}),
    "fk.chain.tree": ("hand", "batch", {}),
    "fk.chain.tree.list": ("hand", "list", {}),
    "fk.chain.tree.requires_grad": ("hand", "batch", {"grad": True}),
    "fk.chain.sdf": ("sdf_chain", "batch", {}),
    "fk_tensor": ("arm", "batch", {"tensor": True}),
    "fk_tensor.analytical_grad": ("hand", "batch", {"tensor": True, "grad": True}),
    "fk_tensor.autograd": ("arm", "batch", {"tensor": True, "grad": True, "analytical_grad": False}),
    "clamp": ("arm", "batch", {"clamp": True}),
    "clamp.dict": ("hand", "dict", {"clamp": True}),
    "ensure_tensor.dict": ("hand", "dict", {"ensure_tensor": True}),
}

# Model name -> (robot, input, options: tool ("tensor", "batch", "transform"), ret_eef_pose, calc (calc_jacobian),
# tensor (jacobian_tensor)).
JACOBIAN: dict[str, tuple[str, str, dict[str, Any]]] = {
    "calc_jacobian": ("arm", "batch", {"calc": True}),
    "calc_jacobian.tool": ("arm", "batch", {"calc": True, "tool": "tensor"}),
    "calc_jacobian.ret_eef_pose": ("arm", "batch", {"calc": True, "ret_eef_pose": True}),
    "jacobian": ("arm", "batch", {}),
    "jacobian.single": ("arm", "single", {}),
    "jacobian.list": ("arm", "list", {}),
    "jacobian.tool.batch": ("arm", "batch", {"tool": "batch"}),
    "jacobian.tool.transform3d": ("arm", "batch", {"tool": "transform"}),
    "jacobian.tool.ret_eef_pose": ("arm", "batch", {"tool": "tensor", "ret_eef_pose": True}),
    "jacobian.sdf": ("sdf", "batch", {}),
    "jacobian.finger": ("finger", "partial", {}),
    "jacobian_tensor": ("arm", "batch", {"tensor": True}),
    "jacobian_tensor.ret_eef_pose": ("finger", "partial", {"tensor": True, "ret_eef_pose": True}),
}

TRANSFORMS = (
    "Transform3d.matrix", "Transform3d.pos_rot_matrix", "Transform3d.pos_quaternion", "Transform3d.euler",
    "Transform3d.default_batch", "compose", "compose.many", "inverse", "inverse.invert_composed", "stack",
    "transform_points", "transform_points.eps", "transform_normals",
    "transform_shape_operator", "translate.scale.rotate", "rotate_axis_angle", "Translate", "Scale.uniform",
    "Rotate", "RotateAxisAngle.radians", "getitem", "clone.to_float64", "sample_perturbations",
)

# Model name -> (function of pytorch_kinematics.transforms (or of its rotation_conversions / so3 modules),
# inputs, fixed keywords). Kinds: quat (2, 4) unit wxyz, quat_b, rotmat (2, 3, 3), rotmat_b, euler (2, 3), axis_angle
# (2, 3), d6 (2, 6), mat44 (2, 4, 4), se3 (2, 9), points (2, 3), pos (2, 3), axis (2, 3) unit, angle (2,), scalar_t,
# cos (8,) values in [-1, 1].
CONVERSIONS: dict[str, tuple[str, str, dict[str, Any]]] = {
    "quaternion_to_matrix": ("quaternion_to_matrix", "quat", {}),
    "matrix_to_quaternion": ("matrix_to_quaternion", "rotmat", {}),
    "euler_angles_to_matrix": ("euler_angles_to_matrix", "euler", {"convention": "XYZ"}),
    "euler_angles_to_matrix.ZYX": ("euler_angles_to_matrix", "euler", {"convention": "ZYX"}),
    "matrix_to_euler_angles": ("matrix_to_euler_angles", "rotmat", {"convention": "XYZ"}),
    "matrix_to_euler_angles.ZYZ": ("matrix_to_euler_angles", "rotmat", {"convention": "ZYZ"}),
    "axis_angle_to_quaternion": ("axis_angle_to_quaternion", "axis_angle", {}),
    "quaternion_to_axis_angle": ("quaternion_to_axis_angle", "quat", {}),
    "matrix_to_axis_angle": ("matrix_to_axis_angle", "rotmat", {}),
    "axis_angle_to_matrix": ("rotation_conversions.axis_angle_to_matrix", "axis_angle", {}),
    "rotation_6d_to_matrix": ("rotation_6d_to_matrix", "d6", {}),
    "matrix_to_rotation_6d": ("matrix_to_rotation_6d", "rotmat", {}),
    "quaternion_multiply": ("quaternion_multiply", "quat,quat_b", {}),
    "quaternion_raw_multiply": ("quaternion_raw_multiply", "quat,quat_b", {}),
    "quaternion_invert": ("quaternion_invert", "quat", {}),
    "quaternion_apply": ("quaternion_apply", "quat,points", {}),
    "standardize_quaternion": ("standardize_quaternion", "quat", {}),
    "wxyz_to_xyzw": ("wxyz_to_xyzw", "quat", {}),
    "xyzw_to_wxyz": ("xyzw_to_wxyz", "quat", {}),
    "quaternion_from_euler": ("quaternion_from_euler", "euler", {}),
    "quaternion_from_euler.rzyx": ("quaternion_from_euler", "euler", {"axes": "rzyx"}),
    "pos_rot_to_matrix": ("pos_rot_to_matrix", "pos,quat", {}),
    "matrix_to_pos_rot": ("matrix_to_pos_rot", "mat44", {}),
    "matrix44_to_se3_9d": ("matrix44_to_se3_9d", "mat44", {}),
    "se3_9d_to_matrix44": ("se3_9d_to_matrix44", "se3", {}),
    "axis_and_angle_to_matrix_33": ("axis_and_angle_to_matrix_33", "axis,angle", {}),
    "axis_and_d_to_pris_matrix": ("axis_and_d_to_pris_matrix", "axis,angle", {}),
    "so3_exp_map": ("so3_exp_map", "axis_angle", {}),
    "so3_log_map": ("so3_log_map", "rotmat", {}),
    "so3_relative_angle": ("so3_relative_angle", "rotmat,rotmat_b", {}),
    "so3_relative_angle.cos": ("so3_relative_angle", "rotmat,rotmat_b", {"cos_angle": True}),
    "so3_rotation_angle": ("so3_rotation_angle", "rotmat", {}),
    "quaternion_angular_distance": ("quaternion_angular_distance", "quat,quat_b", {}),
    "quaternion_close": ("quaternion_close", "quat,quat_b", {}),
    "quaternion_slerp": ("quaternion_slerp", "quat,quat_b,scalar_t", {}),
    "acos_linear_extrapolation": ("acos_linear_extrapolation", "cos", {}),
    "random_quaternions": ("random_quaternions", "", {"n": 3}),
    "random_rotations": ("random_rotations", "", {"n": 3}),
}

# Model name -> PseudoInverseIK keywords (besides 2 retries, few iterations and few limit refinements).
IK: dict[str, dict[str, Any]] = {
    "ik.PseudoInverseIK": {},
    "ik.PseudoInverseIK.line_search": {"line_search": True},
    "ik.PseudoInverseIK.gaussian": {"config_sampling_method": "gaussian"},
    "ik.PseudoInverseIK.retry_configs": {"retry_configs": True},
    "ik.PseudoInverseIK.early_stopping": {"early_stopping_any_converged": True, "early_stopping_no_improvement": "all"},
    "ik.PseudoInverseIK.no_improvement_ratio": {"early_stopping_no_improvement": 0.5},
    "ik.PseudoInverseIK.no_limits.clamp": {"enforce_joint_limits": False, "clamp_to_limits": True,
                                           "early_stopping_no_improvement": None},
    "ik.PseudoInverseIK.weights": {"position_weight": 2.0, "orientation_weight": 0.5, "lm_damping": 0.0},
}

TRAIN = ("train.joint_params", "train.joint_params.autograd", "train.policy_net", "train.manipulability",
         "train.step.adam")


def names() -> list[str]:
    return list(FK) + list(JACOBIAN) + list(TRANSFORMS) + list(CONVERSIONS) + list(IK) + list(TRAIN)


def _robot(kind: str) -> Any:
    import pytorch_kinematics as pk

    if kind == "arm":
        return pk.build_serial_chain_from_urdf(ARM_URDF, "tool")
    if kind == "arm_chain":
        return pk.build_chain_from_urdf(ARM_URDF)
    if kind == "hand":
        return pk.build_chain_from_urdf(HAND_URDF)
    if kind == "finger":
        return pk.SerialChain(pk.build_chain_from_urdf(HAND_URDF), "a2")
    if kind == "finger_root":
        return pk.SerialChain(pk.build_chain_from_urdf(HAND_URDF), "a2", "a1")
    if kind == "sdf":
        return pk.build_serial_chain_from_sdf(ARM_SDF, "lower")
    return pk.build_chain_from_sdf(ARM_SDF)


def _joints(chain: Any, kind: str, gen: Any) -> Any:
    """Joint values in the form ``kind`` names, with the chain's own count of joints."""
    import torch

    if kind.startswith("partial"):
        names_ = [f.joint.name for f in chain._serial_frames if f.joint.joint_type != "fixed"]
    else:
        names_ = chain.get_joint_parameter_names()
    n = len(names_)
    th = torch.rand(BATCH, n, generator=gen, dtype=chain.dtype) * 0.5
    if kind == "single":
        return th[0]
    if kind == "list":
        return [0.1 * (i + 1) for i in range(n)]
    if kind in ("dict", "partial_dict"):
        return {name: th[:, i] for i, name in enumerate(names_)}
    return th


def _matrices(out: Any) -> Any:
    """A tensor from what forward_kinematics returns (a Transform3d or a dict of them)."""
    import torch

    if isinstance(out, dict):
        return torch.stack([t.get_matrix() for t in out.values()])
    return out.get_matrix()


def _fk(name: str) -> Built:
    import torch
    from torch import nn

    robot, kind, opts = FK[name]
    chain = _robot(robot)
    if opts.get("float64"):
        chain = chain.to(dtype=torch.float64)
    gen = torch.Generator().manual_seed(1)
    th = _joints(chain, kind, gen)
    class Kinematics(nn.Module):
        """A chain's forward kinematics (or clamp / ensure_tensor) on the given joint values; a learnable
        offset makes the joints require grad in train mode (``grad``)."""

        def __init__(self) -> None:
            super().__init__()
            self.offset = nn.Parameter(torch.zeros((), dtype=chain.dtype), requires_grad=bool(opts.get("grad")))

        def forward(self, th: Any) -> Any:
            if torch.is_tensor(th) and opts.get("grad"):
                th = th + self.offset
            if opts.get("clamp"):
                return chain.clamp(th)
            if opts.get("ensure_tensor"):
                return chain.ensure_tensor(th)
            if opts.get("tensor"):
                return chain.forward_kinematics_tensor(th, analytical_grad=opts.get("analytical_grad", True))
            if "frames" in opts:
                return _matrices(chain.forward_kinematics(th, chain.get_frame_indices(
                    *opts["frames"])))
            if "end_only" in opts:
                return _matrices(chain.forward_kinematics(th, end_only=opts["end_only"]))
            return _matrices(chain.forward_kinematics(th))

        def entry_points(self) -> list[Any]:
            if opts.get("clamp"):
                return [type(chain).clamp]
            if opts.get("ensure_tensor"):
                return [type(chain).ensure_tensor]
            if opts.get("tensor"):
                return [type(chain).forward_kinematics_tensor]
            return [type(chain).forward_kinematics]

    return Kinematics(), (th,), {}


def _jacobian(name: str) -> Built:
    import pytorch_kinematics as pk
    import torch
    from pytorch_kinematics.jacobian import calc_jacobian
    from torch import nn

    robot, kind, opts = JACOBIAN[name]
    chain = _robot(robot)
    gen = torch.Generator().manual_seed(1)
    th = _joints(chain, kind, gen)
    tool_kind = opts.get("tool")
    if tool_kind == "tensor":
        tool: Any = torch.tensor([0.0, 0.0, 0.05])
    elif tool_kind == "batch":
        tool = torch.rand(BATCH, 3, generator=gen) * 0.1
    elif tool_kind == "transform":
        tool = pk.Transform3d(pos=[0.0, 0.02, 0.05])
    else:
        tool = None
    ret = bool(opts.get("ret_eef_pose"))

    class Jacobian(nn.Module):
        """A serial chain's geometric Jacobian (``calc_jacobian``, ``jacobian`` or ``jacobian_tensor``)."""

        def __init__(self) -> None:
            super().__init__()
            self.tool = tool

        def forward(self, th: Any) -> Any:
            if opts.get("tensor"):
                return chain.jacobian_tensor(th, ret_eef_pose=ret)
            if opts.get("calc"):
                return calc_jacobian(chain, th, tool=self.tool, ret_eef_pose=ret)
            return chain.jacobian(th, locations=self.tool, ret_eef_pose=ret)

        def entry_points(self) -> list[Any]:
            if opts.get("tensor"):
                return [pk.SerialChain.jacobian_tensor]
            if opts.get("calc"):
                return [calc_jacobian]
            return [pk.SerialChain.jacobian]

    return Jacobian(), (th,), {}


def _input(kind: str, gen: Any) -> Any:
    import math

    import torch
    from pytorch_kinematics import transforms as tf

    if kind in ("quat", "quat_b"):
        q = torch.randn(BATCH, 4, generator=gen)
        return q / q.norm(dim=-1, keepdim=True)
    if kind in ("rotmat", "rotmat_b"):
        q = torch.randn(BATCH, 4, generator=gen)
        return tf.quaternion_to_matrix(q / q.norm(dim=-1, keepdim=True))
    if kind in ("euler", "axis_angle", "points", "pos"):
        return torch.rand(BATCH, 3, generator=gen) - 0.5
    if kind == "axis":
        a = torch.randn(BATCH, 3, generator=gen)
        return a / a.norm(dim=-1, keepdim=True)
    if kind == "angle":
        return torch.rand(BATCH, generator=gen) * math.pi
    if kind == "d6":
        return torch.randn(BATCH, 6, generator=gen)
    if kind == "mat44":
        q = torch.randn(BATCH, 4, generator=gen)
        return tf.Transform3d(pos=torch.rand(BATCH, 3, generator=gen), rot=q / q.norm(dim=-1, keepdim=True)).get_matrix()
    if kind == "se3":
        return torch.randn(BATCH, 9, generator=gen)
    if kind == "scalar_t":
        return torch.tensor(0.3)
    return torch.linspace(-1.0, 1.0, 8)


def _conversion(name: str) -> Built:
    import importlib

    import torch
    from gt_calls import Call

    function, kinds, static = CONVERSIONS[name]
    module = "pytorch_kinematics.transforms"
    if "." in function:
        sub, function = function.split(".")
        module = f"{module}.{sub}"
    gen = torch.Generator().manual_seed(1)
    args = tuple(_input(k, gen) for k in kinds.split(",") if k)
    return Call(getattr(importlib.import_module(module), function), **static), args, {}


def _transform(name: str) -> Built:
    import math

    import pytorch_kinematics as pk
    import torch
    from pytorch_kinematics import transforms as tf
    from torch import nn

    gen = torch.Generator().manual_seed(1)
    q = torch.randn(BATCH, 4, generator=gen)
    quat = q / q.norm(dim=-1, keepdim=True)
    pos = torch.rand(BATCH, 3, generator=gen)
    points = torch.rand(BATCH, 5, 3, generator=gen)

    class Transform(nn.Module):
        """``Transform3d`` objects built in the forward from the inputs, and one of their methods."""

        def forward(self, quat: torch.Tensor, pos: torch.Tensor, points: torch.Tensor) -> Any:
            rot = tf.quaternion_to_matrix(quat)
            t = tf.Transform3d(pos=pos, rot=quat)
            u = tf.Transform3d(pos=pos.flip(0), rot=rot.transpose(-1, -2))
            if name == "Transform3d.matrix":
                m = t.get_matrix()
                return tf.Transform3d(matrix=m).get_matrix()
            if name == "Transform3d.pos_rot_matrix":
                return tf.Transform3d(pos=pos, rot=rot).get_matrix()
            if name == "Transform3d.pos_quaternion":
                return t.get_matrix()
            if name == "Transform3d.euler":
                return tf.Transform3d(rot=pos, pos=pos).get_matrix()
            if name == "Transform3d.default_batch":
                return tf.Transform3d(default_batch_size=BATCH).transform_points(points[0])
            if name == "compose":
                return t.compose(u).get_matrix()
            if name == "compose.many":
                return t.compose(u, tf.Translate(pos), tf.Rotate(rot)).transform_points(points)
            if name == "inverse":
                return t.inverse().get_matrix()
            if name == "inverse.invert_composed":
                return t.compose(u).inverse(invert_composed=True).get_matrix()
            if name == "stack":
                return t.stack(u).get_matrix()
            if name == "transform_points":
                return t.transform_points(points[0])
            if name == "transform_points.eps":
                return t.transform_points(points, eps=1e-6)
            if name == "transform_normals":
                return t.transform_normals(points)
            if name == "transform_shape_operator":
                ops = points.transpose(-1, -2) @ points
                return t.transform_shape_operator(ops[:, None].expand(BATCH, 1, 3, 3).reshape(BATCH, 3, 3))
            if name == "translate.scale.rotate":
                return t.translate(pos).scale(2.0).rotate(rot).transform_points(points)
            if name == "rotate_axis_angle":
                return t.rotate_axis_angle(30.0, axis="Y").get_matrix()
            if name == "Translate":
                return tf.Translate(pos[:, 0], pos[:, 1], pos[:, 2]).inverse().get_matrix()
            if name == "Scale.uniform":
                return tf.Scale(pos[:, 0] + 1.0).inverse().transform_points(points)
            if name == "Rotate":
                return tf.Rotate(rot).inverse().transform_points(points)
            if name == "RotateAxisAngle.radians":
                return tf.RotateAxisAngle(pos[:, 0] * math.pi, axis="Z", degrees=False).get_matrix()
            if name == "getitem":
                return t.compose(u)[0].get_matrix()
            if name == "clone.to_float64":
                return t.clone().to(device=pos.device, dtype=torch.float64).get_matrix()
            return t[0].sample_perturbations(3, 0.1, 0.01).get_matrix()

        def entry_points(self) -> list[Any]:
            return [pk.Transform3d]

    return Transform(), (quat, pos, points), {}


def _ik(name: str) -> Built:
    import pytorch_kinematics as pk
    import torch
    from torch import nn

    opts = dict(IK[name])
    chain = _robot("arm")
    gen = torch.Generator().manual_seed(1)
    low, high = chain.get_joint_limits()
    limits = torch.tensor([low, high]).T
    cls = pk.PseudoInverseIK
    if opts.pop("line_search", False):
        opts["line_search"] = pk.BacktrackingLineSearch(max_lr=0.5, max_iterations=2)
    if opts.pop("retry_configs", False):
        opts["retry_configs"] = torch.tensor([[0.3, -0.4, 0.05], [-0.6, 0.5, 0.1]])
    else:
        opts["num_retries"] = 2
    torch.manual_seed(0)
    solver = cls(chain, joint_limits=limits, max_iterations=3, num_limit_refinement_iterations=2, **opts)
    goal = chain.forward_kinematics(torch.rand(BATCH, 3, generator=gen) * 0.5)
    matrix = goal.get_matrix()

    class Solve(nn.Module):
        """``solve`` of an IK solver on target poses given as matrices; the solutions and errors returned."""

        def forward(self, target: torch.Tensor) -> Any:
            sol = solver.solve(pk.Transform3d(matrix=target))
            return sol.solutions, sol.err_pos, sol.converged_any

        def entry_points(self) -> list[Any]:
            return [cls.solve]

    return Solve(), (matrix,), {}


def _train(name: str) -> Built:
    import pytorch_kinematics as pk
    import torch
    import torch.nn.functional as F
    from torch import nn

    gen = torch.Generator().manual_seed(1)
    chain = _robot("arm")
    target = chain.forward_kinematics(torch.rand(BATCH, 3, generator=gen) * 0.5).get_matrix()

    class Step(nn.Module):
        """A training step through the kinematics: the loss is returned (and stepped for ``train.step.adam``)."""

        def __init__(self) -> None:
            super().__init__()
            self.q = nn.Parameter(torch.rand(BATCH, 3, generator=gen) * 0.3)
            self.net = nn.Sequential(nn.Linear(7, 16), nn.Tanh(), nn.Linear(16, 3))
            self.optimizer = torch.optim.Adam([self.q], lr=1e-2)

        def pose_loss(self, m: torch.Tensor, target: torch.Tensor) -> torch.Tensor:
            pos = F.mse_loss(m[:, :3, 3], target[:, :3, 3])
            quat = pk.matrix_to_quaternion(m[:, :3, :3])
            goal = pk.matrix_to_quaternion(target[:, :3, :3])
            return pos + pk.quaternion_angular_distance(quat, goal).mean()

        def forward(self, target: torch.Tensor) -> torch.Tensor:
            if name == "train.joint_params":
                return self.pose_loss(chain.forward_kinematics(self.q).get_matrix(), target)
            if name == "train.joint_params.autograd":
                frames = chain.forward_kinematics_tensor(self.q, analytical_grad=False)
                return self.pose_loss(frames[chain._serial_eef_frame_idx], target)
            if name == "train.policy_net":
                features = torch.cat([target[:, :3, 3], pk.matrix_to_quaternion(target[:, :3, :3])], dim=-1)
                q = self.net(features)
                return self.pose_loss(chain.forward_kinematics(q).get_matrix(), target)
            if name == "train.manipulability":
                J, m = chain.jacobian(self.q, ret_eef_pose=True)
                manip = torch.linalg.det(J[:, :3] @ J[:, :3].transpose(-1, -2) + 1e-4 * torch.eye(3))
                return self.pose_loss(m, target) - 0.01 * manip.mean()
            self.optimizer.zero_grad()
            with torch.enable_grad():
                loss = self.pose_loss(chain.forward_kinematics(self.q).get_matrix(), target)
                loss.backward()
            self.optimizer.step()
            return loss.detach()

        def entry_points(self) -> list[Any]:
            if name == "train.joint_params.autograd":
                return [pk.SerialChain.forward_kinematics_tensor]
            if name == "train.manipulability":
                return [pk.SerialChain.jacobian]
            return [pk.SerialChain.forward_kinematics]

    return Step(), (target,), {}


def build(name: str) -> Built:
    import warnings

    import torch

    warnings.filterwarnings("ignore")
    torch.manual_seed(0)
    if name in FK:
        return _fk(name)
    if name in JACOBIAN:
        return _jacobian(name)
    if name in CONVERSIONS:
        return _conversion(name)
    if name in IK:
        return _ik(name)
    if name in TRAIN:
        return _train(name)
    return _transform(name)
