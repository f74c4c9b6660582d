# Shared helpers of the pfsp Python tests: a brute-force makespan and random instances.
import itertools
import random

import pytest


def makespan(times, order):
    """Makespan of `order` (0-based jobs) on machine-major `times[k][j]`: the flow-shop
    recurrence C(k, j) = max(C(k-1, j), C(k, previous job)) + p(k, j), in O(n m)."""
    m = len(times)
    done = [0] * m
    for j in order:
        done[0] += times[0][j]
        for k in range(1, m):
            done[k] = max(done[k], done[k - 1]) + times[k][j]
    return done[-1]


def brute_force(times):
    """The optimum over all n! orders (n <= 8)."""
    n = len(times[0])
    return min(makespan(times, p) for p in itertools.permutations(range(n)))


def random_times(seed, n, m, high=30):
    rng = random.Random(seed)
    return [[rng.randint(1, high) for _ in range(n)] for _ in range(m)]


@pytest.fixture
def small_times():
    return [[5, 3, 8, 2], [4, 6, 1, 7], [3, 2, 9, 4]]
