"""A fingerprint of everything a PyTorch step's export depends on, taken
without tracing: the key under which mp.torch.compile finds the step it
compiled before (docs/python.md, "The plan cache").

It must never meet a changed model: two calls get the same fingerprint
only when the export would write the same step. So it hashes, rather than
the model's name, what the trace reads:

- every module of the model: its class (each method's bytecode, constants,
  defaults and closures, and the globals the code names, followed into the
  user's and libraries' functions, classes and modules), its attributes
  (numbers, strings, tensors that are not state by value, hooks, nested
  objects by their own attributes), its train/eval mode, its parameters'
  and persistent buffers' names, shapes, dtypes and requires_grad, and its
  non-persistent buffers by value (the export folds them into the step);
- the optimizer (class, param groups, which parameters), the loss function,
  the scheduler and the loop body, the same way; the example's shapes and
  dtypes; the policy and options; PyTorch's version and the global state
  that changes a trace (default dtype, autocast, grad mode, deterministic
  algorithms); and the exporter's own sources.

PyTorch's own functions and classes are taken by name (its version is in
the key). What cannot be hashed soundly (an object without attributes
that is not a known value, a tensor over 16 MB that is not state, a
structure past the size budget) makes fingerprint() return None, with the
reason: mp.torch.compile then traces, as without a cache.

Values the trace reads from the example batch itself (Python control
flow on a tensor's value) are not in the key: the exported step has the
example's branch baked in whichever batch traced it (docs/exporters.md).
"""
import _thread
import enum
import functools
import hashlib
import logging
import os
import re
import struct
import sys
import types
import weakref

import numpy as np
import torch

_TENSOR_BYTES = 16 << 20  # a tensor hashed by value: at most this
_BUDGET = 400000
# Module-level values drawn anew in every process that no step reads (a
# random id for the hub's requests): they would make every key new.
_PER_PROCESS = {("transformers.utils.hub", "SESSION_ID")}
_TABLE = 256  # a library's container of more entries: hashed by its length  # objects visited: past it, no fingerprint
_CALLABLE_MEMBERS = (types.FunctionType, staticmethod, classmethod, property)
_STDLIB = set(sys.stdlib_module_names) | {"builtins"}
_PLAIN = (type(None), bool, int, float, complex, str, bytes)
_TORCH_VALUES = (torch.dtype, torch.device, torch.Size, torch.layout,
                 torch.memory_format)
# Module attributes the model walk hashes itself (state by shape, modules
# by name); every other attribute is hashed as a value.
_WALKED = ("_parameters", "_buffers", "_modules", "_non_persistent_buffers_set",
           # Hugging Face's settings of generate(), which a training step
           # does not run; it holds a hash of a string (another per process).
           "generation_config")


class Unsound(Exception):
    """Something the fingerprint cannot hash soundly."""


def _is_torch(module_name):
    return module_name == "torch" or (module_name or "").startswith("torch.")


def _by_name(module_name):
    """Functions and classes of PyTorch and of Python's standard library
    are taken by name: their versions are in the key."""
    top = (module_name or "").split(".")[0].lstrip("_")
    return _is_torch(module_name) or top in _STDLIB


def _library_file(module_name):
    """The file of an installed library's module (under site-packages or
    dist-packages), else None: the user's own code."""
    module = sys.modules.get(module_name or "")
    path = getattr(module, "__file__", None) or ""
    parts = path.replace(os.sep, "/").split("/")
    return path if "site-packages" in parts or "dist-packages" in parts else None


