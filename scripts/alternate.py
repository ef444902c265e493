#!/usr/bin/env python3
"""Compare cordon builds command by command, in turn.

usage: scripts/alternate.py [--first] [--runs N] [--workspace DIR] DIR...

Each DIR holds a build (DIR/cordon) and its shims (DIR/shims/bash, a
link to DIR/cordon) and gets its own state directory (DIR/state). The
builds run `bash -c true` in the workspace, taking turns (the order turned
every round), as later commands of one session each (this process is
their agent), or with --first as the first command of a new session each
time (the sessions stopped before each). It prints, for each build, the
median, 10th percentile and minimum wall time, and the shim's CPU (user
and system time of the children) per command.

On a machine whose speed drifts (a shared VM), builds measured in turn
are compared under the same drift; measured one after the other, they
are not (docs/performance.md).
"""
import argparse
import os
import resource
import statistics
import subprocess
import time


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--first", action="store_true")
    ap.add_argument("--runs", type=int, default=200)
    ap.add_argument("--workspace", default=os.getcwd())
    ap.add_argument("dirs", nargs="+")
    a = ap.parse_args()
    wall = {d: [] for d in a.dirs}
    cpu = {d: 0.0 for d in a.dirs}

    def env_of(d):
        env = dict(os.environ)
        env["PATH"] = os.path.join(d, "shims") + os.pathsep + env["PATH"]
        env["XDG_STATE_HOME"] = os.path.join(d, "state")
        return env

    def children_cpu():
        r = resource.getrusage(resource.RUSAGE_CHILDREN)
        return r.ru_utime + r.ru_stime

    for d in a.dirs:  # a session (or the probe's cache) for each first
        subprocess.run([os.path.join(d, "shims", "bash"), "-c", "true"], env=env_of(d), cwd=a.workspace)
    for i in range(a.runs):
        for d in a.dirs if i % 2 == 0 else a.dirs[::-1]:
            env = env_of(d)
            if a.first:
                subprocess.run([os.path.join(d, "cordon"), "sandbox", "--stop"], env=env,
                               stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
                time.sleep(0.05)
            c, t = children_cpu(), time.monotonic_ns()
            subprocess.run([os.path.join(d, "shims", "bash"), "-c", "true"], env=env, cwd=a.workspace)
            wall[d].append((time.monotonic_ns() - t) / 1e6)
            cpu[d] += children_cpu() - c
    for d in a.dirs:
        v = sorted(wall[d])
        print("%-24s median %6.2f ms  p10 %6.2f  min %6.2f  shim CPU %5.2f ms"
              % (d, statistics.median(v), v[len(v) // 10], v[0], cpu[d] / a.runs * 1000))


if __name__ == "__main__":
    main()
