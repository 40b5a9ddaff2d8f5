"""``cosched coupled run SPEC`` and ``cosched coupled serve``: coupled machines.

``run`` simulates the domains of a TOML spec (see :mod:`cosched.coupled.spec`) in this
process (``--transport local``) or each in its own ``serve`` process on the loopback
address (``--transport tcp``), and prints one summary line per machine. A machine
whose process was lost (died or stopped answering, and never came back) makes the
run exit 1, with one line naming it, unless ``--allow-lost`` accepts the others'
results alone. ``serve`` is what ``run --transport tcp`` starts; it is not meant to be
started by hand.
"""

from __future__ import annotations

import argparse
import json
import logging
import sys
from pathlib import Path
from typing import Any

from cosched.cli._parser import Handler
from cosched.errors import ConfigError

__all__ = ["PARSERS"]


def _run_arguments(r: argparse.ArgumentParser) -> None:
    r.add_argument("spec", type=Path, help="TOML file with [[domain]] tables")
    r.add_argument(
        "--transport",
        choices=("local", "tcp"),
        default="local",
        help="local: one process (default); tcp: one serve process per machine",
    )
    r.add_argument(
        "--timeout", type=float, default=10.0, help="tcp: seconds per request (default 10)"
    )
    r.add_argument("--logs", type=Path, help="tcp: folder for each serve process's log")
    r.add_argument(
        "--restarts",
        type=int,
        default=0,
        help="tcp: start a domain process that died again, at most this many times (default 0)",
    )
    r.add_argument(
        "--allow-lost",
        action="store_true",
        help="tcp: exit 0 even if a machine's process was lost (it died or stopped "
        "answering and never came back); by default such a run exits 1, since its "
        "results lack that machine and its peers' paired jobs started alone",
    )
    r.add_argument("--json", type=Path, help="also write the metrics and faults to this file")


def _serve_arguments(s: argparse.ArgumentParser) -> None:
    s.add_argument("--name", required=True, help="the domain's name")
    s.add_argument("--host", default="127.0.0.1", help="address to bind (default 127.0.0.1)")
    s.add_argument("--port", type=int, default=0, help="TCP port (default 0: any free one)")
    s.add_argument(
        "--secret-file", required=True, help="file with the shared secret in hex; - for stdin"
    )
    s.add_argument(
        "--allow",
        action="append",
        default=[],
        metavar="ADDR",
        help="peer IP address accepted, repeatable (default 127.0.0.1)",
    )
    s.add_argument(
        "--timeout", type=float, default=10.0, help="seconds per call to a peer (default 10)"
    )
    s.add_argument(
        "--idle-timeout",
        type=float,
        default=600.0,
        help="exit after this many seconds without a request (default 600)",
    )
    s.add_argument(
        "--run",
        help="the run's id every message must be signed for (default: derived from the "
        "secret; `coupled run` gives each run a fresh one)",
    )
    s.add_argument("--log", type=Path, help="log file (default: stderr)")


def _read_secret(where: str) -> bytes:
    try:
        text = sys.stdin.readline() if where == "-" else Path(where).read_text()
    except OSError as exc:
        raise ConfigError(f"cannot read the shared secret: {exc}") from None
    try:
        secret = bytes.fromhex(text.strip())
    except ValueError:
        raise ConfigError("the shared secret must be hex") from None
    if len(secret) < 16:
        raise ConfigError("the shared secret must be at least 16 bytes (32 hex digits)")
    return secret


def _serve(args: argparse.Namespace) -> int:
    from cosched.coupled.server import DomainServer

    handler: logging.Handler = (
        logging.FileHandler(args.log) if args.log else logging.StreamHandler(sys.stderr)
    )
    handler.setFormatter(logging.Formatter("%(asctime)s %(name)s %(levelname)s %(message)s"))
    root = logging.getLogger("cosched")
    root.addHandler(handler)
    root.setLevel(logging.INFO)
    if args.timeout <= 0:
        raise ConfigError(f"--timeout must be > 0, got {args.timeout}")
    secret = _read_secret(args.secret_file)
    server = DomainServer(
        args.name,
        secret,
        allow=set(args.allow or ["127.0.0.1"]),
        host=args.host,
        port=args.port,
        timeout=args.timeout,
        idle_timeout=args.idle_timeout if args.idle_timeout > 0 else None,
        run=args.run,
    )
    print(f"cosched coupled serve: {args.name} listening on {server.address}", flush=True)
    log = logging.getLogger("cosched.coupled.serve")
    log.info("%s serving on %s", args.name, server.address)
    try:
        server.serve_forever()
    except Exception:  # its stderr is often nowhere: the traceback goes to the log
        log.exception("%s stopped by an internal error", args.name)
        return 1
    log.info("%s stopped; refusals %s", args.name, server.report()["refused"])
    return 0


def _run(args: argparse.Namespace) -> int:
    from cosched.coupled.coordinator import run_coupled
    from cosched.coupled.metrics import coupled_metrics, verify_sync
    from cosched.coupled.spec import default_links, load_spec
    from cosched.coupled.transport import run_tcp

    if not (args.timeout > 0):
        raise ConfigError(f"--timeout must be > 0 seconds, got {args.timeout}")
    spec = load_spec(args.spec)
    names = [d.name for d in spec.domains]
    links = spec.links if spec.links is not None else default_links(names)
    if args.transport == "tcp":
        res = run_tcp(
            list(spec.domains),
            links=links,
            outages=spec.outages,
            timeout=args.timeout,
            log_dir=args.logs,
            restarts=args.restarts,
        )
    else:
        res = run_coupled([d.build() for d in spec.domains], pairs=links, outages=spec.outages)
    if all(d.enabled for d in spec.domains):
        verify_sync(res)
    metrics = coupled_metrics(res)
    for name, m in metrics.items():
        print(
            f"{name}: jobs {m['jobs']:.0f}, mean wait {m['mean_wait']:.1f} s, "
            f"mean sync time {m['mean_sync_time']:.1f} s, utilization {m['utilization']:.4f}"
        )
    for f in res.faults:
        print(f"fault: {f}")
    if args.json:
        out: dict[str, Any] = {
            "transport": args.transport,
            "machines": metrics,
            "faults": [dict(f) for f in res.faults],
            "stats": dict(res.stats),
        }
        args.json.write_text(json.dumps(out, indent=1, sort_keys=True, default=float) + "\n")
    return _lost_status(res.faults, args)


def _lost_status(faults: Any, args: argparse.Namespace) -> int:
    """The exit status of a finished run: 1 if a machine was lost (not --allow-lost)."""
    lost = [f for f in faults if f["event"] == "lost"]
    for f in lost:
        where = f"; its log is in {args.logs}" if args.logs else ""
        print(
            f"cosched: machine {f['domain']!r} was lost at t={f['time']:g} (its process died "
            f"or stopped answering and never came back): the results lack it and its "
            f"peers' paired jobs started alone{where}",
            file=sys.stderr,
        )
    if lost and not args.allow_lost:
        print("cosched: run again, or pass --allow-lost to accept these results", file=sys.stderr)
        return 1
    return 0


#: ``cosched coupled run`` and ``cosched coupled serve`` (their texts:
#: :mod:`cosched.cli.commands`).
PARSERS = {
    "coupled run": Handler(_run, _run_arguments),
    "coupled serve": Handler(_serve, _serve_arguments),
}
