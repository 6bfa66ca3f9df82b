"""Bad input on the command line: one line naming the file or option, exit status 2, never a
traceback, never a silent answer (the foundation issue's list of 11 tracebacks and 12 silent answers)."""
import errno
import gzip
import os

import numpy as np
import pytest

import ocef.cli


@pytest.fixture
def run(cli_run):
    return cli_run


def assert_one_line_error(result, *needles):
    code, out, err = result
    assert code == 2, (code, out, err)
    lines = err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("ocef ") and ": error: " in lines[0], err
    assert "Traceback" not in err and "np.float64(" not in err and "np.int64(" not in err
    for needle in needles:
        assert needle in lines[0], (needle, lines[0])


@pytest.fixture
def arrays(tmp_path):
    rng = np.random.default_rng(0)
    rho = rng.uniform(size=(6, 3))
    probs = rng.dirichlet(np.ones(3), size=6)
    np.save(tmp_path / "rho.npy", rho)
    np.save(tmp_path / "probs.npy", probs)
    np.save(tmp_path / "groups.npy", np.array([0, 0, 1, 1, 2, 2]))
    return tmp_path


def envy_args(d, rho="rho.npy", probs="probs.npy", groups="groups.npy"):
    return ["envy", "--rho", d / rho, "--policy-probs", d / probs, "--groups", d / groups]


def test_empty_npy_and_csv(run, arrays):
    np.save(arrays / "empty.npy", np.zeros((0, 3)))
    assert_one_line_error(run(*envy_args(arrays, rho="empty.npy")), "empty.npy", "is empty")
    (arrays / "empty.csv").write_text("")
    assert_one_line_error(run(*envy_args(arrays, probs="empty.csv")), "empty.csv", "is empty")


def test_directory_and_unreadable_inputs(run, arrays, monkeypatch):
    (arrays / "dir.npy").mkdir()
    assert_one_line_error(run(*envy_args(arrays, rho="dir.npy")), "dir.npy")
    secret = arrays / "secret.npy"
    secret.write_bytes((arrays / "rho.npy").read_bytes())
    os.chmod(secret, 0)
    if os.access(secret, os.R_OK):
        # root reads any file: make the read fail as it does for other users
        real_open = open

        def refuse(file, *args, **kwargs):
            if os.fspath(file) == str(secret):
                raise PermissionError(errno.EACCES, "Permission denied", str(secret))
            return real_open(file, *args, **kwargs)
        monkeypatch.setattr("builtins.open", refuse)
    assert_one_line_error(run(*envy_args(arrays, rho="secret.npy")), "secret.npy", "Permission denied")


def test_complex_numbers_are_refused(run, arrays):
    np.save(arrays / "complex.npy", np.load(arrays / "rho.npy") + 0.1j)
    assert_one_line_error(run(*envy_args(arrays, rho="complex.npy")), "complex")


def test_corrupt_gz(run, tmp_path):
    data = gzip.compress(b"Y,S\n" + b"1,0\n0,1\n" * 2000)
    (tmp_path / "log.csv.gz").write_bytes(data[:30] + b"\x00garbage\xff" * 8 + data[30:])
    assert_one_line_error(run("reo", "--default", tmp_path / "log.csv.gz", "--random", tmp_path / "log.csv.gz"),
                          "log.csv.gz")


def test_duplicate_column_names(run, tmp_path):
    (tmp_path / "d.csv").write_text("Y,S,Y\n1,0,0\n0,1,1\n1,1,0\n")
    assert_one_line_error(run("reo", "--default", tmp_path / "d.csv", "--random", tmp_path / "d.csv"), "Y")


@pytest.mark.parametrize("means", ["0.5,,0.3", "0.5,0.3,", ",0.5"])
def test_empty_items_in_number_lists(run, means):
    assert_one_line_error(run("bandit", "--means", means, "--trials", "1"), "--means")


