"""FunSearch scorers (self-contained: only math/itertools/random, so the sandbox runner can embed them).

A candidate program defines ``priority``; the scorer builds a solution greedily from it.
- cap_set: ``priority(el: tuple[int, ...], n: int) -> float``; greedy cap set in F_3^n, score = size.
- online_bin_packing: ``priority(item: float, bins: list[float]) -> list[float]`` over the remaining
  capacities of the feasible bins; score = -(mean number of bins used) over seeded instances.
"""

import itertools
import random


def score_cap_set(priority: object, params: dict) -> dict:
    n = int(params.get("n", 4))
    els = list(itertools.product(range(3), repeat=n))
    scored = sorted(((float(priority(el, n)), el) for el in els), key=lambda t: -t[0])
    cap = []
    members = set()
    for _, el in scored:
        ok = True
        for other in cap:
            third = tuple((-a - b) % 3 for a, b in zip(el, other, strict=True))
            if third in members:
                ok = False
                break
        if ok:
            cap.append(el)
            members.add(el)
    return {"score": len(cap), "size": len(cap), "n": n}


def bin_packing_instances(seed: int, count: int, items: int, capacity: int) -> tuple:
    rng = random.Random(seed)
    return [[rng.randint(20, 100) for _ in range(items)] for _ in range(count)], capacity


def score_online_bin_packing(priority: object, params: dict) -> dict:
    instances, capacity = bin_packing_instances(int(params.get("seed", 0)), int(params.get("instances", 5)),
                                                int(params.get("items", 120)), int(params.get("capacity", 150)))
    used = []
    lower = []
    for inst in instances:
        bins = []
        for item in inst:
            feasible = [i for i, r in enumerate(bins) if r >= item]
            cand = [bins[i] for i in feasible] + [capacity]
            pr = list(priority(float(item), [float(c) for c in cand]))
            if len(pr) != len(cand):
                raise ValueError("priority must return one value per feasible bin")
            best = max(range(len(cand)), key=lambda j: (float(pr[j]), -j))
            if best == len(feasible):
                bins.append(capacity - item)
            else:
                bins[feasible[best]] -= item
        used.append(len(bins))
        lower.append(-(-sum(inst) // capacity))
    mean = sum(used) / len(used)
    return {"score": -mean, "mean_bins": mean, "lower_bound_mean": sum(lower) / len(lower), "bins": used}


SCORERS = {"cap_set": score_cap_set, "online_bin_packing": score_online_bin_packing}
