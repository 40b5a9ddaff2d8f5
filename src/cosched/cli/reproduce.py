"""``cosched reproduce NAME [--quick] --out DIR``: rerun a paper's experiments."""

from __future__ import annotations

import argparse
import sys

from cosched.cli._parser import Handler
from cosched.cli.sweep import add_run_options, run_experiment_and_report
from cosched.experiments.reproductions import names

__all__ = ["PARSERS"]


def _arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("name", help=f"one of: {', '.join(names())}")
    p.add_argument("--quick", action="store_true", help="the spec's reduced [quick] grid")
    p.add_argument(
        "--print-spec",
        action="store_true",
        help="print the reproduction's spec (TOML) and exit; edit a copy, run it with "
        "cosched sweep",
    )
    add_run_options(p, out_required=False)  # --print-spec needs no --out
    p.add_argument(
        "--transport",
        choices=("local", "tcp"),
        default="local",
        help="coupled only: tcp runs each machine as its own process on 127.0.0.1, "
        "speaking the coordination protocol over TCP (same results)",
    )


def _reproduce(args: argparse.Namespace) -> int:
    from cosched.errors import ConfigError
    from cosched.experiments.reproductions import spec, spec_text

    if args.print_spec:
        sys.stdout.write(spec_text(args.name))
        return 0
    if args.out is None:
        raise ConfigError("reproduce needs --out DIR (or --print-spec)")
    if args.transport != "local" and args.name != "coupled":
        raise ConfigError(f"--transport {args.transport} applies to coupled only")
    exp = spec(args.name, quick=args.quick)
    command = f"cosched reproduce {args.name}" + (" --quick" if args.quick else "")
    return run_experiment_and_report(exp, args, command, transport=args.transport)


#: ``cosched reproduce`` (its texts: :mod:`cosched.cli.commands`).
PARSERS = {"reproduce": Handler(_reproduce, _arguments)}
