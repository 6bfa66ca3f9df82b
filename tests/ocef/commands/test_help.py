"""Every command has --help (and it imports only that command's module)."""
import pytest

import ocef.cli


@pytest.mark.parametrize("name", list(ocef.cli.COMMANDS))
def test_every_command_has_help(name, capsys):
    with pytest.raises(SystemExit) as info:
        ocef.cli.main([name, "--help"])
    assert info.value.code == 0
    out = capsys.readouterr().out
    assert out.startswith(f"usage: ocef {name}") and "--" in out


def test_top_level_help_lists_every_command(capsys):
    with pytest.raises(SystemExit):
        ocef.cli.main(["--help"])
    out = capsys.readouterr().out
    assert all(name in out for name in ocef.cli.COMMANDS)