class _Hasher:
    def __init__(self, model, optimizer):
        self.digest = hashlib.sha256()
        self.seen = {}  # id -> visit index (shared objects, cycles)
        self.keep = []  # what `seen` refers to stays alive while hashing
        self.budget = _BUDGET
        self.state = {}  # id of a model tensor -> its name
        for name, t in list(model.named_parameters(remove_duplicate=False)) + \
                list(model.named_buffers(remove_duplicate=False)):
            self.state.setdefault(id(t), name)
        self.modules = {}
        for name, m in model.named_modules(remove_duplicate=False):
            self.modules.setdefault(id(m), name)
        self.roots = {id(optimizer): "optimizer"}
        self.path = []  # where value() is, for the reason it gives up
        # Names the hashed code uses (attributes, string constants), and the
        # methods of hashed classes not yet named by it.
        self.reach, self.pending = {"forward"}, []
        self.libraries = set()  # the library modules hashed

    def unsound(self, what):
        where = ".".join(str(p) for p in self.path[-6:])
        return Unsound("%s (at %s)" % (what, where) if where else what)

    def put(self, *parts):
        for part in parts:
            self.digest.update(b"\x1f" + str(part).encode())

    def value(self, v, names=()):
        """Hashes `v`; `names`: the co_names of the code that reached it
        (the attributes a module global may be read at)."""
        self.budget -= 1
        if self.budget < 0:
            raise self.unsound("the model's code and state reach more than %d "
                               "objects" % _BUDGET)
        if isinstance(v, _PLAIN):
            self.put(type(v).__name__, repr(v))
            if isinstance(v, str):
                self.reach.add(v)  # getattr(self, "name")
            return
        if isinstance(v, _TORCH_VALUES):
            self.put("torch-value", repr(v))
            return
        if id(v) in self.state and torch.is_tensor(v):
            self.put("state", self.state[id(v)])
            return
        if id(v) in self.modules:
            self.put("submodule", self.modules[id(v)])
            return
        if id(v) in self.roots:
            self.put("root", self.roots[id(v)])
            return
        if id(v) in self.seen:
            self.put("seen", self.seen[id(v)])
            return
        self.seen[id(v)] = len(self.seen)
        self.keep.append(v)
        if isinstance(v, enum.Enum):
            self.put("enum", type(v).__module__, type(v).__qualname__, v.name)
        elif isinstance(v, (tuple, list)):
            self.put(type(v).__name__, len(v))
            for item in v:
                self.value(item, names)
        elif isinstance(v, (set, frozenset)):
            self.put(type(v).__name__, len(v))
            for digest in sorted(self.sub(item, names) for item in v):
                self.put(digest)
        elif isinstance(v, (dict, types.MappingProxyType)):
            self.put("dict", type(v).__qualname__, len(v))
            for key, item in v.items():
                self.value(key, names)
                self.path.append(key)
                self.value(item, names)
                self.path.pop()
        elif isinstance(v, (types.UnionType, types.GenericAlias)) or \
                type(v).__module__ == "typing":
            # An annotation: its text is what it is.
            self.put("annotation", repr(v))
        elif isinstance(v, re.Pattern):
            self.put("pattern", v.pattern, v.flags)
        elif isinstance(v, (logging.Logger, logging.LoggerAdapter)):
            # What a module logs is not what it computes.
            self.put("logger", getattr(v, "name", None))
        elif isinstance(v, (_thread.LockType, _thread.RLock)):
            self.put("lock")
        elif isinstance(v, weakref.ref):
            self.put("weakref")
            self.value(v(), names)
        elif torch.is_tensor(v):
            self.tensor(v)
        elif isinstance(v, np.ndarray):
            self.array(v)
        elif isinstance(v, np.generic):
            self.put("numpy", v.dtype.str, repr(v.item()))
        elif isinstance(v, types.ModuleType):
            self.module(v, names)
        elif isinstance(v, type):
            self.cls(v)
        elif isinstance(v, types.FunctionType):
            self.function(v)
        elif isinstance(v, types.MethodType):
            self.put("method")
            self.value(v.__self__, names)
            self.value(v.__func__, names)
        elif isinstance(v, (types.BuiltinFunctionType, types.BuiltinMethodType,
                            types.WrapperDescriptorType, types.MethodDescriptorType,
                            types.MethodWrapperType, types.MemberDescriptorType,
                            types.GetSetDescriptorType,
                            types.ClassMethodDescriptorType)):
            owner = getattr(v, "__self__", None)
            self.put("builtin", type(v).__name__, getattr(v, "__module__", None),
                     getattr(v, "__qualname__", getattr(v, "__name__", "")),
                     getattr(getattr(v, "__objclass__", None), "__qualname__", None))
            if owner is not None and not isinstance(owner, types.ModuleType):
                self.value(owner, names)
        elif isinstance(v, functools.partial):
            self.put("partial")
            self.value(v.func, names)
            self.value(v.args, names)
            self.value(v.keywords, names)
        elif isinstance(v, (staticmethod, classmethod)):
            self.put(type(v).__name__)
            self.value(v.__func__, names)
        elif isinstance(v, property):
            self.put("property")
            for accessor in (v.fget, v.fset, v.fdel):
                self.value(accessor, names)
        elif isinstance(v, types.CodeType):
            self.code(v)
        elif isinstance(v, torch.nn.Module):
            self.obj(v, names)  # a module outside the model (a loss module)
        elif _is_torch(type(v).__module__) and not hasattr(v, "__dict__"):
            # PyTorch's own C-level objects (a torch.Generator, an
            # autograd Function's context) : nothing the trace reads.
            raise self.unsound("a %s object" % type(v).__qualname__)
        else:
            self.obj(v, names)

    def sub(self, v, names):
        """The digest of `v` alone (set members, in sorted order)."""
        outer, self.digest = self.digest, hashlib.sha256()
        try:
            self.value(v, names)
            return self.digest.hexdigest()
        finally:
            self.digest = outer

    def tensor(self, t):
        t = t.detach()
        if t.is_sparse or t.layout != torch.strided or t.device.type != "cpu":
            raise self.unsound("a %s tensor" % t.layout)
        size = t.numel() * t.element_size()
        if size > _TENSOR_BYTES:
            raise self.unsound("a constant tensor of %d MB that is not the "
                               "model's state" % (size >> 20))
        self.put("tensor", t.dtype, tuple(t.shape))
        self.digest.update(t.contiguous().view(torch.uint8).numpy().tobytes()
                           if t.numel() else b"")

    def array(self, a):
        if a.dtype == object or a.nbytes > _TENSOR_BYTES:
            raise self.unsound("a numpy array of %s" % a.dtype)
        self.put("ndarray", a.dtype.str, a.shape)
        self.digest.update(np.ascontiguousarray(a).tobytes())

    def module(self, m, names):
        """A Python module: by name, and the attributes the code that
        reached it names (a flag `config.SCALE` read at run time)."""
        self.put("pymodule", m.__name__)
        if _is_torch(m.__name__):
            return
        for name in names:
            attribute = m.__dict__.get(name, _MISSING)
            if attribute is not _MISSING and not isinstance(attribute,
                                                            types.ModuleType):
                self.put("attr", name)
                self.path.append(m.__name__ + "." + name)
                self.value(attribute, names)
                self.path.pop()

    def cls(self, c):
        self.put("class", c.__module__, c.__qualname__)
        if _by_name(c.__module__):
            return
        if _library_file(c.__module__):
            self.library(c.__module__)
            for klass in c.__mro__:
                if _library_file(klass.__module__) and not _by_name(klass.__module__):
                    self.library(klass.__module__)
                    self.put("class-data", klass.__qualname__)
                    self.data(dict(vars(klass)), 0)
            return
        for base in c.__mro__[1:]:
            self.value(base)
        for name, member in sorted(vars(c).items()):
            if name in ("__dict__", "__weakref__", "__doc__", "__module__",
                        "__qualname__", "__annotations__", "__slotnames__",
                        "_abc_impl", "__parameters__", "__orig_bases__",
                        "__static_attributes__", "__firstlineno__",
                        "call_super_init", "dump_patches", "_version",
                        "__annotate_func__"):
                continue
            if isinstance(member, _CALLABLE_MEMBERS) and \
                    not (name.startswith("__") and name.endswith("__")) and \
                    name not in self.reach:
                # A method no code hashed so far names: hashed once some
                # does (finish()), never when none does (push_to_hub).
                self.pending.append((c, name, member))
                continue
            self.member(c, name, member)

    def member(self, c, name, member):
        self.put("member", c.__module__, c.__qualname__, name)
        self.path.append(c.__qualname__ + "." + name)
        self.value(member)
        self.path.pop()

    def library(self, module_name):
        """An installed library's module, once: its file (so another version
        is another key) and its module-level data (flags and tables its code
        reads at run time), its code being taken by its file."""
        if module_name in self.libraries:
            return
        self.libraries.add(module_name)
        stat = os.stat(_library_file(module_name))
        self.put("library", module_name, stat.st_size, stat.st_mtime_ns)
        self.data({k: v for k, v in vars(sys.modules[module_name]).items()
                   if (module_name, k) not in _PER_PROCESS}, 0)

    def data(self, v, depth):
        """Hashes the data in `v` (numbers, strings, tensors' dtypes,
        containers of them; functions and classes by name), for a library
        whose code is taken by its file: what its code reads that can
        change at run time."""
        self.budget -= 1
        if self.budget < 0:
            raise self.unsound("the model's code and state reach more than %d "
                               "objects" % _BUDGET)
        if isinstance(v, _PLAIN) or isinstance(v, _TORCH_VALUES):
            self.put(type(v).__name__, repr(v))
        elif isinstance(v, enum.Enum):
            self.put("enum", type(v).__qualname__, v.name)
        elif type(v) in (tuple, list, set, frozenset, dict) and len(v) > _TABLE:
            # A table (class names, weights' metadata): by its length.
            self.put("table", type(v).__name__, len(v))
        elif type(v) in (tuple, list, set, frozenset, dict) and depth < 4:
            # Exactly these types: a subclass may run code to list itself
            # (Hugging Face's lazy mappings import models when iterated).
            items = v.items() if type(v) is dict else enumerate(v)
            if isinstance(v, (set, frozenset)):
                items = enumerate(sorted(v, key=repr))
            self.put(type(v).__name__, len(v))
            for key, item in items:
                if isinstance(key, str) and key.startswith("__") and depth == 0:
                    continue  # a module's __name__, __file__, __builtins__
                self.put(repr(key) if isinstance(key, _PLAIN) else type(key).__name__)
                self.data(item, depth + 1)
        elif isinstance(v, (types.FunctionType, type)):
            self.put("named", getattr(v, "__module__", None), v.__qualname__)
        else:
            self.put("other", type(v).__qualname__)

    def finish(self):
        """The methods of the classes seen that the code hashed names (a
        call self.name(...), getattr(self, "name")), until no more are:
        every method the step can reach by name is in the key."""
        while True:
            ready = [p for p in self.pending if p[1] in self.reach]
            if not ready:
                return
            self.pending = [p for p in self.pending if p[1] not in self.reach]
            for c, name, member in ready:
                self.member(c, name, member)

    def function(self, f):
        self.put("function", f.__module__, f.__qualname__)
        if _by_name(f.__module__):
            return
        if _library_file(f.__module__):
            self.library(f.__module__)
            return
        code = f.__code__
        self.code(code)
        self.value(f.__defaults__)
        self.value(f.__kwdefaults__)
        for cell in f.__closure__ or ():
            try:
                contents = cell.cell_contents
            except ValueError:  # an empty cell
                self.put("empty-cell")
                continue
            self.value(contents)
        names = _names(code)
        namespace = f.__globals__
        for name in names:
            if name in namespace:
                self.put("global", name)
                self.path.append(f.__qualname__ + ":" + name)
                self.value(namespace[name], names)
                self.path.pop()

    def code(self, code):
        self.put("code", code.co_name, code.co_argcount, code.co_kwonlyargcount,
                 code.co_flags, code.co_names, code.co_varnames)
        self.digest.update(code.co_code)
        self.reach.update(code.co_names)
        self.reach.update(c for c in code.co_consts if isinstance(c, str))
        for const in code.co_consts:
            if isinstance(const, types.CodeType):
                self.code(const)
            else:
                self.value(const)

    def obj(self, v, names):
        """Any other object: its class and its attributes."""
        attributes = getattr(v, "__dict__", None)
        slots = [s for c in type(v).__mro__ for s in getattr(c, "__slots__", ())]
        if attributes is None and not slots and _by_name(type(v).__module__) and \
                not _is_torch(type(v).__module__):
            # A C object of Python's own library (a namedtuple's field
            # getter, an iterator): taken by its type.
            self.put("stdlib-object", type(v).__module__, type(v).__qualname__)
            return
        if attributes is None and not slots:
            raise self.unsound("a %s.%s object, which has no attributes to hash"
                               % (type(v).__module__, type(v).__qualname__))
        self.value(type(v))
        if attributes is not None:
            self.put("attrs")
            self.value(dict(attributes), names)
        for slot in slots:
            if slot in ("__dict__", "__weakref__"):
                continue
            self.put("slot", slot)
            self.path.append(slot)
            self.value(getattr(v, slot, _MISSING), names)
            self.path.pop()


