"""ocef.validation.deprecated_positional: options that became keyword-only, accepted positionally
for one release with a FutureWarning."""
import inspect
import warnings

import pytest

from ocef.errors import ParameterError, ParameterTypeError
from ocef.validation import deprecated_positional


@deprecated_positional("k", "thresh")
def shown(scores, truth=None, *, k=None, thresh=0.5, order=None):
    """The arguments as received."""
    return scores, truth, k, thresh, order


def test_keyword_calls_are_unchanged_and_silent():
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert shown([1], k=2) == ([1], None, 2, 0.5, None)
        assert shown([1], [0], thresh=0.1, order=3) == ([1], [0], None, 0.1, 3)


def test_extra_positionals_go_to_the_named_options_in_order_with_one_warning():
    with pytest.warns(FutureWarning) as caught:
        assert shown([1], [0], 2, 0.7) == ([1], [0], 2, 0.7, None)
    assert len(caught) == 1
    message = str(caught[0].message)
    assert "shown: passing k, thresh positionally is deprecated" in message
    assert "shown(..., k=..., thresh=...)" in message and "0.2.0" in message
    assert caught[0].filename == __file__                # stacklevel: the caller's line
    with pytest.warns(FutureWarning, match="passing k positionally"):
        assert shown([1], None, 3, order=1) == ([1], None, 3, 0.5, 1)


def test_the_signature_is_the_new_one():
    params = inspect.signature(shown).parameters
    assert [p.name for p in params.values() if p.kind is inspect.Parameter.KEYWORD_ONLY] == ["k", "thresh", "order"]
    assert shown.__doc__ == "The arguments as received." and shown.__name__ == "shown"


def test_too_many_positionals_and_twice_given_are_errors():
    with pytest.raises(ParameterTypeError, match=r"at most 4 positional arguments \(2 and, deprecated, k, thresh\), got 5"):
        shown([1], None, 2, 0.5, 7)                      # order was never positional
    with pytest.raises(ParameterTypeError, match="multiple values for argument.*thresh"):
        shown([1], None, 2, 0.5, thresh=0.1)


@pytest.mark.parametrize("names", [(), ("truth",), ("missing",)])
def test_names_must_be_keyword_only_parameters(names):
    with pytest.raises(ParameterError, match="must be keyword-only parameters"):
        deprecated_positional(*names)(shown.__wrapped__)


def test_a_function_with_star_args_is_refused():
    def f(*args, k=1):
        return k
    with pytest.raises(ParameterError, match="without \\*args"):
        deprecated_positional("k")(f)
