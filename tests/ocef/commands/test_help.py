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


def test_one_line_help_of_ocef_help_is_the_commands_own():
    # `ocef --help` shows cli.COMMANDS' line without importing the command; the command registers
    # its own: the two must say the same (reproduce's had drifted apart).
    import argparse

    parser = ocef.cli.build_parser(None)          # every command module registered
    sub = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    registered = {c.dest: c.help for c in sub._choices_actions}
    assert registered == {name: help_text for name, (_, help_text) in ocef.cli.COMMANDS.items()}


@pytest.mark.parametrize("name", ["envy", "audit", "simulate-service"])
def test_matching_choices_are_the_library_matchings(name):
    # --matching is written out in ocef.commands._inputs (no solver import at --help): it must offer
    # exactly ocef.envy.matching.MATCHINGS, default transport, in every command that has it.
    import argparse

    from ocef.envy.matching import MATCHINGS

    parser = ocef.cli.build_parser([name])
    sub = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    opt = next(a for a in sub.choices[name]._actions if "--matching" in a.option_strings)
    assert tuple(opt.choices) == MATCHINGS and opt.default == "transport"


def test_constants_written_out_for_help_are_the_library_ones():
    # the commands spell these out so that --help imports nothing heavy; they must not drift
    from ocef.commands import _inputs, recmetrics
    from ocef.environments import inputs

    assert recmetrics.COAT_PARTITIONS == inputs.COAT_PARTITIONS
    assert _inputs.DATASETS == inputs.ENVIRONMENTS
