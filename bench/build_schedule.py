#!/usr/bin/env python3
"""Estimate how long a cold build takes with more cores, from a build measured with fewer.

Replays cargo's schedule: each unit (a crate's compilation or a build script's run) takes
the time `cargo build --timings` measured for it, on one of `--jobs` slots, as soon as what
it depends on is ready (a library's dependents start at its metadata, as cargo pipelines
them; binaries, build scripts and proc macros wait for full artifacts). The dependency graph
is cargo's own unit graph for the same command:

    RUSTC_BOOTSTRAP=1 cargo build --release --locked --unit-graph -Z unstable-options > graph.json
    python3 bench/build_schedule.py graph.json target/cargo-timings/cargo-timing.html --jobs 2,8,16

Replaying at the measured `-j` should land near the measured wall time; that is the check
that the model holds. For more cores it prints two numbers: each unit as long as it took in
the measured build (an upper bound: rustc spreads a crate's code generation, and with LTO the
whole program's at the final link, over all the jobserver's tokens), and with that code
generation spread perfectly over the cores (a lower bound, which also ignores shared memory
bandwidth and a laptop's thermals).
"""

import argparse
import heapq
import json
from collections import defaultdict

from build_timings import unit_data


def measured(path):
    """(name, version, kind) -> list of (duration, rmeta or None, parallel seconds)."""
    out = defaultdict(list)
    for u in sorted(unit_data(path), key=lambda u: u["start"]):
        out[key_of_timing(u)].append((u["duration"], rmeta_of(u), parallel_part(u)))
    return out


def is_bin(u):
    """Whether a timings record is a binary: ` NAME "bin"` (older cargo: `(bin NAME)`)."""
    target = u.get("target", "")
    return '"bin"' in target or "(bin" in target


def parallel_part(u):
    """Seconds of the unit that rustc spreads over the jobserver's tokens: code generation,
    and all of a binary's link step (with LTO, the whole program's code generation)."""
    if is_bin(u):
        return u["duration"]
    for name, span in u.get("sections") or []:
        if name == "codegen":
            return span["end"] - span["start"]
    return 0.0


def rmeta_of(u):
    """When the unit's metadata was out: older cargo records it, newer cargo splits the
    unit into a front end (which ends with the metadata) and code generation."""
    if u.get("rmeta_time") is not None:
        return u["rmeta_time"]
    for name, span in u.get("sections") or []:
        if name == "frontend":
            return span["end"]
    return None


def key_of_timing(u):
    """The unit's identity as the timings page spells it: `target` is empty for a library,
    ` build-script`, ` build-script (run)`, or a binary's (`is_bin`)."""
    target = u.get("target", "")
    if "build-script" in target or "build script" in target:
        run = "(run)" in target or u.get("mode") == "run-custom-build"
        kind = "run" if run else "script"
    else:
        kind = "bin" if is_bin(u) else "lib"
    return (u["name"], u["version"], kind)


def key_of_graph(u):
    """The same identity for a unit of cargo's unit graph."""
    name, version = u["pkg_id"].split("#")[-1].rsplit("@", 1)
    if "/" in name or ":" in name:  # a path package: `path+file:///x#name@1.0`
        name = name.rsplit("/", 1)[-1]
    kinds = u["target"]["kind"]
    if u["mode"] == "run-custom-build":
        kind = "run"
    elif "custom-build" in kinds:
        kind = "script"
    else:
        kind = "bin" if "bin" in kinds else "lib"
    return (name, version, kind)


def attach_durations(units, timings):
    """Give each graph unit a measured (duration, rmeta); duplicates (the host and target
    builds of one crate) get the shorter time for the unoptimised host copy."""
    by_key = defaultdict(list)
    for i, u in enumerate(units):
        by_key[key_of_graph(u)].append(i)
    times, missing = {}, []
    for key, idxs in by_key.items():
        got = sorted(timings.get(key, []), key=lambda t: t[0])
        if not got:
            missing.append(key)
            got = [(0.0, None, 0.0)]
        # Host copies (build-override, opt-level 0) first, matched to the shortest times.
        idxs = sorted(idxs, key=lambda i: units[i]["profile"]["opt_level"] != "0")
        for n, i in enumerate(idxs):
            times[i] = got[min(n, len(got) - 1)]
    return times, missing


