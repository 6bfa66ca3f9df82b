"""List the public functions (ocef.__all__ and every subpackage's __all__) that take user
parameters (options with a bool/int/float/str default) without a declaration."""
import importlib, inspect, pkgutil
import ocef

def public():
    mods = ["ocef"] + [f"ocef.{m.name}" for m in pkgutil.iter_modules(ocef.__path__)]
    seen = {}
    for name in mods:
        try:
            mod = importlib.import_module(name)
        except Exception:
            continue
        for attr in getattr(mod, "__all__", []):
            obj = getattr(mod, attr, None)
            if obj is None: continue
            f = obj.__init__ if inspect.isclass(obj) else obj
            if not callable(f) or not (inspect.isfunction(f) or hasattr(f, "__wrapped__")): continue
            key = f"{getattr(obj,'__module__','?')}.{getattr(obj,'__qualname__',attr)}"
            seen[key] = (obj, f)
    return seen

def options(f):
    try:
        sig = inspect.signature(f)
    except (TypeError, ValueError):
        return []
    return [p.name for p in sig.parameters.values() if p.name not in ("self", "rng")
            and (isinstance(p.default, (bool, int, float, str)) and p.default is not inspect.Parameter.empty)]

if __name__ == "__main__":
    pub = public()
    und = {k: options(f) for k, (o, f) in pub.items() if options(f) and not getattr(f, "__declared_params__", None)}
    dec = [k for k, (o, f) in pub.items() if getattr(f, "__declared_params__", None)]
    print(f"{len(pub)} public callables, {len(dec)} declared, {len(und)} with options and no declaration")
    for k, v in sorted(und.items()):
        print(f"  {k}: {', '.join(v)}")
