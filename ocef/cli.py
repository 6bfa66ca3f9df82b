"""The ``ocef`` command line.

Each sub-command lives in its own module under :mod:`ocef.commands` and exposes
``register(subparsers)``; heavy imports happen inside the command's handler so
that ``ocef --help`` stays instant.
"""
from __future__ import annotations

import argparse
import importlib
import sys

# One line per sub-command module, in the order ``ocef --help`` lists them.
COMMAND_MODULES = [
    "ocef.commands.bandit",
    "ocef.commands.envy",
    "ocef.commands.audit",
    "ocef.commands.reproduce",
    "ocef.commands.reo",
    "ocef.commands.fairrec",
]


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="ocef",
        description="Online fairness audits of recommender systems: OCEF envy-freeness "
                    "certificates and REO estimation from random traffic.",
    )
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    for name in COMMAND_MODULES:
        importlib.import_module(name).register(sub)
    return parser


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        code = args.func(args)
    except BrokenPipeError:               # output piped into `head` & co.: stop quietly
        sys.stderr.close()
        return 0
    except (ValueError, TypeError, FileNotFoundError) as exc:
        # Bad input is reported as one clear line, not a traceback.
        print(f"ocef {args.command}: error: {exc}", file=sys.stderr)
        return 2
    return int(code or 0)


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
