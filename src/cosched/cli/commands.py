"""Every command of ``cosched``, as its parent's ``--help`` lists it and its own opens.

One record a command: its name, the one-line help its parent lists it with, the example
command lines of its ``examples:`` epilog and the description atop its own ``--help``;
then either its verbs (``trace info``, ``coupled run``) or the module of ``cosched.cli``
that adds its arguments and runs it (that module's ``PARSERS``, keyed by the command's
words). :func:`cosched.cli.main.build_parser` adds them all from here, in this order;
a command line naming a command loads the modules of that command alone.
"""

from __future__ import annotations

from typing import NamedTuple

from cosched.workload.sacct import SACCT_COMMAND

__all__ = ["COMMANDS", "Command"]


class Command(NamedTuple):
    """One command (or verb) of the command line (a named tuple: no import of
    :mod:`dataclasses`, whose own imports would add to every command's start).

    Attributes:
        name: the word that names it.
        help: the line its parent's ``--help`` lists it with.
        examples: command lines shown, as written, in its ``examples:`` epilog.
        description: the text atop its own ``--help`` (shown as written).
        module: the ``cosched.cli`` module whose ``PARSERS`` adds its arguments and runs
            it (a command without verbs).
        verbs: the commands under it, one of which a command line must name.
        dest: the attribute a command line's verb is stored in (a command with verbs).
        metavar: how its usage line names the verb.
    """

    name: str
    help: str
    examples: tuple[str, ...]
    description: str | None = None
    module: str | None = None
    verbs: tuple[Command, ...] = ()
    dest: str = ""
    metavar: str = ""


_GENERATE = (
    "cosched generate lublin --nodes 128 --jobs 10000 --seed 1 -o lublin.swf",
    "cosched generate lublin --nodes 256 --jobs 5000 --seed 2 --typeless -o typeless.swf.gz",
)

_TRACE = (
    Command(
        "info",
        "header facts, job count and offered load",
        (
            "cosched trace info ../shared/traces/KTH-SP2-1996-2.1-cln.swf.gz",
            "cosched trace info sacct-2024-03.txt --tz Europe/Berlin",
        ),
        "Header facts, job count and offered load of an SWF trace, or of a Slurm / PBS "
        "accounting log (converted on the fly, with its conversion notes).",
        module="traceinfo",
    ),
    Command(
        "import",
        "convert Slurm sacct dumps or PBS accounting files to SWF",
        (
            "cosched trace import slurm jan.txt feb.txt --tz Europe/Berlin -o cab.swf.gz",
            "cosched trace import pbs /var/spool/pbs/server_priv/accounting -o site.swf",
        ),
        "Convert an operator's accounting log to SWF and print what was kept, dropped or "
        f"changed, by reason. Slurm: the output of\n  {SACCT_COMMAND}\nPBS Pro / OpenPBS / "
        "Torque: files of server_priv/accounting (or that folder).",
        module="traceinfo",
    ),
    Command(
        "fetch",
        "download an archive log into the cache and verify its SHA-256 (refused on mismatch)",
        (
            "cosched trace fetch KTH-SP2-1996-2.1-cln.swf.gz",
            "cosched trace fetch RICC-2010-2.swf.gz --dest ../shared/traces",
        ),
        "Download a Parallel Workloads Archive log into $COSCHED_DATA (else the user cache "
        "folder) and verify it against the checksum table shipped with cosched.",
        module="trace",
    ),
    Command(
        "list",
        "the archive logs cosched knows, and where each is found locally",
        ("cosched trace list", "COSCHED_TRACES=~/traces cosched trace list"),
        module="trace",
    ),
)

_COUPLED = (
    Command(
        "run",
        "simulate the coupled machines of a TOML spec",
        (
            "cosched coupled run examples/coupled.toml",
            "cosched coupled run examples/coupled.toml --transport tcp --timeout 5",
        ),
        "Simulate the coupled machines of a TOML spec and print per-machine metrics. With "
        "--transport tcp each machine is its own process on 127.0.0.1 and the schedules are "
        "the same as in-process, bit for bit.",
        module="coupled",
    ),
    Command(
        "serve",
        "serve one machine's domain (started by `coupled run --transport tcp`)",
        (
            "echo $SECRET | cosched coupled serve --name compute --secret-file -",
            "cosched coupled serve --name analysis --port 5601 --secret-file key.hex",
        ),
        "Serve one machine's domain over TCP: the driver sends its settings and workload, "
        "its peers call the protocol. Reads the shared secret (hex) from the --secret-file; "
        "prints its address on one line, then serves until stopped. Connections without the "
        "secret end in the handshake; messages that are malformed, too large, not signed "
        "with the secret, replayed, signed for another recipient or from an address not "
        "allowed are refused, counted and logged; they never stop it.",
        module="coupled",
    ),
)

