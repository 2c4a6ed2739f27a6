"""`make bench` must not rot: a tiny run of bench/bench.py (two lull rows,
1 s idle windows, no Linux guests) writes its table, CSV and pictures.

It writes to build/test-bench/, not build/bench/, so a test run never
overwrites the results of a real `make bench`."""
import csv
import os
import subprocess
import sys

import pytest

from conftest import BUILD, ROOT

CONFIGS = ["periodic-250", "tickless-lapic"]


@pytest.mark.timing
def test_bench_quick_run_writes_table_csv_and_pictures():
    out = os.path.join(BUILD, "test-bench")
    r = subprocess.run([sys.executable, os.path.join(ROOT, "bench", "bench.py"), "--quick", "--no-linux",
                        "--idle", "1", "--only", ",".join(CONFIGS), "--out", out],
                       capture_output=True, text=True, timeout=120, env=dict(os.environ, BUILD=BUILD))
    assert r.returncode == 0, r.stdout[-3000:] + r.stderr[-3000:]
    assert "bench: [2/2] tickless-lapic" in r.stdout, r.stdout

    with open(os.path.join(out, "results.csv")) as f:
        rows = {row["config"]: row for row in csv.DictReader(f)}
    assert sorted(rows) == sorted(CONFIGS)
    for name, row in rows.items():
        assert row["status"] == "ok", row
        assert row["accel"] and row["cpu_model"] == "qemu32" and row["host_cpu"] and row["qemu_version"]
        assert int(row["lat_p99_us"]) >= int(row["lat_p50_us"]), row
    # Loose on purpose: a smoke run, on a machine that may be busy.
    assert 200 <= float(rows["periodic-250"]["wakeups_per_s"]) <= 300
    assert float(rows["tickless-lapic"]["wakeups_per_s"]) < 5
    assert float(rows["periodic-250"]["cpu_ms_per_s"]) > float(rows["tickless-lapic"]["cpu_ms_per_s"])

    with open(os.path.join(out, "results.md")) as f:
        md = f.read()
    for name in CONFIGS:
        assert f"| {name} | tcg | qemu32 |" in md, md
    for png in ("wakeups.png", "hostcpu.png", "latency.png", "timeline.png"):
        assert os.path.getsize(os.path.join(out, png)) > 1000, png