def needs_full(dep, unit):
    """Whether `unit` must wait for `dep`'s full artifact rather than its metadata."""
    if unit["mode"] == "run-custom-build" or dep["mode"] == "run-custom-build":
        return True
    kinds = set(unit["target"]["kind"])
    if kinds & {"bin", "custom-build", "proc-macro"}:
        return True
    return "proc-macro" in dep["target"]["kind"]


def scaled(times, factor):
    """The same units with their parallel part (code generation) `factor` times as long."""
    out = {}
    for i, (dur, rmeta, par) in times.items():
        out[i] = (dur - par * (1 - factor), rmeta, par * factor)
    return out


def replay(units, times, jobs):
    """List-schedule the units on `jobs` slots; returns the finish time of the last one."""
    n = len(units)
    waiting = [len(u["dependencies"]) for u in units]
    dependents = defaultdict(list)
    for i, u in enumerate(units):
        for d in u["dependencies"]:
            dependents[d["index"]].append(i)
    ready_at = [0.0] * n
    ready = [i for i in range(n) if waiting[i] == 0]
    events, free, now, started = [], jobs, 0.0, 0
    while started < n or events:
        ready.sort(key=lambda i: ready_at[i])
        while free and ready and ready_at[ready[0]] <= now:
            i = ready.pop(0)
            dur, rmeta, _ = times[i]
            free -= 1
            started += 1
            heapq.heappush(events, (now + dur, "done", i))
            heapq.heappush(events, (now + (dur if rmeta is None else rmeta), "meta", i))
        if not events:
            if not ready:
                break
            now = ready_at[ready[0]]
            continue
        t, what, i = heapq.heappop(events)
        now = max(now, t)
        if what == "done":
            free += 1
            release_full(units, dependents, i, t, ready_at, waiting, ready)
        else:
            release_meta(units, dependents, i, t, ready_at, waiting, ready)
    return now


def release_meta(units, dependents, i, t, ready_at, waiting, ready):
    """A library's metadata is out: dependents that only need metadata may go."""
    for j in dependents[i]:
        if not needs_full(units[i], units[j]):
            unblock(j, t, ready_at, waiting, ready)


def release_full(units, dependents, i, t, ready_at, waiting, ready):
    """A unit is done: dependents that needed its full artifact may go."""
    for j in dependents[i]:
        if needs_full(units[i], units[j]):
            unblock(j, t, ready_at, waiting, ready)


def unblock(j, t, ready_at, waiting, ready):
    ready_at[j] = max(ready_at[j], t)
    waiting[j] -= 1
    if waiting[j] == 0:
        ready.append(j)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("graph", help="output of cargo build --unit-graph")
    ap.add_argument("timings", help="cargo-timing.html of the measured build")
    ap.add_argument("--jobs", default="2,8,16")
    ap.add_argument("--measured-jobs", type=int, default=2, help="the -j of the measured build")
    a = ap.parse_args()
    units = json.load(open(a.graph))["units"]
    times, missing = attach_durations(units, measured(a.timings))
    if missing:
        print(f"{len(missing)} unit kinds without a measured time (counted as 0 s): {missing[:5]}")
    total = sum(t[0] for t in times.values())
    print(f"{len(units)} units, {total:.0f} s of unit time")
    for j in (int(x) for x in a.jobs.split(",")):
        as_measured = replay(units, times, j)
        spread = replay(units, scaled(times, min(1.0, a.measured_jobs / j)), j)
        print(f"-j{j}: {as_measured / 60:.1f} min as measured, {spread / 60:.1f} min if code "
              f"generation spread over {j} cores")


if __name__ == "__main__":
    main()
