"""The balance lab on a Dask cluster: two worker processes give the one-worker run's JSON bytes."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

distributed = pytest.importorskip(
    "distributed", reason="Dask is not installed: pip install 'critter-kitchen[cluster]' to run the cluster test"
)

LAB = str(Path(__file__).resolve().parent / "packs" / "lab")
ARGS = ("simulate", "--pack", LAB, "--games", "90", "--players", "3", "--seed", "4", "--format", "json")


def simulate(*extra: str) -> str:
    done = subprocess.run(
        [sys.executable, "-m", "critter_kitchen", *ARGS, *extra], capture_output=True, text=True, check=False
    )
    assert (done.returncode, done.stderr) == (0, "")
    return done.stdout


def test_a_local_cluster_of_two_processes_gives_the_one_worker_bytes():
    with distributed.LocalCluster(n_workers=2, processes=True, threads_per_worker=1, dashboard_address=None) as cluster:
        assert len(cluster.workers) == 2
        on_cluster = simulate("--dask", cluster.scheduler_address)
    assert on_cluster == simulate("--workers", "1")
    assert '"games": 90' in on_cluster


def test_a_precision_run_on_a_local_cluster_gives_the_one_worker_bytes():
    precision = ("--precision", "0.05", "--games", "3000")
    with distributed.LocalCluster(n_workers=2, processes=True, threads_per_worker=1, dashboard_address=None) as cluster:
        on_cluster = simulate(*precision, "--dask", cluster.scheduler_address)
    assert on_cluster == simulate(*precision, "--workers", "1")
    assert '"stopped_by": "precision"' in on_cluster
    assert '"games": 1000' in on_cluster  # stopped at the look of 1000 games, not at the cap
