"""The only installed import name is ``ocef``: a user's own ``policies.py``, ``environments.py``
or ``experiments/`` in the working directory never shadows the package's (issue: namespace)."""
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

PUBLIC_MODULES = ["ocef", "ocef.envy.audit", "ocef.envy.auditor", "ocef.envy.bounds", "ocef.envy.exact", "ocef.envy.matching",
                  "ocef.envy.runner", "ocef.envy.simulation", "ocef.reo.simulate", "ocef.reo", "ocef.results",
                  "ocef.validation", "ocef.files", "ocef.environments", "ocef.datasets.movielens",
                  "ocef.environments.logs", "ocef.policies", "ocef.experiments.registry"]


@pytest.fixture
def hostile_dir(tmp_path: Path) -> Path:
    boom = "raise ImportError('the user\\'s own module was imported instead of ocef\\'s')\n"
    (tmp_path / "policies.py").write_text(boom)
    (tmp_path / "environments.py").write_text(boom)
    (tmp_path / "experiments").mkdir()
    (tmp_path / "experiments" / "__init__.py").write_text(boom)
    return tmp_path


def test_public_api_imports_beside_user_modules(hostile_dir):
    script = hostile_dir / "script.py"
    script.write_text(textwrap.dedent(f"""
        import importlib
        for name in {PUBLIC_MODULES!r}:
            importlib.import_module(name)
        from ocef.policies import softmax_policy
        from ocef.environments.bandits import paper_instance
        print("ok")
    """))
    out = subprocess.run([sys.executable, str(script)], cwd=hostile_dir, capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "ok"


def test_reproduce_list_beside_user_modules(hostile_dir):
    out = subprocess.run([sys.executable, "-m", "ocef.cli", "reproduce", "--list"], cwd=hostile_dir,
                         capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    assert "bandit-alpha" in out.stdout


def test_no_top_level_name_but_ocef(tmp_path):
    # From an empty folder, none of the old top-level names can be imported.
    code = ("import importlib.util, ocef.policies, ocef.environments, ocef.experiments; "
            "print([n for n in ('policies', 'environments', 'experiments') if importlib.util.find_spec(n)])")
    out = subprocess.run([sys.executable, "-c", code], cwd=tmp_path, capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "[]"