def test_out_that_cannot_be_written(run, arrays, tmp_path):
    base = ["audit", "--rho", arrays / "rho.npy", "--policy-probs", arrays / "probs.npy",
            "--groups", arrays / "groups.npy", "--trials", "1", "--max-steps", "50", "--no-progress"]
    (tmp_path / "adir").mkdir()
    assert_one_line_error(run(*base, "--out", tmp_path / "adir"), "adir")
    (tmp_path / "afile").write_text("x")
    assert_one_line_error(run(*base, "--out", tmp_path / "afile" / "report.csv"), "afile")


def test_numpy_reprs_never_shown():
    msg = ocef.cli.error_line("x", ValueError("got np.float64(10.0) and np.int64(3), np.True_"))
    assert msg == "ocef x: error: got 10.0 and 3, np.True_"


def test_keyboard_interrupt_is_one_line_exit_130(monkeypatch, capsys):
    import ocef.commands.bandit as bandit

    def boom(args):
        raise KeyboardInterrupt
    monkeypatch.setattr(bandit, "_run", boom)
    assert ocef.cli.main(["bandit", "--means", "0.6,0.3"]) == 130
    err = capsys.readouterr().err
    assert err.strip() == "ocef bandit: interrupted"



@pytest.mark.parametrize("argv,needle", [
    (["reo", "--dataset", "coat", "--confidence", "abc"], "--confidence"),
    (["reo-ab", "--control", "c", "--treatment", "t", "--random", "r", "--interval", "nope"], "--interval"),
    (["recmetrics", "--dataset", "coat", "--top", "2.5"], "--top"),
    (["pairwise", "--dataset", "nowhere"], "--dataset"),
    (["bandit", "--instance", "3", "--no-such-option"], "--no-such-option"),
])
def test_argparse_errors_are_one_line(capsys, argv, needle):
    # a value argparse itself rejects (type, choice, unknown option): one line naming the command
    # and the option, exit status 2 -- not argparse's multi-line usage block
    with pytest.raises(SystemExit) as info:
        ocef.cli.main(argv)
    out = capsys.readouterr()
    assert_one_line_error((info.value.code, out.out, out.err), f"ocef {argv[0]}: error: ", needle)


def test_negative_seed_is_named(run, tmp_path):
    # numpy's own message ("expected non-negative integer") named nothing
    assert_one_line_error(run("bandit", "--instance", "1", "--trials", "1", "--seed", "-1"), "non-negative int seed", "-1")


@pytest.mark.parametrize("size", ["inf", "nan", "-3"])
def test_audit_group_size_must_be_a_finite_positive_number(run, arrays, size):
    # --group-size inf ended in an OverflowError traceback
    argv = ["audit", "--rho", arrays / "rho.npy", "--policy-probs", arrays / "probs.npy", "--groups",
            arrays / "groups.npy", "--no-progress", f"--group-size={size}"]
    assert_one_line_error(run(*argv), "--group-size")


@pytest.mark.parametrize("argv, expected", [
    (["exposure", "--rankings", "x.parquet", "--item-grup", "genre"],
     "ocef exposure: error: unrecognized argument --item-grup; did you mean --item-group?"),
    (["bandit", "--sed", "3"], "ocef bandit: error: unrecognized argument --sed; did you mean --seed?"),
    (["recmetrics", "--n-resampels=5"], "ocef recmetrics: error: unrecognized argument --n-resampels; did you mean "
                                        "--n-resamples?"),
])
def test_a_mistyped_option_is_named_with_the_closest_one(argv, expected, capsys):
    """Issue 31: not "--item-group is required" but the typo and its likely meaning."""
    with pytest.raises(SystemExit) as exc:
        ocef.cli.main(argv)
    assert exc.value.code == 2 and capsys.readouterr().err.strip() == expected


@pytest.mark.parametrize("command", ["recmetrics", "pairwise", "reo", "reo-ab", "fairrec"])
def test_every_resampling_command_accepts_the_glossary_option_n_resamples(command):
    """The glossary's word, `--n-resamples`, everywhere (the former `--resamples` still works)."""
    from ocef.cli import build_parser

    parser = build_parser([command])
    sub = next(a for a in parser._actions if a.__class__.__name__ == "_SubParsersAction").choices[command]
    assert "--n-resamples" in sub._option_string_actions and "--resamples" in sub._option_string_actions
