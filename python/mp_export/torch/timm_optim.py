"""timm's own optimizers (timm.optim) as the step's elementwise ops on
train.gradient markers, timm's formulas, where its recipes use them:
RMSpropTF (EfficientNet, MobileNet) and Lamb (ResNet strikes back)."""
import math

from ..vocabulary import ComparePredicate
from ..common import OPT_STATE, PARAM
from ..common import Attr, ExportError

_GT = Attr("%d : i64" % ComparePredicate.gt)


def _check_keys(group, keys, kind, where):
    """The param group holds every hyper-parameter this timm's formula reads
    (another timm version may name or mean them otherwise)."""
    missing = [k for k in keys if k not in group]
    if missing:
        raise ExportError("timm", kind, where, "a param group without %s (a timm version "
                          "whose %s the exporter does not know)" % (", ".join(missing), kind),
                          "Use timm 1.0's %s." % kind)


def rmsprop_tf(builder, group, name, where, p, grad, rate, op, const):
    """timm's RMSpropTF (TensorFlow's RMSprop, timm's EfficientNet recipe):
    square_avg starts at 1 (the export's initial state holds the ones),
    v += (1 - alpha) (g^2 - v); avg = sqrt(v + eps) (centered: sqrt(v - a^2
    + eps), a += (1 - alpha) (g - a)); with momentum the buffer takes
    lr g / avg (lr_in_momentum, the default) or g / avg; weight decay is
    added to g, or decoupled (p *= 1 - lr wd). `grad` is the gradient's
    train.gradient marker, `rate` the lr spread to p's shape
    (training._elementwise_update makes both)."""
    kind = "RMSpropTF"
    shape, elem = p.shape, p.elem
    _check_keys(group, ("alpha", "eps", "weight_decay", "momentum", "centered",
                        "decoupled_decay", "lr_in_momentum"), kind, where)
    if group.get("caution") or group.get("corrected_weight_decay"):
        raise ExportError("timm", kind, where, "caution or corrected_weight_decay",
                          "Use RMSpropTF(caution=False, corrected_weight_decay=False).")
    wd, base = float(group["weight_decay"]), p
    if wd and group["decoupled_decay"]:
        base = op("mul", p, op("sub", const(1.0), op("mul", rate, const(wd))))
    elif wd:
        grad = op("add", grad, op("mul", const(wd), p))
    keep = const(1.0 - float(group["alpha"]))
    sq = builder.arg(shape, elem, OPT_STATE, name + ".square_avg")
    builder.state_fill = getattr(builder, "state_fill", {})
    builder.state_fill[name + ".square_avg"] = (tuple(shape), 1.0)
    new_sq = op("add", sq, op("mul", keep, op("sub", op("mul", grad, grad), sq)))
    out = [(new_sq, OPT_STATE, name + ".square_avg")]
    variance = new_sq
    if group["centered"]:
        avg = builder.arg(shape, elem, OPT_STATE, name + ".grad_avg")
        new_avg = op("add", avg, op("mul", keep, op("sub", grad, avg)))
        variance = op("sub", new_sq, op("mul", new_avg, new_avg))
        out.append((new_avg, OPT_STATE, name + ".grad_avg"))
    denom = op("sqrt", op("add", variance, const(group["eps"])))
    step = op("div", grad, denom)
    momentum = float(group["momentum"])
    if momentum > 0:
        buf = builder.arg(shape, elem, OPT_STATE, name + ".momentum_buffer")
        in_momentum = bool(group["lr_in_momentum"])
        new_buf = op("add", op("mul", const(momentum), buf),
                     op("mul", rate, step) if in_momentum else step)
        out.append((new_buf, OPT_STATE, name + ".momentum_buffer"))
        new_p = op("sub", base, new_buf if in_momentum else op("mul", rate, new_buf))
    else:
        new_p = op("sub", base, op("mul", rate, step))
    return [(new_p, PARAM, name)] + out


