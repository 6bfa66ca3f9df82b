"""Atomic writes: whole files or nothing, with the permissions the umask gives a new file."""
import os
import stat

import pytest

from ocef.files import atomic_write, atomic_write_text


@pytest.mark.parametrize("umask", [0o022, 0o002, 0o077])
def test_written_files_respect_the_umask(tmp_path, umask):
    old = os.umask(umask)
    try:
        path = atomic_write_text(tmp_path / "sub" / "result.json", "{}\n")
    finally:
        os.umask(old)
    assert stat.S_IMODE(path.stat().st_mode) == 0o666 & ~umask
    assert path.read_text() == "{}\n"


def test_a_failed_write_leaves_the_old_file_and_no_temporary(tmp_path):
    path = atomic_write_text(tmp_path / "r.csv", "old\n")

    def crash(p):
        p.write_text("half")
        raise RuntimeError("disk full")
    with pytest.raises(RuntimeError):
        atomic_write(path, crash)
    assert path.read_text() == "old\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["r.csv"]
