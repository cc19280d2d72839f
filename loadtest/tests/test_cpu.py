"""CPU placement plans and the window accounting from sampled counters."""
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tandem_bench import cpu, orchestrate


def test_two_cores_put_the_services_on_one_and_the_generator_on_the_other():
    p = cpu.Placement.plan(2, available=True)
    assert (p.services, p.generator) == ([0], [1])
    assert p.generator_prefix() == ["taskset", "-c", "1"]
    assert p.service_java_options() == ["-XX:ActiveProcessorCount=1"]
    assert p.describe()["servers"] == "0" and p.generator_cores == 1


def test_more_cores_split_in_half_and_a_profile_may_choose():
    assert cpu.Placement.plan(8, available=True).services == [0, 1, 2, 3]
    p = cpu.Placement.plan(4, {"services": "0-2", "generator": "3"}, available=True)
    assert (p.services, p.generator) == ([0, 1, 2], [3])
    with pytest.raises(ValueError, match="overlap"):
        cpu.Placement.plan(4, {"services": "0-2", "generator": "2"}, available=True)
    with pytest.raises(ValueError, match="has 2"):
        cpu.Placement.plan(2, {"services": "0", "generator": "5"}, available=True)


@pytest.mark.skipif((os.cpu_count() or 1) < 2, reason="needs two cores to tell them apart")
def test_services_start_on_every_core_though_the_bench_runs_on_the_generators(tmp_path):
    # the bench pins itself to the generator's CPU (pin_self) and a child inherits its parent's
    # mask: without the launch prefix both services started up, and JIT-warmed, on that one core
    p = cpu.Placement.plan(os.cpu_count(), available=True)
    bench_mask = set(p.generator)
    child = subprocess.run([*p.service_launch_prefix(), "python3", "-c",
                            "import os; print(sorted(os.sched_getaffinity(0)))"],
                           preexec_fn=lambda: os.sched_setaffinity(0, bench_mask), capture_output=True, text=True,
                           check=True)
    assert child.stdout.strip() == str(list(range(os.cpu_count())))
    no_prefix = subprocess.run(["python3", "-c", "import os; print(sorted(os.sched_getaffinity(0)))"],
                               preexec_fn=lambda: os.sched_setaffinity(0, bench_mask), capture_output=True,
                               text=True, check=True)
    assert no_prefix.stdout.strip() == str(sorted(bench_mask))


def test_one_core_or_no_taskset_pins_nothing_and_says_so():
    for p in (cpu.Placement.plan(1, available=True), cpu.Placement.plan(2, available=False)):
        assert p.method == "none" and p.generator_prefix() == [] and p.service_java_options() == []
        assert p.service_launch_prefix() == []
        assert p.note


def test_a_window_takes_the_interpolated_counters_at_its_first_send_and_last_reply():
    s = cpu.Sampler()
    for name in ("svc", "gen"):
        s.series[name] = cpu.Series()
    # svc burns 0.5 core, gen 1 core, the machine 1.7 cores: 0.2 cores of something else
    for i in range(11):
        t = 100 + i * 0.05
        s.series["svc"].add(t, 10 + 0.5 * i * 0.05)
        s.series["gen"].add(t, 20 + 1.0 * i * 0.05)
        s.machine.add(t, 50 + 1.7 * i * 0.05)
    out = s.window(100.1, 100.4, ["svc", "gen", "absent"])
    assert out["svc"] == pytest.approx(0.15) and out["gen"] == pytest.approx(0.3)
    assert out["other"] == pytest.approx(0.06) and out["absent"] is None


def test_a_window_outside_the_readings_is_unknown_not_zero():
    s = cpu.Series()
    s.add(100.0, 1.0)
    s.add(100.05, 1.1)
    assert s.between(200.0, 201.0) is None


def test_cpu_lists_parse_like_taskset():
    assert cpu.parse_cpus("0-2,5") == [0, 1, 2, 5] and cpu.format_cpus([0, 3]) == "0,3"


def test_compiler_cpu_is_read_from_a_real_jvms_compiler_threads_and_is_none_elsewhere(tmp_path):
    main = tmp_path / "Spin.java"
    # enough work for the JIT to compile something, then a pause in which it can be read
    main.write_text("public class Spin { public static void main(String[] a) throws Exception {"
                    " long s = 0; for (int i = 0; i < 200_000_000; i++) s += i % 7; System.out.println(s);"
                    " System.out.flush(); Thread.sleep(30_000); } }")
    java = Path(orchestrate.java_home()) / "bin" / "java"
    jvm = subprocess.Popen([str(java), "-XX:-UseDynamicNumberOfCompilerThreads", str(main)],
                           stdout=subprocess.PIPE, text=True)
    try:
        assert jvm.stdout.readline().strip()          # the loop ran (and was compiled)
        seconds = cpu.compiler_seconds(jvm.pid)
        assert seconds is not None and seconds > 0
        time.sleep(0.3)
        assert cpu.compiler_seconds(jvm.pid) >= seconds  # cumulative
    finally:
        jvm.kill()
        jvm.wait()
    assert cpu.compiler_seconds(os.getpid()) is None   # python has no compiler threads
    assert cpu.compiler_seconds(jvm.pid) is None       # gone


def test_a_process_s_context_switches_count_every_thread_and_its_system_time_is_apart():
    # a child whose second thread sleeps 200 times and then says so: every wake-up is a voluntary
    # switch of a thread that is not the process's first, which /proc/<pid>/status alone would miss
    child = subprocess.Popen([sys.executable, "-c",
                              "import threading, time\n"
                              "def naps():\n"
                              "    for _ in range(200): time.sleep(0.001)\n"
                              "    print('napped', flush=True)\n"
                              "    time.sleep(30)\n"
                              "t = threading.Thread(target=naps); t.start(); t.join()"],
                             stdout=subprocess.PIPE, text=True)
    try:
        assert child.stdout.readline().strip() == "napped"
        main_only = int(Path(f"/proc/{child.pid}/status").read_text().split("voluntary_ctxt_switches:")[1].split()[0])
        assert cpu.context_switches(child.pid) >= main_only + 200
        user, system = cpu.user_system_seconds(child.pid)
        assert user >= 0 and system >= 0
        assert cpu.process_seconds(child.pid) == pytest.approx(user + system)
    finally:
        child.kill()
        child.wait()
    assert cpu.context_switches(child.pid) is None and cpu.user_system_seconds(child.pid) is None   # gone