class Lamb:
    """timm's Lamb: the gradients divided by max(global norm / max_grad_norm,
    1) (its own clipping, over every gradient of the step), Adam's moments
    (beta3 = 1 - beta1 with grad_averaging, else 1) with bias correction,
    update = m_hat / (sqrt(v_hat) + eps) (+ wd p, or p decayed by lr wd
    first when decoupled), scaled by the trust ratio |p| / |update| (1
    where either is 0; at most 1 with trust_clip) where weight decay is on
    or always_adapt, p -= lr update."""

    def __init__(self, builder, optimizer, grads):
        self.b = builder
        d = optimizer.defaults
        if any(g.get("caution") or g.get("corrected_weight_decay")
               for g in optimizer.param_groups):
            raise ExportError("timm", "Lamb", "the optimizer",
                              "caution or corrected_weight_decay",
                              "Use Lamb(caution=False, corrected_weight_decay=False).")
        self.markers = {}
        marked = [builder.op("train.gradient", [g], [(g.shape, g.elem)],
                             comment="Lamb: elementwise ops") for g in grads]
        for g, m in zip(grads, marked):
            self.markers[g.name] = m
        self.scale = None
        if d.get("max_grad_norm") is not None:
            total = None
            for m in marked:
                part = self.reduce_all(self.b.op("train.mul", [m, m], [(m.shape, m.elem)]))
                total = part if total is None else self.scalar("add", total, part)
            norm = self.scalar("sqrt", total)
            ratio = self.scalar("div", norm, self.fill(float(d["max_grad_norm"])))
            self.scale = self.scalar("maximum", ratio, self.fill(1.0))

    def fill(self, value, shape=()):
        return self.b.op("train.fill", [], [(shape, "f32")], {"value": float(value)})

    def scalar(self, name, *operands):
        return self.b.op("train." + name, list(operands), [((), "f32")])

    def reduce_all(self, x):
        return self.b.op("train.reduce_sum", [x], [((), "f32")],
                         {"dims": list(range(len(x.shape)))})

    def norm(self, x):
        return self.scalar("sqrt", self.reduce_all(self.b.op("train.mul", [x, x],
                                                             [(x.shape, x.elem)])))

    def update(self, group, name, where, p, g, lr):
        b, shape, elem = self.b, p.shape, p.elem

        def op(name_, *operands):
            return b.op("train." + name_, list(operands), [(shape, elem)])

        def spread(value):
            return b.op("train.broadcast", [value], [(shape, elem)], {"dims": []})

        def const(value):
            return self.fill(value, shape)

        _check_keys(group, ("betas", "eps", "weight_decay", "grad_averaging",
                            "bias_correction", "always_adapt", "trust_clip"), "Lamb", where)
        beta1, beta2 = (float(x) for x in group["betas"])
        beta3 = 1 - beta1 if group["grad_averaging"] else 1.0
        rate = self.fill(group["lr"]) if lr is None else lr
        grad = self.markers[g.name]
        if self.scale is not None:
            grad = op("div", grad, spread(self.scale))
        m = b.arg(shape, elem, OPT_STATE, name + ".exp_avg")
        v = b.arg(shape, elem, OPT_STATE, name + ".exp_avg_sq")
        step = b.arg((), "f32", OPT_STATE, name + ".step")
        t = self.scalar("add", step, self.fill(1.0))
        new_m = op("add", op("mul", const(beta1), m), op("mul", const(beta3), grad))
        new_v = op("add", op("mul", const(beta2), v),
                   op("mul", const(1 - beta2), op("mul", grad, grad)))
        if group["bias_correction"]:
            # 1 - beta^t as 1 - exp(t ln beta): t is the step's own counter.
            def correction(beta):
                return self.scalar("sub", self.fill(1.0), self.scalar(
                    "exp", self.scalar("mul", t, self.fill(math.log(beta)))))
            bc1, bc2 = correction(beta1), correction(beta2)
            root2 = self.scalar("sqrt", bc2)
        else:
            bc1 = root2 = self.fill(1.0)
        denom = op("add", op("div", op("sqrt", new_v), spread(root2)), const(group["eps"]))
        upd = op("div", op("div", new_m, spread(bc1)), denom)
        wd, base = float(group["weight_decay"]), p
        if wd and group.get("decoupled_decay", False):
            base = op("sub", p, op("mul", spread(self.scalar("mul", rate, self.fill(wd))), p))
        elif wd:
            upd = op("add", upd, op("mul", const(wd), p))
        if wd or group["always_adapt"]:
            w_norm, u_norm = self.norm(base), self.norm(upd)
            zero = self.fill(0.0)

            def positive(x):
                return b.op("train.compare", [x, zero], [((), "i1")],
                            {"predicate": _GT})
            ratio = self.scalar("div", w_norm, u_norm)
            one = self.fill(1.0)
            ratio = b.op("train.select", [positive(w_norm), b.op(
                "train.select", [positive(u_norm), ratio, one], [((), "f32")]), one],
                [((), "f32")])
            if group["trust_clip"]:
                ratio = self.scalar("minimum", ratio, one)
            upd = op("mul", upd, spread(ratio))
        new_p = op("sub", base, op("mul", spread(rate), upd))
        return [(new_p, PARAM, name), (new_m, OPT_STATE, name + ".exp_avg"),
                (new_v, OPT_STATE, name + ".exp_avg_sq"), (t, OPT_STATE, name + ".step")]
