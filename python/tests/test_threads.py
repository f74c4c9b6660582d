# Progress callback, exceptions raised in it, the GIL released while solving, and Ctrl-C.
import os
import signal
import threading
import time

import pytest

import pfsp

# ta021 (20 jobs x 20 machines) takes minutes on one core: long enough to stop from outside.
LONG = dict(backend="cpu", heuristic="neh")


def test_progress_callback_is_called():
    seen = []
    r = pfsp.solve("ta021", time_limit=0.6, progress_interval=0.05, progress=seen.append, **LONG)
    assert r.status == "time_limit"
    assert len(seen) >= 3
    p = seen[-1]
    assert isinstance(p, pfsp.Progress)
    assert 0 < p.elapsed < 2 and p.nodes > 0 and p.best >= r.makespan
    assert p.lower_bound is None  # known on the GPU device loop only
    assert all(a.nodes <= b.nodes for a, b in zip(seen, seen[1:]))


def test_exception_in_the_callback_stops_the_solve():
    calls = []

    def callback(p):
        calls.append(p)
        raise RuntimeError("enough")

    t0 = time.monotonic()
    with pytest.raises(RuntimeError, match="enough") as e:
        pfsp.solve("ta021", progress_interval=0.05, progress=callback, **LONG)
    assert time.monotonic() - t0 < 3
    assert len(calls) == 1
    assert e.value.result.status == "interrupted"
    assert e.value.result.exit_code == 130


def test_gil_is_released_while_solving():
    ticks = []
    stop = threading.Event()

    def count():
        while not stop.is_set():
            ticks.append(time.monotonic())
            time.sleep(0.001)

    t = threading.Thread(target=count)
    t.start()
    try:
        r = pfsp.solve("ta021", time_limit=1.0, **LONG)
    finally:
        stop.set()
        t.join()
    assert r.status == "time_limit"
    # Held for the whole second, the GIL would let the thread run only at the 50 ms polls.
    assert len(ticks) > 100, len(ticks)


def test_ctrl_c_interrupts_with_keyboard_interrupt():
    if threading.current_thread() is not threading.main_thread():
        pytest.skip("signals reach the main thread only")
    # A background job of a non-interactive shell (`pytest &` in a script) starts with SIGINT
    # ignored, and Python then installs no KeyboardInterrupt handler: install it for this test.
    previous = signal.signal(signal.SIGINT, signal.default_int_handler)
    sent = []

    def send():
        sent.append(time.monotonic())
        os.kill(os.getpid(), signal.SIGINT)

    timer = threading.Timer(0.5, send)
    timer.start()
    try:
        with pytest.raises(KeyboardInterrupt) as e:
            pfsp.solve("ta021", **LONG)
    finally:
        timer.cancel()
        signal.signal(signal.SIGINT, previous)
    assert sent and time.monotonic() - sent[0] < 1.5
    r = e.value.result
    assert r.status == "interrupted" and r.exit_code == 130
    assert r.makespan is not None and r.lower_bound <= r.makespan


def test_solve_from_another_thread():
    out = []
    t = threading.Thread(target=lambda: out.append(pfsp.solve("ta001", backend="cpu")))
    t.start()
    t.join()
    assert out[0].makespan == 1278
