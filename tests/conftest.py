from pathlib import Path

import pytest

from ocef.environments.paths import data_root

DATA = data_root()


def require_data(*parts: str) -> Path:
    """Path to a real data file or folder under ../shared/data; skip the test if absent."""
    path = DATA.joinpath(*parts)
    if not path.exists():
        pytest.skip(f"real data not found at {path} (set OCEF_DATA_DIR or place ../shared/data)")
    return path


@pytest.fixture(scope="session")
def spark():
    """A local Spark session (2 cores) for the Spark tests; skipped with a reason without pyspark or Java."""
    import os
    import shutil

    pytest.importorskip("pyspark", reason="pyspark is not installed (pip install -e '.[spark]' in a checkout)")
    if not (shutil.which("java") or os.environ.get("JAVA_HOME")):
        pytest.skip("Spark needs Java 17: no java on PATH and JAVA_HOME is not set")
    from ocef.backends import spark_session

    session = spark_session("local[2]")
    session.sparkContext.setLogLevel("ERROR")
    yield session
    session.stop()


@pytest.fixture
def cli_run(capsys):
    """``cli_run(*argv)`` -> (exit status, stdout, stderr) of ``ocef.cli.main``."""
    import ocef.cli

    def call(*argv):
        code = ocef.cli.main([str(a) for a in argv])
        out = capsys.readouterr()
        return code, out.out, out.err
    return call