_MISSING = type("_Missing", (), {"__repr__": lambda self: "<missing>"})()


def _names(code):
    """The names a code object and the code nested in it use."""
    names = list(code.co_names)
    for const in code.co_consts:
        if isinstance(const, types.CodeType):
            names += _names(const)
    return tuple(sorted(set(names)))


def _exporter_sources():
    """The exporter's and this package's sources, by size and time."""
    import mp_export
    parts = []
    for root in sorted({os.path.dirname(mp_export.__file__), os.path.dirname(__file__)}):
        for folder, _, files in sorted(os.walk(root)):
            for name in sorted(files):
                if name.endswith(".py"):
                    stat = os.stat(os.path.join(folder, name))
                    parts.append("%s:%d:%d" % (os.path.join(folder, name), stat.st_size,
                                               stat.st_mtime_ns))
    return parts


def fingerprint(model, optimizer, parts):
    """(hex digest, None), or (None, why not): the key of the step
    mp.torch.compile would export from `model`, `optimizer` and `parts`
    (the loss function, loop body, scheduler, clipping, example shapes,
    policy and options, in a fixed order)."""
    hasher = _Hasher(model, optimizer)
    try:
        hasher.put("mp.torch.compile 1", torch.__version__, sys.version,
                   *_exporter_sources())
        hasher.put(torch.get_default_dtype(), torch.is_grad_enabled(),
                   torch.are_deterministic_algorithms_enabled(),
                   torch.is_autocast_enabled("cpu"), torch.get_autocast_dtype("cpu"))
        persistent = set(model.state_dict())
        for name, module in model.named_modules(remove_duplicate=False):
            hasher.path = [name or "model"]
            hasher.put("module", name, module.training)
            hasher.value(type(module))
            for key, p in module._parameters.items():
                hasher.put("parameter", key)
                if p is None:
                    continue
                hasher.put(p.dtype, tuple(p.shape), p.requires_grad,
                           hasher.state.get(id(p)))
            for key, b in module._buffers.items():
                full = "%s.%s" % (name, key) if name else key
                hasher.put("buffer", key)
                if b is None:
                    continue
                if full in persistent:
                    hasher.put(b.dtype, tuple(b.shape), hasher.state.get(id(b)))
                else:
                    hasher.tensor(b)
            hasher.put("children", *module._modules.keys())
            hasher.value({k: v for k, v in vars(module).items() if k not in _WALKED})
        for hooks in ("_global_forward_hooks", "_global_forward_pre_hooks",
                      "_global_backward_hooks", "_global_backward_pre_hooks",
                      "_global_module_registration_hooks",
                      "_global_parameter_registration_hooks",
                      "_global_buffer_registration_hooks"):
            hasher.value(getattr(torch.nn.modules.module, hooks, None))
        hasher.path = ["optimizer"]
        hasher.put("optimizer")
        hasher.value(type(optimizer))
        for group in optimizer.param_groups:
            hasher.put("group", *[hasher.state.get(id(p), "?") for p in group["params"]])
            hasher.value({k: v for k, v in group.items() if k != "params"})
        hasher.value({k: v for k, v in vars(optimizer).items()
                      if k not in ("param_groups", "state")})
        hasher.put("optimizer-state")
        for group in optimizer.param_groups:
            for p in group["params"]:
                # Which state it holds, not its values: those are the
                # step's initial state, set from the optimizer on a hit.
                entry = optimizer.state.get(p, {})
                hasher.put(hasher.state.get(id(p)), sorted(
                    (k, None if v is None else tuple(getattr(v, "shape", ())))
                    for k, v in entry.items()))
        hasher.path = ["compile()"]
        hasher.put("parts")
        hasher.value(parts)
        hasher.path = ["methods"]
        hasher.finish()
    except Unsound as why:
        return None, str(why)
    except RecursionError:
        return None, "the model's objects nest too deeply"
    return hasher.digest.hexdigest(), None


def example_signature(tensor):
    """A batch's shape and dtype (what the export reads of the example)."""
    t = torch.as_tensor(tensor)
    return ("example", str(t.dtype), tuple(t.shape), t.requires_grad,
            struct.pack("<?", t.is_contiguous()))
