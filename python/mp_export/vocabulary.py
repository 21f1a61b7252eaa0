"""The shared vocabulary and the dialects' enums, for the exporters.

Written by mp-tblgen -gen-vocabulary-python from the ODS (include/mp/IR/Vocabulary.td,
include/mp/Dialect/*/IR/*.td): do not edit (`cmake --build build --target
mp-update-generated` rewrites it). Each enum is an IntEnum whose members carry
the ODS symbol (`Role.OptState`), the integer an attribute holds (`int(...)`) and
the word the IR spells (`.spelling`, "opt_state"); `Role.parse("opt_state")` goes back.
"""

import enum


class _Vocabulary(enum.IntEnum):
    @property
    def spelling(self) -> str:
        return _SPELLINGS[type(self).__name__][self.value]

    @classmethod
    def parse(cls, text: str):
        spellings = _SPELLINGS[cls.__name__]
        if text not in spellings:
            raise ValueError("unknown %s '%s' (expected one of %s)"
                             % (cls.__name__, text, ", ".join(spellings)))
        return cls(spellings.index(text))

    @classmethod
    def spellings(cls) -> tuple:
        return _SPELLINGS[cls.__name__]


class ComparePredicate(_Vocabulary):
    """elementwise comparison (Train_ComparePredicate)."""

    eq = 0
    ne = 1
    lt = 2
    le = 3
    gt = 4
    ge = 5


class DecayShape(_Vocabulary):
    """how a learning rate decays after its warm-up (Train_DecayShape)."""

    constant = 0
    linear = 1
    cosine = 2
    step = 3
    exponential = 4


class FilterLayout(_Vocabulary):
    """convolution filter layout (Train_FilterLayout)."""

    OIHW = 0
    HWIO = 1


class GruGateOrder(_Vocabulary):
    """order of a GRU's three gate blocks (Train_GruGateOrder)."""

    rzn = 0
    zrn = 1


class Layout(_Vocabulary):
    """image tensor layout (Train_Layout)."""

    NCHW = 0
    NHWC = 1


class Layout1D(_Vocabulary):
    """sequence tensor layout (Train_Layout1D)."""

    NCL = 0
    NLC = 1


class PolicyKind(_Vocabulary):
    """precision policy (MP_PolicyKind)."""

    Float32 = 0
    MixedBFloat16 = 1
    MixedFloat16 = 2


class PrecisionCategory(_Vocabulary):
    """precision category of an op (MP_PrecisionCategory)."""

    Allow = 0
    Deny = 1
    Infer = 2
    Clear = 3


class ReduceDType(_Vocabulary):
    """element type a reduction sends between ranks (Train_ReduceDType)."""

    f32 = 0
    bf16 = 1


class Role(_Vocabulary):
    """role of a training step's value (Train_Role)."""

    Param = 0
    OptState = 1
    Buffer = 2
    ScalerState = 3
    Input = 4
    Label = 5
    Loss = 6
    Output = 7
    Check = 8


class ScalerTensor(_Vocabulary):
    """a tensor the loss scaler adds (MP_ScalerTensor)."""

    LossScale = 0
    GrowthCount = 1
    AllFinite = 2


class WarmupShape(_Vocabulary):
    """how a learning-rate warm-up rises (Train_WarmupShape)."""

    linear = 0
    cosine = 1


_SPELLINGS = {
    "ComparePredicate": ("eq", "ne", "lt", "le", "gt", "ge"),
    "DecayShape": ("constant", "linear", "cosine", "step", "exponential"),
    "FilterLayout": ("OIHW", "HWIO"),
    "GruGateOrder": ("rzn", "zrn"),
    "Layout": ("NCHW", "NHWC"),
    "Layout1D": ("NCL", "NLC"),
    "PolicyKind": ("float32", "mixed_bfloat16", "mixed_float16"),
    "PrecisionCategory": ("allow", "deny", "infer", "clear"),
    "ReduceDType": ("f32", "bf16"),
    "Role": ("param", "opt_state", "buffer", "scaler_state", "input", "label", "loss", "output", "check"),
    "ScalerTensor": ("loss_scale", "loss_scale.growth_count", "all_finite"),
    "WarmupShape": ("linear", "cosine"),
}
