"""CPU placement plans and the window accounting from sampled counters."""
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tandem_bench import cpu, loadgen, orchestrate


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


def test_a_generator_s_cpu_is_known_up_to_its_end_however_long_the_sampler_was_starved(tmp_path):
    # The sampler shares the generator's core and can miss its turn for longer than its tolerance
    # (two samples) just before the generator ends; once reaped, the generator's /proc entry is
    # gone. This sampler is never started: it has only track's reading at the start, as if starved
    # throughout. The end comes from wait4's count instead (before: the window's CPU was None).
    sampler = cpu.Sampler()
    t0 = time.time()
    burn = "import time\nend = time.process_time() + 0.3\nwhile time.process_time() < end: pass"
    loadgen._run([sys.executable, "-c", burn], tmp_path / "generator.log", timeout=60,
                 on_start=lambda pid: sampler.track("generator", pid),
                 on_end=lambda cpu_seconds: sampler.ended("generator", cpu_seconds))
    used = sampler.window(t0, time.time(), ["generator"])["generator"]
    assert used is not None and 0.3 <= used < 1.0
    assert "generator" not in sampler.pids   # its pid may be another process's now


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


def test_threads_are_told_apart_by_the_names_the_services_give_them():
    # names as the kernel keeps them (15 characters), from the two services' /proc/<pid>/task/*/comm
    kinds = {"ForkJoinPool-1-": "carrier", "http-nio-127.0.": "io", "grpc-default-wo": "io", "grpc-default-bo": "io",
             "MasterPoller": "io", "lettuce-epollEv": "redis", "lettuce-nioEven": "redis", "GC Thread#0": "gc",
             "VM Thread": "gc", "G1 Refine#0": "gc", "C2 CompilerThre": "jit", "C1 CompilerThre": "jit",
             "tandem-cache-lo": "other", "HikariPool-1:ho": "other", "java": "other"}
    assert {name: cpu.thread_kind(name) for name in kinds} == kinds


def test_tomcat_threads_are_the_io_of_rest_but_only_management_on_the_grpc_service():
    # Tomcat's poller and its own pool share one kernel name ("http-nio-127.0.0.1-18081-…" kept to 15
    # characters); on the gRPC service that Tomcat serves only the management port (ManagementThreads)
    assert cpu.thread_kind("http-nio-127.0.", servlet_is_io=True) == "io"
    assert cpu.thread_kind("http-nio-127.0.", servlet_is_io=False) == "other"
    assert cpu.thread_kind("grpc-default-wo", servlet_is_io=False) == "io"


def test_thread_times_count_a_new_thread_from_zero_and_leave_an_ended_or_reused_one_out():
    before = cpu.ThreadTimes({1: ("carrier", 2.0), 2: ("io", 5.0), 3: ("gc", 1.0), 4: ("other", 9.0)})
    after = cpu.ThreadTimes({1: ("carrier", 2.5), 2: ("io", 5.25),          # ran 0.5 s and 0.25 s
                             5: ("carrier", 0.125),                          # started in between
                             4: ("jit", 0.5)})                               # tid 4 ended and was reused
    # thread 3 ended in between: its second of the past is not taken off the collector's share
    assert after - before == {"carrier": 625.0, "io": 250.0, "redis": 0.0, "gc": 0.0, "jit": 500.0, "other": 0.0}


def test_a_real_jvm_s_virtual_threads_run_on_carriers_counted_from_when_they_start(tmp_path):
    main = tmp_path / "Carry.java"
    # the default scheduler starts its carriers with the first virtual thread, after the first reading
    main.write_text("public class Carry { public static void main(String[] a) throws Exception {"
                    " System.out.println(\"ready\"); System.out.flush(); System.in.read();"
                    " Thread.ofVirtual().start(() -> { long s = 0;"
                    " for (int i = 0; i < 400_000_000; i++) s += s % 7 + i; System.out.println(\"spun \" + s);"
                    " System.out.flush(); }).join(); Thread.sleep(30_000); } }")
    java = Path(orchestrate.java_home()) / "bin" / "java"
    jvm = subprocess.Popen([str(java), str(main)], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    try:
        assert jvm.stdout.readline().strip() == "ready"
        before = cpu.ThreadTimes.read(jvm.pid)
        assert not any(kind == "carrier" for kind, _ in before.threads.values())
        jvm.stdin.write("\n")
        jvm.stdin.flush()
        assert jvm.stdout.readline().startswith("spun")
        used = cpu.ThreadTimes.read(jvm.pid) - before
        # a fixed amount of work, well over 100 ms of CPU on any machine, not a time asserted
        assert used["carrier"] >= 100 and used["carrier"] == max(used.values())
    finally:
        jvm.kill()
        jvm.wait()
    assert cpu.ThreadTimes.read(jvm.pid) is None   # gone


def test_the_machines_busy_time_leaves_out_what_the_hypervisor_stole(monkeypatch, tmp_path):
    stat = tmp_path / "stat"
    stat.write_text("cpu  100 0 50 1000 0 0 0 400 0 0\ncpu0 1 2 3\n")
    real_open = open
    monkeypatch.setattr("builtins.open", lambda path, *a, **k: real_open(stat if path == "/proc/stat" else path, *a, **k))
    assert cpu.machine_busy_seconds() == pytest.approx(150 / cpu.CLOCK_TICKS)