#: The commands, in the order ``cosched --help`` lists them.
COMMANDS = (
    Command(
        "run",
        "simulate one policy on one workload",
        (
            "cosched run ../shared/traces/KTH-SP2-1996-2.1-cln.swf.gz --policy nodeshare-easy",
            "cosched run lublin:jobs=5000,nodes=128 --policy my_policy.py:LargestFirst --seed 7",
        ),
        "Simulate one policy on one workload and print the summary. The machine and the "
        "per-job profiles the policy's family needs are built from the trace header and the "
        "flags; every assumption is printed as a note.",
        module="run",
    ),
    Command(
        "policies",
        "list policies, their parameters and requirements",
        ("cosched policies", "cosched policies --json > policies.json"),
        module="run",
    ),
    Command(
        "compare",
        "should jobs share nodes on this machine? baselines vs coscheduling, with a report",
        (
            "cosched compare --out answer",
            "cosched compare ../shared/traces/KTH-SP2-1996-2.1-cln.swf.gz --out kth --workers 2",
            "cosched compare site.swf.gz --out site --quick   # one seed, no robustness sweeps",
        ),
        "Run the space-sharing baselines and every coscheduling family that applies to the "
        "machine on one trace (the randomised ones over several seeds), through the "
        "resumable experiment store in DIR/store, then write DIR/report.md and "
        "DIR/report.html: summary with 95% confidence intervals, distributions, per-class "
        "breakdown, who wins and who loses, utilization and queue over time, a Gantt chart "
        "of the busiest day, the interference robustness sweep and a verdict. Each "
        "coscheduling policy also runs with its assumptions and its mechanism turned off "
        "(control runs), which split its gain by source.",
        module="compare",
    ),
    Command(
        "validate",
        "does the simulated baseline look like your machine? (vs the recorded schedule)",
        (
            "cosched validate ../shared/traces/KTH-SP2-1996-2.1-cln.swf.gz --policy easy "
            "--figure kth.png",
            "cosched validate sacct-2024-03.txt --tz Europe/Berlin --policy easy --nodes 1296 "
            "--cores 16",
            "cosched validate ../shared/traces/SDSC-SP2-1998-4.2-cln.swf.gz --fit --out sp2-fit",
        ),
        "Replay the trace's recorded schedule (the logged starts) and simulate a policy on "
        "the same jobs and machine; print mean and per-class waits side by side, the "
        "Kolmogorov-Smirnov statistic between the wait distributions, the share of jobs "
        "started within --within seconds of their recorded start, a judgement (close, loose "
        "or poor, with its thresholds) of what that means for a what-if, and draw "
        "utilization and queue length over time.",
        module="validate",
    ),
    Command(
        "trace",
        "inspect, import and fetch traces",
        (
            "cosched trace info ../shared/traces/KTH-SP2-1996-2.1-cln.swf.gz",
            "cosched trace import slurm sacct-2024-01.txt -o site.swf.gz",
        ),
        "Inspect a trace (info), convert an accounting log to SWF (import), or get an "
        "archive log by name (fetch, list).",
        verbs=_TRACE,
        dest="trace_command",
        metavar="ACTION",
    ),
    Command(
        "generate",
        "generate a synthetic workload (SWF)",
        _GENERATE,
        "Generate a synthetic workload from a model and write it as SWF.",
        verbs=(
            Command(
                "lublin",
                "Lublin-Feitelson 2003 model",
                _GENERATE,
                "Generate a Lublin-Feitelson 2003 workload (class-separated by default).",
                module="generate",
            ),
        ),
        dest="model",
        metavar="MODEL",
    ),
    Command(
        "annotate",
        "add a per-job resource profile (SWF + sidecar)",
        (
            "cosched annotate lomarc lublin.swf --seed 1 -o lublin-lomarc.swf",
            "cosched annotate nodeshare ../shared/traces/RICC-2010-2.swf.gz --seed 3 -o ricc.swf",
        ),
        "Annotate a workload with a per-job profile: one a family declares, or recorded (the "
        "trace's own starts); an unknown name lists them all.",
        module="annotate",
    ),
    Command(
        "sweep",
        "run an experiment or sweep spec (TOML) into a resumable store",
        (
            "cosched sweep examples/sweep-example.toml --out sweep-out --workers 2",
            "cosched reproduce coupled --print-spec > mine.toml; "
            "cosched sweep mine.toml --quick --out mine --dask local:2",
        ),
        "Run every cell of a TOML spec that is not yet in --out. Finished cells are stored "
        "at once, so an interrupted run resumes where it stopped; the store gets "
        "results.parquet, report.md and report.html.",
        module="sweep",
    ),
    Command(
        "reproduce",
        "rerun a paper's experiments and write a report",
        (
            "cosched reproduce coupled --quick --out coupled-quick --workers 2",
            "cosched reproduce lomarc --print-spec > mine.toml",
        ),
        "Run a reproduction (an experiment spec shipped with cosched) into --out: "
        "results.parquet, report.md and report.html with the paper's numbers beside "
        "cosched's. Resumable: a rerun skips finished cells.",
        module="reproduce",
    ),
    Command(
        "report",
        "rebuild an experiment's or a comparison's report from its results",
        ("cosched report coupled-quick", "cosched report answer"),
        "Rebuild DIR/report.md and DIR/report.html from DIR/results.parquet (a sweep or "
        "reproduction) or from DIR/plan.json and DIR/store (a `cosched compare`) alone: no "
        "cell is run.",
        module="report",
    ),
    Command(
        "coupled",
        "coupled machines: paired jobs across schedulers",
        (
            "cosched coupled run examples/coupled.toml --transport tcp",
            "cosched coupled run examples/coupled.toml --json result.json",
        ),
        "Coupled machines (the coupled-systems paper): run a spec, or serve one machine's "
        "domain to its peers.",
        verbs=_COUPLED,
        dest="coupled_command",
        metavar="COMMAND",
    ),
)
