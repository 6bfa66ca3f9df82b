"""The command line's input messages after the loading moved to ``ocef.environments.inputs``
(review of the move): they name the options and keep the ", or --dataset" hint."""
from __future__ import annotations

import numpy as np
import pytest

from ocef import cli


@pytest.fixture
def arrays(tmp_path):
    np.save(tmp_path / "rho.npy", np.array([[0.9, 0.1], [0.2, 0.8]]))
    np.save(tmp_path / "pp.npy", np.array([[0.5, 0.5], [0.5, 0.5]]))
    np.save(tmp_path / "sc.npy", np.array([[2.0, 1.0], [0.0, 3.0]]))
    return tmp_path


@pytest.mark.parametrize("argv, message", [
    (["envy", "--rho", "{d}/rho.npy"],
     "give --rho and --policy-probs or --scores (and optionally --groups), or --dataset"),
    (["audit", "--rho", "{d}/rho.npy", "--policy-probs", "{d}/pp.npy"],
     "give --rho, --policy-probs (or --scores) and --groups, or --dataset"),
    (["envy", "--rho", "{d}/rho.npy", "--scores", "{d}/sc.npy", "--policy", "parity"],
     "use --dataset or --policy-probs), got 'parity'"),
])
def test_messages_name_the_options(arrays, capsys, argv, message):
    assert cli.main([a.format(d=arrays) for a in argv]) == 2
    assert message in capsys.readouterr().err


def test_the_simulated_service_description_names_no_partition():
    # it serves every partition: its /info description (and fingerprint) must not name one
    from ocef.commands.simulate_service import build_service

    parser = cli.build_parser(["simulate-service"])
    args = parser.parse_args(["simulate-service", "--dataset", "synthetic", "--n-users", "20", "--n-items", "10"])
    assert "partition" not in build_service(args).description


def test_bias_inputs_refuse_movielens_options_for_coat():
    from ocef.environments.inputs import bias_inputs_from_dataset
    from ocef.errors import ParameterError

    with pytest.raises(ParameterError, match="n_users applies to movielens only"):
        bias_inputs_from_dataset("coat", n_users=5)
